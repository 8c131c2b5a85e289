//! Segmented reductions on the GPU: host dispatch for
//! `kernels/primitives/segmented_reduce.cu`.
//!
//! The offsets are validated on the device first (device error word). The mapping —
//! thread, warp or block per segment — is chosen from the average segment length.
//! Results without a value (min/max/arg of a segment with no valid value) are null:
//! the kernel writes one flag per segment and `pack_flags` turns them into a bitmap.

use ragged_core::{Error, Native, OffsetSize, PrimitiveColumn, Result};

use super::{can_overflow, validity_args, value_from_bytes};
use crate::compile::{ModuleSource, BITMAP, PRIMITIVES_SEGMENTED_REDUCE};
use crate::error_word::ErrorWord;
use crate::launch::{grid_for, launch, params, resident_grid, Function, BLOCK};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::CudaBackend;

/// Lanes per segment in mode 3, medium segments (`SEGMENT_GROUP` in
/// `kernels/common/segmented.cuh`).
const SEGMENT_GROUP: u64 = 4;

/// Threads a segmented kernel of `mode` wants for `segments` segments: one per segment
/// (0), SEGMENT_GROUP (3), a warp (1) or a block (2) per segment. The grid is
/// `resident_grid` of the mode's entry point (see [`mode_kernel`]).
pub(crate) fn mode_threads(mode: u32, segments: u64) -> u64 {
    segments
        * match mode {
            0 => 1,
            3 => SEGMENT_GROUP,
            1 => 32,
            _ => u64::from(BLOCK),
        }
}

/// The entry point `<name>_m<mode>` of `module` (one per mode of the segmented engine)
/// and its grid for `threads` threads of work (usually [`mode_threads`]).
pub(crate) fn mode_kernel(
    backend: &CudaBackend,
    module: &ModuleSource,
    name: &str,
    mode: u32,
    threads: u64,
) -> Result<(Function, u32)> {
    let function = backend.function(module, &format!("{name}_m{mode}"))?;
    let grid = resident_grid(function, threads, backend.info().multiprocessors);
    Ok((function, grid))
}

/// A validated segmentation: the segment count, the mode chosen from the average
/// segment length, and the element range lo .. hi the segments cover.
struct Plan {
    segments: u64,
    mode: u32,
    lo: i64,
    hi: i64,
}

/// Validate the offsets and plan: thread per segment below an average of 8 values,
/// SEGMENT_GROUP lanes below 128, a warp below 2048, else a block. One read back (the
/// validation's error word and the first and last offsets together).
fn plan<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
) -> Result<Plan> {
    let (lo, hi) =
        crate::common::validate_offsets::validate_offsets_ends(backend, offsets, col.len())?;
    let segments = (offsets.len() - 1) as u64;
    if segments == 0 {
        return Ok(Plan {
            segments,
            mode: 0,
            lo,
            hi,
        });
    }
    let average = (hi - lo) as u64 / segments;
    let mode = if average < 8 {
        0
    } else if average < 128 {
        3
    } else if average < 2048 {
        1
    } else {
        2
    };
    Ok(Plan {
        segments,
        mode,
        lo,
        hi,
    })
}

/// Bytes of one tile of the tile sums (`TileSumShape<T>::TILE` elements of T in
/// `kernels/common/segmented_tiles.cuh`).
const TILE_SUM_BYTES: i64 = 16 * 1024;

/// Whether sums of T over `segs` take the tile sums
/// (`kernels/common/segmented_tiles.cuh`): integers of at most 32 bits, whose sums are
/// exact in 64 bits in any order, in segments of 8 to 128 elements on average (the
/// thread-per-segment mode reads shorter ones faster, the warp and block modes longer
/// ones).
pub(crate) fn takes_tile_sums<T: Native>(segs: &TileSegments) -> bool {
    segs.segments > 0
        && !T::IS_FLOAT
        && std::mem::size_of::<T>() <= 4
        && (8..128).contains(&((segs.hi - segs.lo) as u64 / segs.segments))
}

/// The segments of a tile sum: offsets (validated), optional segment validity, and the
/// element range lo .. hi they cover.
pub(crate) struct TileSegments {
    /// Device address of the segments + 1 offsets (`const O*`).
    pub(crate) offsets: u64,
    /// Segment validity bitmap (`const uint8_t*`, 0: every segment valid) and its bit
    /// offset.
    pub(crate) validity: (u64, u64),
    /// Segments.
    pub(crate) segments: u64,
    /// The first segment's first element.
    pub(crate) lo: i64,
    /// One past the last segment's last element.
    pub(crate) hi: i64,
}

/// Where the tiles of `kernels/common/segmented_tiles.cuh` lie in a child of T.
#[derive(Clone, Copy)]
pub(crate) struct TileLayout {
    /// Tile 0's first element: the 16-byte boundary at or before `lo` (it may be
    /// negative; elements outside lo .. hi are never read).
    pub(crate) base: i64,
    /// Elements per tile (`TILE_SUM_BYTES` of them: a power of two, which the kernels
    /// divide by with a shift).
    pub(crate) tile: i64,
    /// Tiles covering base .. hi.
    pub(crate) tiles: i64,
}

impl TileLayout {
    /// The tiles over `segs` of a child whose values start at device address `values`.
    pub(crate) fn new<T: Native>(values: u64, segs: &TileSegments) -> Self {
        let size = std::mem::size_of::<T>() as i64;
        let tile = TILE_SUM_BYTES / size;
        let misalign = ((values as i64 / size) + segs.lo).rem_euclid(16 / size);
        let base = segs.lo - misalign;
        let tiles = if segs.hi > segs.lo {
            (segs.hi - base + tile - 1) / tile
        } else {
            0
        };
        TileLayout { base, tile, tiles }
    }
}

/// Step 1 of a reduction by tiles (`segment_tiles` of `kernels/common/segmented_tiles.cuh`):
/// launches `function` — `segmented_tiles_<O>` or `list_<min|max>_tiles_first_<O>_<T>`,
/// each `(const O*, const uint8_t*, uint64_t, uint64_t, long long, long long, uint64_t,
/// unsigned long long*, R*, uint32_t*, unsigned long long*)` with one result R per
/// segment in `out`, when `words` is not 0 ceil(segments / 32) validity words (valid
/// and not empty), and when `set_count` is not 0 either the bits set added to that
/// zeroed counter — and returns the segment at each tile's start (tiles + 1 entries)
/// and the grid of step 2, a block per tile (`None`: no tile). `op` names the caller in
/// errors.
pub(crate) fn tile_starts(
    backend: &CudaBackend,
    function: Function,
    segs: &TileSegments,
    layout: &TileLayout,
    (out, words, set_count): (u64, u64, u64),
    op: &'static str,
) -> Result<(DeviceBuffer<u64>, Option<u32>)> {
    let TileLayout { base, tile, tiles } = *layout;
    let first = backend.alloc::<u64>(tiles as usize + 1)?;
    let first_ptr = first.device_ptr();
    let (offsets, (seg_bits, seg_bit_offset), segments) =
        (segs.offsets, segs.validity, segs.segments);
    let tiles_u64 = tiles as u64;
    let mut args = params![
        offsets,
        seg_bits,
        seg_bit_offset,
        segments,
        base,
        tile,
        tiles_u64,
        first_ptr,
        out,
        words,
        set_count
    ];
    // SAFETY: the signature above; the offsets are valid for the column; `first` holds
    // tiles + 1 entries, `out` one result per segment, `words`, when not 0,
    // ceil(segments / 32) words and `set_count`, when not 0, one counter (the caller's
    // contract).
    unsafe {
        launch(
            function,
            grid_for(segments, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    if tiles == 0 {
        return Ok((first, None));
    }
    let grid = u32::try_from(tiles).map_err(|_| Error::Device {
        op,
        message: format!("{tiles} tiles exceed one launch"),
    })?;
    Ok((first, Some(grid)))
}

/// Segmented sums by tiles of elements into `out` (one 8-byte sum per segment):
/// `segmented_tiles_<O>` finds the segment at each tile's start and zeroes the results
/// that tiles add to or skip, then `segmented_sum_tiles_<O>_<T>` sums the tiles (a
/// block each). Null segments get 0.
pub(crate) fn tile_sums<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    segs: &TileSegments,
    out: u64,
) -> Result<()> {
    let values = col.values().device_ptr();
    let layout = TileLayout::new::<T>(values, segs);
    let step1 = backend.function(
        &PRIMITIVES_SEGMENTED_REDUCE,
        &format!("segmented_tiles_{}", O::OFFSET_NAME),
    )?;
    let (first, grid) = tile_starts(backend, step1, segs, &layout, (out, 0, 0), "segmented_sum")?;
    let Some(grid) = grid else {
        return Ok(());
    };
    let (first_ptr, TileLayout { base, .. }) = (first.device_ptr(), layout);
    let (offsets, (seg_bits, seg_bit_offset)) = (segs.offsets, segs.validity);
    let step2 = backend.function(
        &PRIMITIVES_SEGMENTED_REDUCE,
        &format!("segmented_sum_tiles_{}_{}", O::OFFSET_NAME, T::NAME),
    )?;
    let (bits, bit_offset) = validity_args(col.validity());
    let (lo, hi) = (segs.lo, segs.hi);
    let mut args = params![
        values,
        bits,
        bit_offset,
        offsets,
        seg_bits,
        seg_bit_offset,
        first_ptr,
        base,
        lo,
        hi,
        out
    ];
    // SAFETY: `segmented_sum_tiles_<O>_<T>(const T*, const uint8_t*, uint64_t, const O*,
    // const uint8_t*, uint64_t, const unsigned long long*, long long, long long, long
    // long, void*)`: a block per tile of `first` (filled by step 1 on the same stream);
    // every element read lies in lo .. hi, inside the column; writes or adds one 8-byte
    // sum per segment. `first`'s stream-ordered free comes after the launch.
    unsafe { launch(step2, grid, BLOCK, 0, backend.stream(), &mut args)? };
    Ok(())
}

pub(crate) fn segmented_sum<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
) -> Result<PrimitiveColumn<T::Sum, Device>> {
    let plan = plan(backend, col, offsets)?;
    let (segments, mode) = (plan.segments, plan.mode);
    let out = backend.alloc::<T::Sum>(segments as usize)?;
    let segs = TileSegments {
        offsets: offsets.device_ptr(),
        validity: (0, 0),
        segments,
        lo: plan.lo,
        hi: plan.hi,
    };
    if takes_tile_sums::<T>(&segs) {
        tile_sums::<T, O>(backend, col, &segs, out.device_ptr())?;
    } else if segments > 0 {
        // Only sums of 64-bit integers (accumulated in 128 bits) can overflow their
        // output type; the others need no error word (null: the kernel never reports),
        // and so no read back and no wait.
        let word = if can_overflow::<T>() {
            Some(ErrorWord::new(backend)?)
        } else {
            None
        };
        let (function, grid) = mode_kernel(
            backend,
            &PRIMITIVES_SEGMENTED_REDUCE,
            &format!("segmented_sum_{}_{}", O::OFFSET_NAME, T::NAME),
            mode,
            mode_threads(mode, segments),
        )?;
        let (values, (bits, bit_offset)) =
            (col.values().device_ptr(), validity_args(col.validity()));
        let (offsets_ptr, out_ptr, word_ptr) = (
            offsets.device_ptr(),
            out.device_ptr(),
            word.as_ref().map_or(0, ErrorWord::device_ptr),
        );
        let mut args = params![
            values,
            bits,
            bit_offset,
            offsets_ptr,
            segments,
            out_ptr,
            word_ptr
        ];
        // SAFETY: `segmented_sum_<O>_<T>_m<mode>(const T*, const uint8_t*, uint64_t, const O*,
        // uint64_t, void*, uint64_t*)`: the offsets were validated against the
        // column; writes one T::Sum per segment; the error word is null only for types
        // whose sums the kernel never reports.
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
        let report = match &word {
            Some(word) => word.read(backend)?,
            None => None,
        };
        if let Some((segment, _)) = report {
            return Err(Error::Overflow {
                op: "segmented_sum",
                message: format!(
                    "the sum of segment {segment} does not fit {}",
                    <T::Sum as Native>::NAME
                ),
            });
        }
    }
    PrimitiveColumn::try_new(out, None)
}

/// Pack per-segment flags into a validity bitmap (`None` when every flag is set).
fn pack(backend: &CudaBackend, flags: &DeviceBuffer<u8>, n: u64) -> Result<Option<DeviceBitmap>> {
    let words = backend.alloc::<u32>(n.div_ceil(32) as usize)?;
    let nulls = backend.alloc::<u64>(1)?;
    backend.zero(&nulls)?;
    let function = backend.function(&BITMAP, "pack_flags")?;
    let (flags_ptr, words_ptr, nulls_ptr) =
        (flags.device_ptr(), words.device_ptr(), nulls.device_ptr());
    let mut args = params![flags_ptr, n, words_ptr, nulls_ptr];
    // SAFETY: `pack_flags(const uint8_t*, uint64_t, uint32_t*, unsigned long long*)` reads
    // n flags and writes ceil(n / 32) words and adds to one zeroed count.
    unsafe {
        launch(
            function,
            grid_for(n.div_ceil(32) * 32, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    let null_count =
        value_from_bytes::<u64>(&backend.read_bytes(&nulls, 0, 8)?).unwrap_or(0) as usize;
    Ok((null_count > 0).then(|| DeviceBitmap::new(words.into_bytes(), 0, n as usize, null_count)))
}

/// (values, positions) of each segment's minimum or maximum.
fn extremum<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
    is_max: bool,
    want_values: bool,
) -> Result<(DeviceBuffer<T>, DeviceBuffer<i64>, Option<DeviceBitmap>)> {
    let Plan { segments, mode, .. } = plan(backend, col, offsets)?;
    let n = segments as usize;
    let values_out = if want_values {
        backend.alloc::<T>(n)?
    } else {
        DeviceBuffer::empty()
    };
    let positions = if want_values {
        DeviceBuffer::empty()
    } else {
        backend.alloc::<i64>(n)?
    };
    if segments == 0 {
        return Ok((values_out, positions, None));
    }
    let flags = backend.alloc::<u8>(n)?;
    let which = if is_max { "max" } else { "min" };
    let (function, grid) = mode_kernel(
        backend,
        &PRIMITIVES_SEGMENTED_REDUCE,
        &format!("segmented_{which}_{}_{}", O::OFFSET_NAME, T::NAME),
        mode,
        mode_threads(mode, segments),
    )?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let (offsets_ptr, out_values, out_positions, flags_ptr) = (
        offsets.device_ptr(),
        values_out.device_ptr(),
        positions.device_ptr(),
        flags.device_ptr(),
    );
    let mut args = params![
        values,
        bits,
        bit_offset,
        offsets_ptr,
        segments,
        out_values,
        out_positions,
        flags_ptr
    ];
    // SAFETY: `segmented_<which>_<O>_<T>_m<mode>(const T*, const uint8_t*, uint64_t, const O*,
    // uint64_t, T*, long long*, uint8_t*)`: validated offsets; each non-null
    // output holds one entry per segment (a null pointer is skipped by the kernel).
    unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    let validity = pack(backend, &flags, segments)?;
    Ok((values_out, positions, validity))
}

pub(crate) fn segmented_extremum<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
    is_max: bool,
) -> Result<PrimitiveColumn<T, Device>> {
    let (values, _, validity) = extremum(backend, col, offsets, is_max, true)?;
    PrimitiveColumn::try_new(values, validity)
}

pub(crate) fn segmented_arg<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
    is_max: bool,
) -> Result<PrimitiveColumn<i64, Device>> {
    let (_, positions, validity) = extremum(backend, col, offsets, is_max, false)?;
    PrimitiveColumn::try_new(positions, validity)
}

pub(crate) fn segmented_count<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
) -> Result<PrimitiveColumn<i64, Device>> {
    let Plan { segments, mode, .. } = plan(backend, col, offsets)?;
    let out = backend.alloc::<i64>(segments as usize)?;
    if segments > 0 {
        let (function, grid) = mode_kernel(
            backend,
            &PRIMITIVES_SEGMENTED_REDUCE,
            &format!("segmented_count_{}", O::OFFSET_NAME),
            mode,
            mode_threads(mode, segments),
        )?;
        let (bits, bit_offset) = validity_args(col.validity());
        let (offsets_ptr, out_ptr) = (offsets.device_ptr(), out.device_ptr());
        let mut args = params![bits, bit_offset, offsets_ptr, segments, out_ptr];
        // SAFETY: `segmented_count_<O>_m<mode>(const uint8_t*, uint64_t, const O*, uint64_t,
        // long long*)`: validated offsets; one count per segment.
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    }
    PrimitiveColumn::try_new(out, None)
}
