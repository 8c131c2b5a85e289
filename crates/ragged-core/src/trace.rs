//! Timing on standard error when `RAGGED_TRACE` is set (to anything but `0`): one line
//! per phase (`ragged: probe 101.3 ms`), to see where a command spends its time — the
//! CUDA backend's start-up phases, the line reader's windows, the CLI's whole command.

use std::sync::OnceLock;
use std::time::Instant;

/// Whether tracing is on (the environment is read once).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("RAGGED_TRACE").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Run `work`, and with it the milliseconds it took when tracing (else `None`).
pub fn traced<R>(work: impl FnOnce() -> R) -> (R, Option<f64>) {
    let started = enabled().then(Instant::now);
    let value = work();
    (value, started.map(|t| t.elapsed().as_secs_f64() * 1e3))
}

/// Run `work`, and print how long it took under `phase` when tracing.
pub fn timed<R>(phase: &str, work: impl FnOnce() -> R) -> R {
    let (value, ms) = traced(work);
    if let Some(ms) = ms {
        eprintln!("ragged: {phase} {ms:.1} ms");
    }
    value
}
