//! The benchmark harness behind `ragged bench`.
//!
//! Method (DESIGN.md §5, "Method"): each case counts the bytes it must move (inputs
//! read once, outputs written once), runs a few warm-up iterations, then times many
//! runs and keeps the median — with CUDA events on the GPU, a monotonic clock on the
//! CPU. The ceiling is measured in the same run: a device-to-device copy on the GPU, a
//! parallel host memcpy on the CPU, both counting bytes read plus bytes written. Every
//! figure is reported as GB/s and as a fraction of that copy rate (`x_copy`).
//! Bandwidth cases use inputs of at least 256 MB, larger than any L2 cache; data is
//! random, never zeros.

use std::time::Instant;

use ragged_core::{Backend, Memory, PrimitiveColumn, Result, ScalarBuffer};
use ragged_cpu::CpuBackend;
use ragged_cuda::CudaBackend;
use serde::Serialize;

use crate::device::AnyBackend;

mod lists;
mod sequences;
mod strings;

/// One measured case.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRecord {
    /// The case name, e.g. `reduce_sum/i32`.
    pub case: String,
    /// `cpu` or `cuda`.
    pub backend: String,
    /// The device description.
    pub device: String,
    /// Elements (rows, values or bytes, as the case defines).
    pub elements: u64,
    /// Bytes counted as moved (read once + written once).
    pub bytes: u64,
    /// Median seconds per run.
    pub seconds: f64,
    /// `bytes / seconds / 1e9`.
    pub gb_per_s: f64,
    /// Fraction of the copy rate measured in the same run.
    pub x_copy: f64,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Run only this suite (`runtime`, `primitives`, `strings`, `lists`, `lines`,
    /// `sequences`); all
    /// when `None`.
    pub suite: Option<String>,
    /// Smaller sizes and fewer runs (for smoke tests on small machines).
    pub quick: bool,
    /// Run only the cases whose name contains this text, or one of its comma-separated
    /// parts (`redact/60000000,like/`); a part ending in `$` must end the name
    /// (`redact/600000$` leaves out `redact/6000000`). A filter that selects no case of
    /// the suites run is an invalid-argument error.
    pub filter: Option<String>,
}

/// Whether `case` is selected by `filter`: no filter, or a name that contains one of
/// the filter's comma-separated parts (a part ending in `$` must end the name; empty
/// parts are left out, and a filter of none selects every case).
fn selected(filter: Option<&str>, case: &str) -> bool {
    let Some(filter) = filter else {
        return true;
    };
    let mut parts = filter.split(',').filter(|part| !part.is_empty()).peekable();
    parts.peek().is_none()
        || parts.any(|part| match part.strip_suffix('$') {
            Some(end) => case.ends_with(end),
            None => case.contains(part),
        })
}

/// The suites known to the harness.
pub const SUITES: &[&str] = &[
    "runtime",
    "primitives",
    "strings",
    "lists",
    "lines",
    "sequences",
];

/// Timing and ceiling measurement, per backend.
pub trait BenchBackend: Backend {
    /// `cpu` or `cuda`.
    fn kind(&self) -> &'static str;
    /// Seconds taken by the work `run` queues (device events on the GPU; wall clock on
    /// the CPU). `run` must leave no work pending that it does not time.
    fn time_run(&self, run: &mut dyn FnMut() -> Result<()>) -> Result<f64>;
    /// Seconds for one copy of `bytes` bytes within this backend's memory.
    fn copy_seconds(&self, bytes: usize, runs: usize) -> Result<f64>;
    /// The CUDA backend, for cases that exist only there (pinned transfers).
    fn as_cuda(&self) -> Option<&CudaBackend> {
        None
    }
}

impl BenchBackend for CpuBackend {
    fn kind(&self) -> &'static str {
        "cpu"
    }
    fn time_run(&self, run: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
        let started = Instant::now();
        run()?;
        Ok(started.elapsed().as_secs_f64())
    }
    fn copy_seconds(&self, bytes: usize, runs: usize) -> Result<f64> {
        use rayon::prelude::*;
        let src: Vec<u8> = (0..bytes)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let mut dst = vec![0u8; bytes];
        let mut times = Vec::new();
        for _ in 0..runs + 2 {
            let started = Instant::now();
            dst.par_chunks_mut(1 << 20)
                .zip(src.par_chunks(1 << 20))
                .for_each(|(d, s)| d.copy_from_slice(s));
            times.push(started.elapsed().as_secs_f64());
        }
        std::hint::black_box(&dst);
        Ok(median(&mut times[2..].to_vec()))
    }
}

impl BenchBackend for CudaBackend {
    fn kind(&self) -> &'static str {
        "cuda"
    }
    fn as_cuda(&self) -> Option<&CudaBackend> {
        Some(self)
    }
    fn time_run(&self, run: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
        Ok(self.time(run)?.1)
    }
    fn copy_seconds(&self, bytes: usize, runs: usize) -> Result<f64> {
        let src = self.upload(&ScalarBuffer::from(random_bytes(bytes)))?;
        let mut times = Vec::new();
        for _ in 0..runs + 2 {
            let (_, t) = self.time(|| self.copy_buffer(&src).map(drop))?;
            times.push(t);
        }
        Ok(median(&mut times[2..].to_vec()))
    }
}

/// Run the selected suites on `backend`.
///
/// # Errors
/// Any op or device error.
pub fn run(
    backend: &AnyBackend,
    options: &BenchOptions,
    on_record: &mut dyn FnMut(&BenchRecord),
) -> Result<Vec<BenchRecord>> {
    crate::with_backend!(backend, |b| run_on(b, options, on_record))
}

struct Harness<'a, B: BenchBackend> {
    backend: &'a B,
    device: String,
    copy_gb_per_s: f64,
    runs: usize,
    records: Vec<BenchRecord>,
    on_record: &'a mut dyn FnMut(&BenchRecord),
    filter: Option<String>,
}

impl<B: BenchBackend> Harness<'_, B> {
    /// [`Harness::case`] for a case whose byte count needs its output: `bytes` runs
    /// only when the case is selected by the filter.
    fn case_sized(
        &mut self,
        case: &str,
        elements: u64,
        bytes: impl FnOnce() -> Result<u64>,
        run: impl FnMut() -> Result<()>,
    ) -> Result<()> {
        if !selected(self.filter.as_deref(), case) {
            return Ok(());
        }
        let bytes = bytes()?;
        self.case(case, elements, bytes, run)
    }

    fn case(
        &mut self,
        case: &str,
        elements: u64,
        bytes: u64,
        mut run: impl FnMut() -> Result<()>,
    ) -> Result<()> {
        if !selected(self.filter.as_deref(), case) {
            return Ok(());
        }
        for _ in 0..2 {
            self.backend.time_run(&mut run)?;
        }
        let mut times = Vec::with_capacity(self.runs);
        let budget = Instant::now();
        for i in 0..self.runs {
            times.push(self.backend.time_run(&mut run)?);
            if i >= 4 && budget.elapsed().as_secs_f64() > 3.0 {
                break;
            }
        }
        let seconds = median(&mut times);
        self.record(case, elements, bytes, seconds);
        Ok(())
    }

    fn record(&mut self, case: &str, elements: u64, bytes: u64, seconds: f64) {
        let gb_per_s = bytes as f64 / seconds.max(1e-12) / 1e9;
        let record = BenchRecord {
            case: case.to_string(),
            backend: self.backend.kind().to_string(),
            device: self.device.clone(),
            elements,
            bytes,
            seconds,
            gb_per_s,
            x_copy: gb_per_s / self.copy_gb_per_s,
        };
        (self.on_record)(&record);
        self.records.push(record);
    }
}

fn run_on<B: BenchBackend>(
    b: &B,
    options: &BenchOptions,
    on_record: &mut dyn FnMut(&BenchRecord),
) -> Result<Vec<BenchRecord>> {
    let wants = |suite: &str| options.suite.as_deref().is_none_or(|s| s == suite);
    let copy_bytes = if options.quick { 16 << 20 } else { 512 << 20 };
    let copy_seconds = b.copy_seconds(copy_bytes, if options.quick { 5 } else { 20 })?;
    let copy_gb_per_s = 2.0 * copy_bytes as f64 / copy_seconds / 1e9;
    let mut h = Harness {
        backend: b,
        device: b.describe(),
        copy_gb_per_s,
        runs: if options.quick { 5 } else { 30 },
        records: Vec::new(),
        on_record,
        filter: options.filter.clone(),
    };
    h.record(
        "copy",
        copy_bytes as u64,
        2 * copy_bytes as u64,
        copy_seconds,
    );
    if wants("runtime") {
        let bytes = if options.quick { 16 << 20 } else { 1 << 30 };
        let host = ScalarBuffer::from(random_bytes(bytes));
        h.case("upload/pageable", bytes as u64, bytes as u64, || {
            b.upload(&host)?;
            b.synchronize()
        })?;
        let device = b.upload(&host)?;
        h.case("download/pageable", bytes as u64, bytes as u64, || {
            b.download(&device).map(drop)
        })?;
        drop(device);
        runtime_pinned(&mut h, bytes)?;
    }
    if wants("primitives") {
        primitives_suite(&mut h, options.quick)?;
    }
    if wants("strings") {
        strings::strings_suite(&mut h, options.quick)?;
    }
    if wants("lists") {
        lists::lists_suite(&mut h, options.quick)?;
    }
    if wants("lines") {
        lines_suite(&mut h, options.quick)?;
    }
    if wants("sequences") {
        sequences::sequences_suite(&mut h, options.quick)?;
    }
    // Only the copy recorded: a filter that selects nothing is a mistake (a regular
    // expression, say), not an empty result.
    if let Some(filter) = options.filter.as_deref() {
        if h.records.len() == 1 && !selected(Some(filter), "copy") {
            return Err(ragged_core::Error::invalid_argument(
                "bench",
                format!(
                    "the filter '{filter}' selects no case of {} (it keeps the cases whose \
                     name contains one of its comma-separated parts; a part ending in '$' \
                     must end the name)",
                    options
                        .suite
                        .as_deref()
                        .map_or("any suite".to_string(), |s| format!("the {s} suite"))
                ),
            ));
        }
    }
    Ok(h.records)
}

/// The lines cases, for lines averaging 16, 80 and 1000 bytes ending in `\n` and in
/// `\r\n` (random printable ASCII), 2 GiB (16 MiB with `--quick`):
/// - `line_ends`: a buffer in the backend's memory → record boundaries (int64);
///   bytes read + offsets written;
/// - `split_lines`: buffer → strings column; bytes read + values and offsets written;
/// - `count_lines`: buffer → number of records; bytes read;
/// - `file_split` / `file_count`: a file in the page cache (written to the temporary
///   directory and read once before timing) through [`crate::lines::LineReader`] →
///   a column in the backend's memory (on the GPU: the strings column on the device)
///   or a count; file bytes (+ output for the split);
/// - `file_split_gpus{N}` (on a machine with N ≥ 2 GPUs): the file split across all of
///   them ([`crate::lines::split_lines_on_workers`]), columns left on the devices.
fn lines_suite<B: BenchBackend>(h: &mut Harness<'_, B>, quick: bool) -> Result<()> {
    use crate::lines::{LineReader, ReaderOptions};
    use ragged_core::ops::{Delimiter, LineOptions};
    use ragged_core::TextOps;
    let b = h.backend;
    let filter = h.filter.clone();
    let bytes = if quick { 16 << 20 } else { 2usize << 30 };
    let label = size_label(bytes);
    // Every GPU of the machine, for `file_split_gpus{N}`.
    let mut gpus: Option<Vec<CudaBackend>> = None;
    for average in [16usize, 80, 1000] {
        for crlf in [false, true] {
            let ending = if crlf { "crlf" } else { "nl" };
            let wanted = |kind: &str| {
                let case = format!("lines/{kind}/{ending}/avg{average}/{label}");
                selected(filter.as_deref(), &case)
            };
            if ![
                "line_ends",
                "split_lines",
                "count_lines",
                "file_split",
                "file_count",
            ]
            .iter()
            .any(|k| wanted(k))
            {
                continue;
            }
            let text = random_text(bytes, average, crlf);
            let delimiter = if crlf {
                Delimiter::CrLf
            } else {
                Delimiter::Newline
            };
            let plan = LineOptions::new(delimiter).plan()?;
            let host = ScalarBuffer::from(text);
            let records = crate::CpuBackend::new().count_lines(&host, &plan)?;
            let n = bytes as u64;
            let ends_bytes = 8 * (records + 1);
            let device = b.upload(&host)?;
            let name = |kind: &str| format!("lines/{kind}/{ending}/avg{average}/{label}");
            h.case(&name("line_ends"), n, n + ends_bytes, || {
                b.line_ends(&device, &plan).map(drop)
            })?;
            let terminator = if crlf { 2 } else { 1 };
            let values = n - terminator * records;
            h.case(
                &name("split_lines"),
                n,
                n + values + 4 * (records + 1),
                || b.split_lines(&device, &plan).map(drop),
            )?;
            h.case(&name("count_lines"), n, n, || {
                b.count_lines(&device, &plan).map(drop)
            })?;
            drop(device);
            if !wanted("file_split") && !wanted("file_count") {
                continue;
            }
            let path = std::env::temp_dir().join(format!(
                "ragged-bench-lines-{}-{ending}-{average}.txt",
                std::process::id()
            ));
            std::fs::write(&path, &host[..])
                .map_err(|e| ragged_core::Error::io("write", &path, e))?;
            drop(host);
            let reader = ReaderOptions::default();
            let outcome = (|| {
                h.case(
                    &name("file_split"),
                    n,
                    n + values + 4 * (records + 1),
                    || {
                        for batch in LineReader::open(b, &path, plan, reader)? {
                            drop(batch?);
                        }
                        Ok(())
                    },
                )?;
                h.case(&name("file_count"), n, n, || {
                    LineReader::open(b, &path, plan, reader)?
                        .count_records()
                        .map(drop)
                })?;
                // With several GPUs: the file split across all of them, one byte range
                // each, the columns left on the devices.
                if gpus.is_none() {
                    // Made once, for the first file the suite writes.
                    gpus = Some(b.as_cuda().map(every_gpu).transpose()?.unwrap_or_default());
                }
                let gpus = gpus.as_deref().unwrap_or_default();
                if gpus.len() < 2 {
                    return Ok(());
                }
                let case = name(&format!("file_split_gpus{}", gpus.len()));
                h.case(&case, n, n + values + 4 * (records + 1), || {
                    let parts = crate::lines::split_lines_on_workers(gpus, &path, plan, reader)?;
                    for gpu in gpus {
                        gpu.synchronize()?;
                    }
                    drop(parts);
                    Ok(())
                })
            })();
            let _ = std::fs::remove_file(&path);
            outcome?;
        }
    }
    Ok(())
}

/// `gpu` and a backend for every other CUDA device, in device order.
fn every_gpu(gpu: &CudaBackend) -> Result<Vec<CudaBackend>> {
    let count = match crate::cuda_status() {
        crate::CudaStatus::Available { devices, .. } => devices.len(),
        crate::CudaStatus::Unavailable { .. } => 0,
    };
    let own = gpu.info().ordinal;
    let options = crate::CudaOptions::from_env()?;
    (0..count)
        .map(|d| {
            if d == own {
                Ok(gpu.clone())
            } else {
                CudaBackend::new(d, options.clone())
            }
        })
        .collect()
}

/// Random printable ASCII in lines of `average` bytes on average (uniform in
/// `0..=2 * average`, terminator included), ending in `\n` or `\r\n`.
fn random_text(bytes: usize, average: usize, crlf: bool) -> Vec<u8> {
    let mut out = random_bytes(bytes);
    for byte in out.iter_mut() {
        *byte = b' ' + *byte % 95;
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ average as u64;
    let mut at = 0usize;
    loop {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        at += (state % (2 * average as u64 + 1)) as usize;
        if at + 2 > bytes {
            break;
        }
        if crlf {
            out[at] = b'\r';
            out[at + 1] = b'\n';
            at += 2;
        } else {
            out[at] = b'\n';
            at += 1;
        }
    }
    out
}

/// The primitives cases: reduce, transform-reduce, count_if, scan, sizes → offsets,
/// select and segmented sum, on i32 and f32, at 1 K (latency) and 2^20, 2^24, 2^28.
fn primitives_suite<B: BenchBackend>(h: &mut Harness<'_, B>, quick: bool) -> Result<()> {
    use ragged_core::ops::{Comparison, OffsetWidth, Predicate, ScanKind, Transform};
    let b = h.backend;
    let sizes: &[usize] = if quick {
        &[1 << 10, 1 << 16, 1 << 20]
    } else {
        &[1 << 10, 1 << 20, 1 << 24, 1 << 28]
    };
    for &n in sizes {
        let label = size_label(n);
        let (n64, bytes4) = (n as u64, 4 * n as u64);
        // Values in [0, 2^24): sums of 2^28 of them fit easily; half are below 2^23.
        let ints: Vec<i32> = random_bytes(n * 4)
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], 0]))
            .collect();
        let floats: Vec<f32> = ints.iter().map(|&v| v as f32 / (1 << 24) as f32).collect();
        let ci = b.to_device_primitive(&PrimitiveColumn::from_vec(ints))?;
        let cf = b.to_device_primitive(&PrimitiveColumn::from_vec(floats))?;
        h.case(&format!("reduce_sum/i32/{label}"), n64, bytes4, || {
            b.reduce_sum(&ci).map(drop)
        })?;
        h.case(&format!("reduce_sum/f32/{label}"), n64, bytes4, || {
            b.reduce_sum(&cf).map(drop)
        })?;
        h.case(&format!("reduce_min/i32/{label}"), n64, bytes4, || {
            b.reduce_min(&ci).map(drop)
        })?;
        h.case(&format!("reduce_max/f32/{label}"), n64, bytes4, || {
            b.reduce_max(&cf).map(drop)
        })?;
        h.case(&format!("reduce_argmax/f32/{label}"), n64, bytes4, || {
            b.reduce_argmax(&cf).map(drop)
        })?;
        h.case(&format!("sum_squares/f32/{label}"), n64, bytes4, || {
            b.reduce_sum_f64(&cf, Transform::Square).map(drop)
        })?;
        h.case(&format!("count_if/i32/{label}"), n64, bytes4, || {
            b.count_if(&ci, Predicate::new(Comparison::Lt, 1 << 23))
                .map(drop)
        })?;
        h.case(
            &format!("scan_sum_inclusive/i32/{label}"),
            n64,
            12 * n64,
            || b.scan_sum(&ci, ScanKind::Inclusive).map(drop),
        )?;
        h.case(
            &format!("scan_sum_exclusive/f32/{label}"),
            n64,
            8 * n64,
            || b.scan_sum(&cf, ScanKind::Exclusive).map(drop),
        )?;
        h.case(
            &format!("scan_max_inclusive/f32/{label}"),
            n64,
            8 * n64,
            || b.scan_max(&cf, ScanKind::Inclusive).map(drop),
        )?;
        let sizes = b.to_device_primitive(&PrimitiveColumn::from_vec(
            (0..n as i32).map(|i| i & 7).collect(),
        ))?;
        h.case(
            &format!("sizes_to_offsets/i32/{label}"),
            n64,
            8 * n64 + 4,
            || b.sizes_to_offsets(&sizes, OffsetWidth::Auto).map(drop),
        )?;
        drop(sizes);
        // 50 % selectivity: half of the values are below 2^23.
        h.case(
            &format!("select_if/i32/{label}"),
            n64,
            bytes4 + bytes4 / 2,
            || {
                b.select_if(&ci, Predicate::new(Comparison::Lt, 1 << 23), false)
                    .map(drop)
            },
        )?;
        h.case(
            &format!("select_if/f32/{label}"),
            n64,
            bytes4 + bytes4 / 2,
            || {
                b.select_if(&cf, Predicate::new(Comparison::Lt, 0.5), false)
                    .map(drop)
            },
        )?;
        for average in [4usize, 64, 10_000] {
            if n < 16 * average {
                continue;
            }
            // Segment lengths uniform in [0, 2 * average], the last one takes the rest.
            let mut offsets = vec![0i64];
            let mut state = 0x9e37_79b9u64 + average as u64;
            while (*offsets.last().unwrap_or(&0) as usize) < n {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let next = offsets.last().copied().unwrap_or(0)
                    + (state % (2 * average as u64 + 1)) as i64;
                offsets.push(next.min(n as i64));
            }
            let segments = offsets.len() as u64 - 1;
            let device_offsets = b.upload(&ScalarBuffer::from(offsets))?;
            let bytes = bytes4 + 8 * (segments + 1) + 8 * segments;
            h.case(
                &format!("segmented_sum/avg{average}/i32/{label}"),
                n64,
                bytes,
                || b.segmented_sum(&ci, &device_offsets).map(drop),
            )?;
            let bytes_max = bytes4 + 8 * (segments + 1) + 4 * segments;
            h.case(
                &format!("segmented_max/avg{average}/f32/{label}"),
                n64,
                bytes_max,
                || b.segmented_max(&cf, &device_offsets).map(drop),
            )?;
        }
    }
    Ok(())
}

/// Pinned transfers exist only on CUDA; the CPU backend has none to measure.
fn runtime_pinned<B: BenchBackend>(h: &mut Harness<'_, B>, bytes: usize) -> Result<()> {
    let Some(cuda) = h.backend.as_cuda() else {
        return Ok(());
    };
    let mut pinned = cuda.alloc_pinned(bytes)?;
    pinned.as_mut_slice().copy_from_slice(&random_bytes(bytes));
    let cuda = cuda.clone();
    h.case("upload/pinned", bytes as u64, bytes as u64, || {
        cuda.upload_pinned(&pinned).map(drop)
    })?;
    let device = cuda.upload_pinned(&pinned)?;
    h.case("download/pinned", bytes as u64, bytes as u64, || {
        cuda.download_pinned(&device, &mut pinned)
    })?;
    Ok(())
}

fn random_bytes(n: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(&state.to_le_bytes());
    }
    out.truncate(n);
    out
}

fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(|a, b| a.total_cmp(b));
    times.get(times.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Format records as the table `ragged bench` prints.
pub fn table(records: &[BenchRecord]) -> String {
    let mut out = format!(
        "{:<36} {:>6} {:>14} {:>12} {:>10} {:>8}\n",
        "case", "dev", "elements", "time", "GB/s", "x copy"
    );
    for r in records {
        out.push_str(&format!(
            "{:<36} {:>6} {:>14} {:>12} {:>10.1} {:>8.3}\n",
            r.case,
            r.backend,
            r.elements,
            format_seconds(r.seconds),
            r.gb_per_s,
            r.x_copy
        ));
    }
    out
}

fn format_seconds(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

#[cfg(test)]
mod tests {
    use super::selected;

    #[test]
    fn a_filter_selects_cases_containing_any_of_its_parts() {
        assert!(selected(None, "strings/redact/600000"));
        assert!(selected(Some("redact/"), "strings/redact/600000"));
        assert!(!selected(Some("like/"), "strings/redact/600000"));
        assert!(selected(
            Some("like/,redact/600000"),
            "strings/redact/600000"
        ));
        assert!(!selected(
            Some("like/,redact/6000000"),
            "strings/redact/600000"
        ));
        assert!(selected(
            Some("like/,redact/6000000"),
            "strings/like/60000000"
        ));
        // A part ending in `$` must end the name.
        assert!(!selected(Some("redact/600000$"), "strings/redact/6000000"));
        assert!(selected(
            Some("like/,redact/600000$"),
            "strings/redact/600000"
        ));
        // Empty parts select nothing by themselves; a filter of none selects all.
        assert!(!selected(Some("like/,"), "strings/redact/600000"));
        assert!(selected(Some(""), "strings/redact/600000"));
        assert!(selected(Some(","), "strings/redact/600000"));
    }
}
