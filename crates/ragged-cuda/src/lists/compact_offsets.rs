//! `compact_offsets` on the GPU: host dispatch for `kernels/lists/compact_offsets.cu`.
//!
//! One single-pass decoupled look-back scan of `stops[i] - starts[i]` (plus the
//! initialization of its tile state when there is more than one tile) computes the
//! offsets and the total and checks every list; the lowest bad list comes back through
//! the device error word, and its start and stop are read back to build the same error
//! [`ragged_core::column::starts_stops_error`] gives on the host. The same scan, with
//! a validity bitmap (null lists empty), gives the offsets of `to_compact`, `flatten`
//! and `local_index`; `counts_to_offsets` is the scan of `unflatten`.

use ragged_core::column::starts_stops_error;
use ragged_core::ops::{OffsetWidth, Offsets};
use ragged_core::{Error, OffsetSize, Result};

use super::{read_offset, zero_offsets};
use crate::compile::LISTS_COMPACT_OFFSETS;
use crate::error_word::ErrorWord;
use crate::launch::{launch, params};
use crate::memory::{DeviceBitmap, DeviceBuffer};
use crate::primitives::scan::{TileState, SCAN_THREADS};
use crate::primitives::{validity_args, value_from_bytes};
use crate::CudaBackend;

/// Overflow reports come offset by 2^54 (compact_offsets.cu: bad lists win).
const OVERFLOW_BASE: u64 = 1 << 54;

/// Lists per tile of `compact_offsets_<O>_<W>`: SCAN_THREADS × CompactItems<O>.
fn compact_tile<O>() -> u64 {
    u64::from(SCAN_THREADS)
        * if std::mem::size_of::<O>() == 4 {
            12
        } else {
            10
        }
}

/// Counts per tile of `counts_to_offsets_<O>`: SCAN_THREADS × CountItems<O>.
fn counts_tile<O>() -> u64 {
    u64::from(SCAN_THREADS)
        * if std::mem::size_of::<O>() == 4 {
            24
        } else {
            12
        }
}

/// The outcome of one scan: the offsets and the total, or the first offset index above
/// `i32::MAX` (i32 output only; the caller may retry in i64).
pub(crate) enum Pass<W> {
    /// `n + 1` offsets and their total.
    Done(DeviceBuffer<W>, i64),
    /// The lowest offset index that does not fit i32.
    Overflow(u64),
}

/// One `compact_offsets_<O>_<W>` scan over `n = starts.len() > 0` lists (null lists in
/// `validity` count 0). Bad lists are returned as their structured error.
pub(crate) fn compact_pass<O: OffsetSize, W: OffsetSize>(
    backend: &CudaBackend,
    starts: &DeviceBuffer<O>,
    stops: &DeviceBuffer<O>,
    validity: Option<&DeviceBitmap>,
    child_len: usize,
) -> Result<Pass<W>> {
    let n = starts.len() as u64;
    let state = TileState::new(
        backend,
        &LISTS_COMPACT_OFFSETS,
        "acc_i64",
        n,
        compact_tile::<O>(),
    )?;
    let word = ErrorWord::new(backend)?;
    let total = backend.alloc::<i64>(1)?;
    let out = backend.alloc::<W>(starts.len() + 1)?;
    let function = backend.function(
        &LISTS_COMPACT_OFFSETS,
        &format!("compact_offsets_{}_{}", O::OFFSET_NAME, W::OFFSET_NAME),
    )?;
    let (bits, bit_offset) = validity_args(validity);
    let (starts_ptr, stops_ptr, out_ptr, word_ptr, total_ptr) = (
        starts.device_ptr(),
        stops.device_ptr(),
        out.device_ptr(),
        word.device_ptr(),
        total.device_ptr(),
    );
    let len = i64::try_from(child_len).unwrap_or(i64::MAX);
    let mut args = params![
        starts_ptr,
        stops_ptr,
        bits,
        bit_offset,
        n,
        len,
        out_ptr,
        state.ptr,
        state.bytes,
        word_ptr,
        total_ptr
    ];
    // SAFETY: `compact_offsets_<O>_<W>(const O*, const O*, const uint8_t*, uint64_t,
    // uint64_t, long long, W*, void*, uint64_t, uint64_t*, long long*)`: one block of
    // SCAN_THREADS per tile reads n starts and n stops (both buffers hold n; the caller
    // checked the lengths), the validity bits of n rows when given, writes n + 1 offsets
    // (allocated above) and one total, and uses the initialized state of `tiles` tiles.
    unsafe {
        launch(
            function,
            state.tiles,
            SCAN_THREADS,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    if let Some((index, code)) = word.read(backend)? {
        if code == 3 {
            return Ok(Pass::Overflow(index.saturating_sub(OVERFLOW_BASE)));
        }
        let row = index as usize;
        let start = read_offset(backend, starts, row)?;
        let stop = read_offset(backend, stops, row)?;
        return Err(
            starts_stops_error(row, start, stop, child_len).unwrap_or_else(|| Error::Device {
                op: "compact_offsets",
                message: format!("list {row} ({start}..{stop}) reported invalid but is not"),
            }),
        );
    }
    let total = value_from_bytes::<i64>(&backend.read_bytes(&total, 0, 8)?).unwrap_or(0);
    Ok(Pass::Done(out, total))
}

fn overflow(op: &'static str, index: u64) -> Error {
    Error::Overflow {
        op,
        message: format!("the offset at index {index} exceeds i32::MAX; ask for i64 offsets"),
    }
}

pub(crate) fn compact_offsets<O: OffsetSize>(
    backend: &CudaBackend,
    starts: &DeviceBuffer<O>,
    stops: &DeviceBuffer<O>,
    child_len: usize,
    width: OffsetWidth,
) -> Result<(Offsets<crate::Device>, i64)> {
    if starts.len() != stops.len() {
        return Err(Error::LengthMismatch {
            op: "compact_offsets",
            what: "stops",
            expected: starts.len(),
            actual: stops.len(),
        });
    }
    if starts.is_empty() {
        return Ok(match width {
            OffsetWidth::I64 => (Offsets::I64(zero_offsets::<i64>(backend)?), 0),
            _ => (Offsets::I32(zero_offsets::<i32>(backend)?), 0),
        });
    }
    let wide = || -> Result<(Offsets<crate::Device>, i64)> {
        match compact_pass::<O, i64>(backend, starts, stops, None, child_len)? {
            Pass::Done(offsets, total) => Ok((Offsets::I64(offsets), total)),
            Pass::Overflow(index) => Err(overflow("compact_offsets", index)),
        }
    };
    match width {
        OffsetWidth::I64 => wide(),
        OffsetWidth::I32 | OffsetWidth::Auto => {
            match compact_pass::<O, i32>(backend, starts, stops, None, child_len)? {
                Pass::Done(offsets, total) => Ok((Offsets::I32(offsets), total)),
                Pass::Overflow(_) if width == OffsetWidth::Auto => wide(),
                Pass::Overflow(index) => Err(overflow("compact_offsets", index)),
            }
        }
    }
}

/// The compact offsets, in the lists' own offset type `O`, of `n = starts.len()` lists
/// (null lists in `validity` empty) and their total; zero lists give `[0]`.
///
/// # Errors
/// [`Error::Overflow`] (naming `op`) when the total does not fit `O`; the list errors of
/// [`compact_pass`] for inputs that break the list invariants.
pub(crate) fn compact_for<O: OffsetSize>(
    backend: &CudaBackend,
    starts: &DeviceBuffer<O>,
    stops: &DeviceBuffer<O>,
    validity: Option<&DeviceBitmap>,
    child_len: usize,
    op: &'static str,
) -> Result<(DeviceBuffer<O>, i64)> {
    if starts.is_empty() {
        return Ok((zero_offsets::<O>(backend)?, 0));
    }
    match compact_pass::<O, O>(backend, starts, stops, validity, child_len)? {
        Pass::Done(offsets, total) => Ok((offsets, total)),
        Pass::Overflow(index) => Err(Error::Overflow {
            op,
            message: format!(
                "the offset at index {index} of the result exceeds {}::MAX",
                O::OFFSET_NAME
            ),
        }),
    }
}

/// The result of [`counts_to_offsets`].
pub(crate) enum CountsPass<O> {
    /// `n + 1` offsets, their total, and the lowest offset index above `i32::MAX` if
    /// any (i32 only).
    Done(DeviceBuffer<O>, i64, Option<u64>),
    /// The lowest valid row with a negative count.
    Negative(u64),
}

/// Offsets from `n > 0` counts (null counts 0): `counts_to_offsets_<O>`.
pub(crate) fn counts_to_offsets<O: OffsetSize>(
    backend: &CudaBackend,
    counts: &DeviceBuffer<O>,
    validity: Option<&DeviceBitmap>,
) -> Result<CountsPass<O>> {
    let n = counts.len() as u64;
    let state = TileState::new(
        backend,
        &LISTS_COMPACT_OFFSETS,
        "acc_i64",
        n,
        counts_tile::<O>(),
    )?;
    let word = ErrorWord::new(backend)?;
    let total = backend.alloc::<i64>(1)?;
    let out = backend.alloc::<O>(counts.len() + 1)?;
    let function = backend.function(
        &LISTS_COMPACT_OFFSETS,
        &format!("counts_to_offsets_{}", O::OFFSET_NAME),
    )?;
    let (bits, bit_offset) = validity_args(validity);
    let (counts_ptr, out_ptr, word_ptr, total_ptr) = (
        counts.device_ptr(),
        out.device_ptr(),
        word.device_ptr(),
        total.device_ptr(),
    );
    let mut args = params![
        counts_ptr,
        bits,
        bit_offset,
        n,
        out_ptr,
        state.ptr,
        state.bytes,
        word_ptr,
        total_ptr
    ];
    // SAFETY: `counts_to_offsets_<O>(const O*, const uint8_t*, uint64_t, uint64_t, O*,
    // void*, uint64_t, uint64_t*, long long*)`: one block of SCAN_THREADS per tile reads
    // n counts (and n validity bits when given), writes n + 1 offsets and one total, and
    // uses the initialized state of `tiles` tiles.
    unsafe {
        launch(
            function,
            state.tiles,
            SCAN_THREADS,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let reported = word.read(backend)?;
    if let Some((row, 1)) = reported {
        return Ok(CountsPass::Negative(row));
    }
    let overflow = reported.map(|(index, _)| index.saturating_sub(OVERFLOW_BASE));
    let total = value_from_bytes::<i64>(&backend.read_bytes(&total, 0, 8)?).unwrap_or(0);
    Ok(CountsPass::Done(out, total, overflow))
}
