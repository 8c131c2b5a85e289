//! `line_ends` and `count_lines` on the GPU: host dispatch for
//! `kernels/text/line_ends.cu`.
//!
//! The layout is the CPU's (`ragged-cpu/src/text/line_ends.rs`): a record starts at 0
//! (when the range starts at 0 and is not empty) and right after each match `q` with
//! `start <= q + m < end`, so the candidate positions are `[start - m, end - m)`
//! (from 0 for self-overlapping delimiters, whose matches depend on everything before).
//!
//! ```text
//! write pass (one launch)  every match q in [lo, hi) → out[lead + slot] = q + m, and the
//!                          total; the output holds an estimate of slots (rerun with the
//!                          exact count when it was too small; counted first when the
//!                          estimate does not fit in memory)
//! self-overlapping only    the pass writes every occurrence; one thread keeps those a
//!                          left-to-right scan matches (line_ends_resolve)
//! final boundary           the first match at or after the scanned ones (windows of
//!                          growing size, usually one): q + m, or the input's length
//! ```

use ragged_core::ops::LinePlan;
use ragged_core::{Error, Result};

use crate::compile::TEXT_LINE_ENDS;
use crate::error_word::ErrorWord;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::DeviceBuffer;
use crate::primitives::scan::TileState;
use crate::CudaBackend;

/// A kernel shape of `line_ends.cu`: threads per block and bytes per tile.
#[derive(Clone, Copy)]
struct Shape {
    name: &'static str,
    threads: u32,
    tile: u64,
}

/// 256 threads × 64 bytes × 2 runs: the default.
const WIDE: Shape = Shape {
    name: "wide",
    threads: 256,
    tile: 2 * 256 * 64,
};

/// 32 threads × 1 byte: for tile hints below a wide tile, so that tests put tile and
/// run boundaries at every position of small inputs (results never depend on it).
const NARROW: Shape = Shape {
    name: "narrow",
    threads: 32,
    tile: 32,
};

fn shape(plan: &LinePlan) -> Shape {
    match plan.tile_bytes() {
        Some(t) if (t as u64) < WIDE.tile => NARROW,
        _ => WIDE,
    }
}

/// The delimiter as the kernels take it (`struct Delimiter { uint8_t bytes[64]; }`).
fn delimiter_param(plan: &LinePlan) -> [u8; 64] {
    let mut d = [0u8; 64];
    let bytes = plan.delimiter();
    d[..bytes.len()].copy_from_slice(bytes);
    d
}

/// Where the records of the plan's byte range are, before any search (as the CPU's
/// `Layout`).
pub(crate) struct Layout {
    pub(crate) len: u64,
    pub(crate) m: u64,
    /// The range start, clamped to the input.
    pub(crate) start: u64,
    /// Whether position 0 is a record start inside the range.
    pub(crate) first_is_zero: bool,
    /// Matches `q` in `counted_from..interior_end` start records inside the range.
    pub(crate) counted_from: u64,
    pub(crate) interior_end: u64,
    /// Where the candidate scan starts.
    pub(crate) scan_from: u64,
}

impl Layout {
    pub(crate) fn new(len: usize, plan: &LinePlan) -> Self {
        let m = plan.delimiter().len() as u64;
        let (start, end) = plan.clamped_range(len);
        let (start, end) = (start as u64, end as u64);
        let counted_from = start.saturating_sub(m);
        Self {
            len: len as u64,
            m,
            start,
            first_is_zero: start == 0 && end > 0,
            counted_from,
            interior_end: end.saturating_sub(m),
            scan_from: if plan.self_overlapping() {
                0
            } else {
                counted_from
            },
        }
    }

    fn lead(&self) -> usize {
        usize::from(self.first_is_zero)
    }
}

/// The record boundaries on the device.
pub(crate) struct Boundaries {
    /// `records + 1` positions (`[start]` when there is no record).
    pub(crate) ends: DeviceBuffer<i64>,
    pub(crate) records: usize,
    /// Whether the last record ends with a delimiter.
    pub(crate) terminated: bool,
    /// `ends[0]` and `ends[records]`.
    pub(crate) first: u64,
    pub(crate) last: u64,
}

/// The first tile's start: `lo` rounded down so that the tiles are 16-byte aligned in
/// the address space (the kernels' vector loads).
fn origin(hay: &DeviceBuffer<u8>, lo: u64) -> i64 {
    lo as i64 - ((hay.device_ptr().wrapping_add(lo)) % 16) as i64
}

fn too_many_tiles() -> Error {
    Error::invalid_argument("line_ends", "the input needs more than 2^31 tiles")
}

/// The number of candidates in `[lo, hi)` (`lo < hi`): `line_ends_count_<shape>`.
fn count_candidates(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    plan: &LinePlan,
    lo: u64,
    hi: u64,
) -> Result<u64> {
    let shape = shape(plan);
    let origin = origin(hay, lo);
    let tiles = (hi as i64 - origin) as u64;
    let tiles = u32::try_from(tiles.div_ceil(shape.tile))
        .ok()
        .filter(|&t| t <= i32::MAX as u32)
        .ok_or_else(too_many_tiles)?;
    let total = backend.alloc::<u64>(1)?;
    backend.zero(&total)?;
    let function = backend.function(&TEXT_LINE_ENDS, &format!("line_ends_count_{}", shape.name))?;
    let (hay_ptr, len, lo, hi, d, m, total_ptr) = (
        hay.device_ptr(),
        hay.len() as u64,
        lo as i64,
        hi as i64,
        delimiter_param(plan),
        plan.delimiter().len() as u32,
        total.device_ptr(),
    );
    let mut args = params![hay_ptr, len, lo, hi, origin, d, m, total_ptr];
    // SAFETY: `line_ends_count_<shape>(const uint8_t* hay, uint64_t len, long long lo,
    // long long hi, long long origin, Delimiter d, uint32_t m, unsigned long long*
    // total)`: Delimiter is 64 bytes by value ([u8; 64]); the kernel reads only
    // positions inside [0, len) of hay and adds to the zeroed total. One block per tile
    // of `shape.tile` bytes from `origin` to `hi`.
    unsafe {
        launch(
            function,
            tiles,
            shape.threads,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    backend.read_scalar(&total)
}

/// Write the candidates of `[lo, hi)` (`lo < hi`) as `q + add` into `capacity` slots at
/// `out`; returns how many there are (possibly more than `capacity`, then only the
/// first `capacity` are written): `line_ends_write_<shape>`.
#[allow(clippy::too_many_arguments)]
fn write_candidates(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    plan: &LinePlan,
    lo: u64,
    hi: u64,
    add: i64,
    out: u64,
    capacity: u64,
) -> Result<u64> {
    let shape = shape(plan);
    let origin = origin(hay, lo);
    let span = (hi as i64 - origin) as u64;
    if span.div_ceil(shape.tile) > i32::MAX as u64 {
        return Err(too_many_tiles());
    }
    let state = TileState::new(backend, &TEXT_LINE_ENDS, "line_ends", span, shape.tile)?;
    let total = backend.alloc::<u64>(1)?;
    let function = backend.function(&TEXT_LINE_ENDS, &format!("line_ends_write_{}", shape.name))?;
    let (hay_ptr, len, lo, hi, d, m, total_ptr) = (
        hay.device_ptr(),
        hay.len() as u64,
        lo as i64,
        hi as i64,
        delimiter_param(plan),
        plan.delimiter().len() as u32,
        total.device_ptr(),
    );
    let mut args = params![
        hay_ptr,
        len,
        lo,
        hi,
        origin,
        d,
        m,
        add,
        out,
        capacity,
        state.ptr,
        state.bytes,
        total_ptr
    ];
    // SAFETY: `line_ends_write_<shape>(const uint8_t* hay, uint64_t len, long long lo,
    // long long hi, long long origin, Delimiter d, uint32_t m, long long add, long long*
    // out, unsigned long long capacity, void* state, uint64_t state_bytes, unsigned long
    // long* total)`: hay is read only inside [0, len); out has `capacity` slots (writes
    // past them are skipped); the state covers `state.tiles` tiles of `shape.tile`
    // bytes, one block each; the last tile writes the total.
    unsafe {
        launch(
            function,
            state.tiles,
            shape.threads,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    backend.read_scalar(&total)
}

/// The candidates of `[lo, hi)` written as `q + add` from slot `lead` of a new buffer
/// with one more slot after them (for the final boundary); returns the buffer and
/// their number.
fn candidates(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    plan: &LinePlan,
    (lo, hi): (u64, u64),
    add: i64,
    lead: usize,
) -> Result<(DeviceBuffer<i64>, u64)> {
    if lo >= hi {
        return Ok((backend.alloc::<i64>(lead + 1)?, 0));
    }
    let span = hi - lo;
    let m = plan.delimiter().len() as u64;
    // Non-overlapping occurrences are at least m apart; an estimate of one record per
    // 8 bytes keeps the usual case to one pass without reserving 8 bytes per byte.
    let most = if plan.self_overlapping() {
        span
    } else {
        span.div_ceil(m)
    };
    let estimate = most.min(span / 8 + 1024);
    let (out, capacity) = match backend.alloc::<i64>(lead + estimate as usize + 1) {
        Ok(out) => (out, estimate),
        Err(Error::OutOfMemory { .. }) => {
            let exact = count_candidates(backend, hay, plan, lo, hi)?;
            (backend.alloc::<i64>(lead + exact as usize + 1)?, exact)
        }
        Err(e) => return Err(e),
    };
    let at = |out: &DeviceBuffer<i64>| out.device_ptr() + 8 * lead as u64;
    let total = write_candidates(backend, hay, plan, lo, hi, add, at(&out), capacity)?;
    if total <= capacity {
        return Ok((out, total));
    }
    drop(out);
    let out = backend.alloc::<i64>(lead + total as usize + 1)?;
    let again = write_candidates(backend, hay, plan, lo, hi, add, at(&out), total)?;
    debug_assert_eq!(again, total);
    Ok((out, total))
}

/// Keep the occurrences a left-to-right scan matches, in place
/// (`line_ends_resolve`): returns the matches kept and the end of the last one.
fn resolve(
    backend: &CudaBackend,
    out: &DeviceBuffer<i64>,
    lead: usize,
    count: u64,
    counted_from: u64,
    m: u32,
) -> Result<(u64, u64)> {
    if count == 0 {
        return Ok((0, 0));
    }
    let result = backend.alloc::<u64>(2)?;
    let function = backend.function(&TEXT_LINE_ENDS, "line_ends_resolve")?;
    let (candidates, counted_from, result_ptr) = (
        out.device_ptr() + 8 * lead as u64,
        counted_from as i64,
        result.device_ptr(),
    );
    let mut args = params![candidates, count, counted_from, m, result_ptr];
    // SAFETY: `line_ends_resolve(long long* candidates, unsigned long long count, long
    // long counted_from, uint32_t m, unsigned long long* result)`: `count` candidates
    // from slot `lead` of `out` (written by the candidate pass), two result words. One
    // thread.
    unsafe { launch(function, 1, 1, 0, backend.stream(), &mut args)? };
    let words = backend.download_vec(&result)?;
    Ok((words[0], words[1]))
}

/// The first match at or after `from` (to the end of the input).
fn find_first(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    plan: &LinePlan,
    from: u64,
) -> Result<Option<u64>> {
    let len = hay.len() as u64;
    let m = plan.delimiter().len() as u64;
    if len < m {
        return Ok(None);
    }
    let limit = len - m + 1;
    let function = backend.function(&TEXT_LINE_ENDS, "line_ends_find_first")?;
    let (hay_ptr, d, m32) = (hay.device_ptr(), delimiter_param(plan), m as u32);
    let mut at = from;
    let mut window: u64 = 1 << 16;
    while at < limit {
        let to = limit.min(at.saturating_add(window));
        let word = ErrorWord::new(backend)?;
        let word_ptr = word.device_ptr();
        let mut args = params![hay_ptr, len, at, to, d, m32, word_ptr];
        // SAFETY: `line_ends_find_first(const uint8_t* hay, uint64_t len, uint64_t
        // from, uint64_t to, Delimiter d, uint32_t m, uint64_t* word)`: reads hay[q ..
        // q + m] only for q + m <= len; the word is reset to "none".
        unsafe {
            launch(
                function,
                grid_for(to - at, backend.info().multiprocessors),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
        if let Some((q, _)) = word.read(backend)? {
            return Ok(Some(q));
        }
        at = to;
        window = window.saturating_mul(4).min(1 << 32);
    }
    Ok(None)
}

/// Write one i64 at slot `index` of a device buffer.
fn put(backend: &CudaBackend, buffer: &DeviceBuffer<i64>, index: usize, value: i64) -> Result<()> {
    if index >= buffer.len() {
        return Err(Error::invalid_argument(
            "line_ends",
            "slot outside the buffer",
        ));
    }
    backend.copy_to_device(buffer.device_ptr() + 8 * index as u64, &value.to_le_bytes())
}

/// The record boundaries of the plan's range; see `TextOps::line_ends`.
pub(crate) fn record_boundaries(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    plan: &LinePlan,
) -> Result<Boundaries> {
    let layout = Layout::new(hay.len(), plan);
    let lead = layout.lead();
    let overlapping = plan.self_overlapping();
    let add = if overlapping { 0 } else { layout.m as i64 };
    let (out, total) = candidates(
        backend,
        hay,
        plan,
        (layout.scan_from, layout.interior_end),
        add,
        lead,
    )?;
    let (matches, spill) = if overlapping {
        resolve(
            backend,
            &out,
            lead,
            total,
            layout.counted_from,
            layout.m as u32,
        )?
    } else {
        // Occurrences of a delimiter that cannot overlap itself never overlap: every
        // one is a match, and none after `interior_end` overlaps a counted one.
        (total, layout.interior_end)
    };
    let records = lead + matches as usize;
    if records == 0 {
        let ends = backend.upload_slice(&[layout.start as i64])?;
        return Ok(Boundaries {
            ends,
            records: 0,
            terminated: false,
            first: layout.start,
            last: layout.start,
        });
    }
    if lead == 1 {
        put(backend, &out, 0, 0)?;
    }
    let final_match = find_first(backend, hay, plan, spill.max(layout.interior_end))?;
    let last = final_match.map_or(layout.len, |q| q + layout.m);
    put(backend, &out, records, last as i64)?;
    let first = if lead == 1 {
        0
    } else {
        let bytes = backend.read_bytes(&out, 0, 8)?;
        i64::from_le_bytes(bytes.try_into().map_err(|_| short_read())?) as u64
    };
    Ok(Boundaries {
        ends: out.slice(0, records + 1)?,
        records,
        terminated: final_match.is_some(),
        first,
        last,
    })
}

fn short_read() -> Error {
    Error::Device {
        op: "line_ends",
        message: "short read of a boundary".into(),
    }
}

/// The number of records of the plan's range; see `TextOps::count_lines`.
pub(crate) fn count_lines(
    backend: &CudaBackend,
    hay: &DeviceBuffer<u8>,
    plan: &LinePlan,
) -> Result<u64> {
    if plan.self_overlapping() {
        return Ok(record_boundaries(backend, hay, plan)?.records as u64);
    }
    let layout = Layout::new(hay.len(), plan);
    let (lo, hi) = (layout.counted_from, layout.interior_end);
    let interior = if lo < hi {
        count_candidates(backend, hay, plan, lo, hi)?
    } else {
        0
    };
    Ok(layout.lead() as u64 + interior)
}
