//! Timing on standard error when `RAGGED_TRACE` is set (to anything but `0`): one line
//! per phase (`ragged: probe 101.3 ms`), to see where a command spends its time — the
//! CUDA backend's start-up phases, the line reader's windows, the CLI's whole command —
//! and, summed over a command, its read, decode, upload, op, download, encode and
//! write phases ([`Phase`], [`phases_line`]).

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

/// The phases of a command that [`phases_line`] reports, each summed over the command
/// (wall-clock time of the calling thread, and the bytes it moved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Reading the input file's bytes (IPC and CSV; Parquet reads inside decode).
    Read,
    /// Decoding the file into columns (Parquet: reading its pages too).
    Decode,
    /// Host → device copies.
    Upload,
    /// The command's computation on the device, uploads and downloads included (the
    /// report subtracts them and names the rest `op`).
    Compute,
    /// Device → host copies.
    Download,
    /// Encoding the output (Parquet pages, CSV text; IPC encodes while writing).
    Encode,
    /// Writing the output file: its bytes, the sync and the rename.
    Write,
}

const PHASES: usize = 7;

static NANOS: [std::sync::atomic::AtomicU64; PHASES] =
    [const { std::sync::atomic::AtomicU64::new(0) }; PHASES];
static BYTES: [std::sync::atomic::AtomicU64; PHASES] =
    [const { std::sync::atomic::AtomicU64::new(0) }; PHASES];

/// Add `elapsed` and `bytes` to `phase` (whether or not tracing is on: two atomic
/// additions).
pub fn add(phase: Phase, elapsed: std::time::Duration, bytes: u64) {
    use std::sync::atomic::Ordering::Relaxed;
    let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
    NANOS[phase as usize].fetch_add(nanos, Relaxed);
    BYTES[phase as usize].fetch_add(bytes, Relaxed);
}

/// Run `work` and, when tracing, add its time and `bytes` to `phase`.
pub fn measure<R>(phase: Phase, bytes: u64, work: impl FnOnce() -> R) -> R {
    if !enabled() {
        return work();
    }
    let started = Instant::now();
    let value = work();
    add(phase, started.elapsed(), bytes);
    value
}

/// The phases so far as one line — `read 12.0 ms (1.10 GB, 91.7 GB/s), decode …, op
/// 3.1 ms, …` — leaving out those that did not happen.
pub fn phases_line() -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let ms = |p: Phase| NANOS[p as usize].load(Relaxed) as f64 / 1e6;
    let bytes = |p: Phase| BYTES[p as usize].load(Relaxed);
    let part = |name: &str, p: Phase| -> Option<String> {
        let (millis, b) = (ms(p), bytes(p));
        match (millis > 0.0, b > 0) {
            (false, false) => None,
            (true, true) => Some(format!(
                "{name} {millis:.1} ms ({:.3} GB, {:.2} GB/s)",
                b as f64 / 1e9,
                b as f64 / 1e6 / millis
            )),
            _ => Some(format!("{name} {millis:.1} ms")),
        }
    };
    // The compute span less its copies.
    let op = (ms(Phase::Compute) > 0.0).then(|| {
        let millis = ms(Phase::Compute) - ms(Phase::Upload) - ms(Phase::Download);
        format!("op {:.1} ms", millis.max(0.0))
    });
    [
        part("read", Phase::Read),
        part("decode", Phase::Decode),
        part("upload", Phase::Upload),
        op,
        part("download", Phase::Download),
        part("encode", Phase::Encode),
        part("write", Phase::Write),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}
