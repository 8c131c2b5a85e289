//! Start-up timing on standard error when `RAGGED_TRACE` is set (to anything but `0`):
//! one line per phase (`ragged: probe 101.3 ms`), to see where a cold or warm start
//! spends its time.

use std::sync::OnceLock;
use std::time::Instant;

/// Whether tracing is on (read once).
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("RAGGED_TRACE").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Run `work`, and print how long it took under `phase` when tracing.
pub(crate) fn timed<R>(phase: &str, work: impl FnOnce() -> R) -> R {
    if !enabled() {
        return work();
    }
    let started = Instant::now();
    let value = work();
    eprintln!(
        "ragged: {phase} {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    value
}
