//! Per-list reductions on the GPU: host dispatch for `kernels/lists/reduce.cu`.
//!
//! The list offsets are valid for the child by construction (no validation pass). One
//! small launch (`list_plan`) samples 256 list lengths; from it each call takes a
//! mapping of the segmented engine (`common/segmented.cuh`): a thread reduces each list
//! when the sampled median length is below 8 (eight loads in flight), four lanes below
//! 128, a warp below 2 048, else a block (the last three read the child as aligned
//! 16-byte vectors); lists far longer than the mode serves go to the long path
//! (`LongWork`), split over the grid.
//!
//! Some reductions take tiles of child elements instead (`common/segmented_tiles.cuh`),
//! whatever the lengths' spread: `list_sum` of integers of at most 32 bits in lists of
//! 8 to 128 elements on average (prefix differences; longer lists keep the modes: sum
//! over lists of 10 000, 0.906 by the modes against 0.816 by tiles, PERFORMANCE v0.7),
//! and `list_min` / `list_max` of 4- and 8-byte children without nulls in lists of 8 or
//! more elements on average (running extremes restarted at each list start; they beat
//! the modes at 10 000 elements too, PERFORMANCE v0.25).
//!
//! Float `list_min` / `list_max` reduce the value alone (fmin / fmax, or keys ordered
//! like the numbers); a last pass (`list_extreme_fix`) gives each list whose extreme is
//! a zero or NaN its first valid element equal to it, the CPU's answer bit for bit.
//!
//! Null lists reduce to the identity (their elements are never read). Results that
//! always exist (sum, prod, counts, any, all) take the list validity; the others (min,
//! max, arg forms, mean) get a validity bit per list (the list has a valid element),
//! set by the kernels themselves (no flag bytes, no packing pass).

use std::ffi::c_void;

use ragged_core::{
    BooleanColumn, Error, ListColumn, Native, OffsetSize, PrimitiveColumn, Result, ValidityBitmap,
};

use super::gather::count_unset;
use crate::common::bits::{bitmap, pack_flags};
use crate::compile::{lists_reduce_module, LISTS_REDUCE};
use crate::error_word::ErrorWord;
use crate::launch::{grid_for, launch, params, resident_grid, BLOCK};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::primitives::segmented_reduce::{
    mode_kernel, mode_threads, takes_tile_sums, tile_starts, tile_sums, TileLayout, TileSegments,
};
use crate::primitives::{validity_args, value_from_bytes};
use crate::CudaBackend;

/// How a reduction over the lists is launched.
struct Plan {
    offsets: u64,
    list_bits: u64,
    list_bit_offset: u64,
    n: u64,
    mode: u32,
    /// Lists longer than this go to the long path (see [`LongScratch`]).
    long_threshold: u64,
    /// The child range the lists cover: offsets[0] .. offsets[n].
    lo: i64,
    hi: i64,
}

/// Elements per chunk of the long path (`LONG_CHUNK` of `kernels/common/segmented.cuh`).
const LONG_CHUNK: u64 = 8192;

/// Lists sampled by `list_plan` (its block size); its result holds three counts of
/// sampled lists shorter than 8, 128 and 2048.
const PLAN_SAMPLES: i64 = BLOCK as i64;

/// The scratch of the long path (`LongWork` of `kernels/common/segmented.cuh`): a
/// counter of reserved slots (and one spare word), `capacity` slots of 2 words and
/// `capacity` partial states of 32 bytes. Sized for three chunks per `LONG_CHUNK`
/// elements of the child; a list whose chunks do not fit is reduced by the main pass,
/// so the size only bounds how much of the work the long path can take. `list_plan`
/// zeroes its first two words; list_min / list_max by tiles, which never run the long
/// path, use them as their two counters ([`tile_extremum`]).
struct LongScratch {
    buffer: DeviceBuffer<u64>,
    capacity: u64,
}

impl LongScratch {
    fn new(backend: &CudaBackend, child_len: usize) -> Result<Self> {
        let capacity = (child_len as u64 / LONG_CHUNK) * 3 + 64;
        // Words: 2 counters, 2 per slot, 4 per partial.
        let words = 2 + 2 * capacity + 4 * capacity;
        let buffer = backend.alloc::<u64>(words as usize)?;
        Ok(LongScratch { buffer, capacity })
    }
}

/// Sample the list lengths (`list_plan`, one launch whose result lands in the backend's
/// mapped slot; it also zeroes the long path's counters when `counters` is not 0) and
/// pick the mapping: thread per list when the median length is below 8, four lanes
/// below 128, a warp below 2048, else a block (kernels/common/segmented.cuh).
/// Lists much longer than what the mode serves well (256, 1024, 8192 and 65 536
/// elements: at most 32 rounds of loads per thread in modes 0 and 3, 64 in modes 1 and
/// 2) go to the long path, which splits them over the whole grid.
fn plan<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
    counters: u64,
) -> Result<Plan> {
    let n = col.len();
    let lists = n as u64;
    let function = backend.function(&LISTS_REDUCE, &format!("list_plan_{}", O::OFFSET_NAME))?;
    let offsets = col.offsets().device_ptr();
    let bytes = backend.with_result_slot(5 * 8, |slot| {
        let mut args = params![offsets, lists, slot, counters];
        // SAFETY: `list_plan_<O>(const O*, uint64_t, long long*, unsigned long long*)`
        // reads sampled offsets and, when n > 0, the two ends of the n + 1; writes 5
        // values into the 64-byte mapped slot and
        // zeroes two counters behind `counters` when it is not null (the caller's
        // scratch starts with them).
        unsafe { launch(function, 1, BLOCK, 0, backend.stream(), &mut args) }
    })?;
    let word = |k: usize| {
        bytes
            .get(8 * k..8 * k + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, i64::from_le_bytes)
    };
    let half = PLAN_SAMPLES / 2;
    let (mode, long_threshold) = if word(0) > half {
        (0, 256)
    } else if word(1) > half {
        (3, 1024)
    } else if word(2) > half {
        (1, 8192)
    } else {
        (2, 65_536)
    };
    let (list_bits, list_bit_offset) = validity_args(col.validity());
    Ok(Plan {
        offsets,
        list_bits,
        list_bit_offset,
        n: lists,
        mode,
        long_threshold,
        lo: word(3),
        hi: word(4),
    })
}

/// Launch `list_<name>_<O>_<T>` over the values of `child`: the main pass in the mode
/// `plan` chose, then the long path's chunk and finishing passes, which find nothing
/// to do when no list was long.
///
/// # Safety
/// `extra` points to the kernel's parameters after the list arguments and before the
/// long path's four, each of its exact type and alive for the call; every output behind
/// them holds `col.len()` entries.
unsafe fn launch_values<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    name: &str,
    col: &ListColumn<O, Device>,
    extra: &[*mut c_void],
) -> Result<()> {
    let (scratch, plan) = prepare(backend, col)?;
    // SAFETY: forwarded from this function's contract.
    unsafe { launch_planned::<O, T>(backend, name, col, extra, &plan, scratch) }
}

impl Plan {
    /// The lists as the segments of a reduction by tiles.
    fn tile_segments(&self) -> TileSegments {
        TileSegments {
            offsets: self.offsets,
            validity: (self.list_bits, self.list_bit_offset),
            segments: self.n,
            lo: self.lo,
            hi: self.hi,
        }
    }
}

/// The long path's scratch and the plan, whose launch zeroed the scratch's counters.
fn prepare<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<(LongScratch, Plan)> {
    let scratch = LongScratch::new(backend, col.child().len())?;
    let plan = plan(backend, col, scratch.buffer.device_ptr())?;
    Ok((scratch, plan))
}

/// [`launch_values`] with the scratch and plan [`prepare`] made.
///
/// # Safety
/// As [`launch_values`].
unsafe fn launch_planned<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    name: &str,
    col: &ListColumn<O, Device>,
    extra: &[*mut c_void],
    plan: &Plan,
    scratch: LongScratch,
) -> Result<()> {
    let child = child_of::<O, T>(col)?;
    let module = lists_reduce_module(O::OFFSET_NAME, T::NAME);
    let (values, (bits, bit_offset)) =
        (child.values().device_ptr(), validity_args(child.validity()));
    // The main pass in the plan's mode, then the long path's two passes.
    let (main, main_grid) = mode_kernel(
        backend,
        module,
        &format!("list_{name}_{}_{}", O::OFFSET_NAME, T::NAME),
        plan.mode,
        mode_threads(plan.mode, plan.n),
    )?;
    let long = backend.function(
        module,
        &format!("list_{name}_{}_{}_long", O::OFFSET_NAME, T::NAME),
    )?;
    let (capacity, scratch_ptr) = (scratch.capacity, scratch.buffer.device_ptr());
    let fill = resident_grid(long, u64::MAX, backend.info().multiprocessors);
    for phase in 0u32..3 {
        let mut args = params![
            values,
            bits,
            bit_offset,
            plan.offsets,
            plan.list_bits,
            plan.list_bit_offset,
            plan.n
        ]
        .to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&params![plan.long_threshold, capacity, phase, scratch_ptr]);
        let (function, grid) = if phase == 0 {
            (main, main_grid)
        } else {
            (long, fill)
        };
        // SAFETY: the first seven parameters are `(const T*, const uint8_t*, uint64_t,
        // const O*, const uint8_t*, uint64_t, uint64_t)` of every
        // `list_<name>_<O>_<T>_m<mode>` and `_long`: the child's values and validity,
        // the lists' n + 1 offsets (valid for the child) and validity; then the caller's `extra`; the
        // last four are `(uint64_t, uint64_t, uint32_t, unsigned long long*)`: the
        // threshold, the capacity and the phase of the long path and its scratch,
        // sized for `capacity` by LongScratch and whose counters `list_plan` zeroed
        // (stream-ordered before these launches). The scratch is dropped after the
        // launches: its stream-ordered free comes after them.
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    }
    drop(scratch);
    Ok(())
}

fn child_of<O: OffsetSize, T: Native>(
    col: &ListColumn<O, Device>,
) -> Result<&PrimitiveColumn<T, Device>> {
    col.child().as_primitive::<T>("list child")
}

fn overflow_error<T: Native>(op: &'static str, what: &str, row: u64) -> Error {
    Error::Overflow {
        op,
        message: format!(
            "the {what} of list {row} does not fit {}",
            <T::Sum as Native>::NAME
        ),
    }
}

pub(crate) fn list_sum<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<T::Sum, Device>> {
    child_of::<O, T>(col)?;
    let out = backend.alloc::<T::Sum>(col.len())?;
    if !col.is_empty() {
        // Only 64-bit integer sums (accumulated in 128 bits) can overflow.
        let word = if !T::IS_FLOAT && std::mem::size_of::<T>() == 8 {
            Some(ErrorWord::new(backend)?)
        } else {
            None
        };
        let (out_ptr, word_ptr) = (
            out.device_ptr(),
            word.as_ref().map_or(0, ErrorWord::device_ptr),
        );
        let (scratch, plan) = prepare(backend, col)?;
        // Integers of at most 32 bits in lists of 8 to 128 elements on average: the
        // tile sums of the segmented reductions, whatever the lengths' spread.
        let segs = plan.tile_segments();
        if takes_tile_sums::<T>(&segs) {
            tile_sums::<T, O>(backend, child_of::<O, T>(col)?, &segs, out_ptr)?;
            return PrimitiveColumn::try_new(out, col.validity().cloned());
        }
        // SAFETY: `list_sum_<O>_<T>(..., void* out, uint64_t* error_word)` writes n sums of
        // T::Sum (allocated above); the word is null when the kernel cannot report.
        unsafe {
            launch_planned::<O, T>(
                backend,
                "sum",
                col,
                &params![out_ptr, word_ptr],
                &plan,
                scratch,
            )?
        };
        if let Some((row, _)) = word.map(|w| w.read(backend)).transpose()?.flatten() {
            return Err(overflow_error::<T>("list_sum", "sum", row));
        }
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

pub(crate) fn list_prod<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<T::Sum, Device>> {
    child_of::<O, T>(col)?;
    let out = backend.alloc::<T::Sum>(col.len())?;
    if !col.is_empty() {
        let word = if T::IS_FLOAT {
            None
        } else {
            Some(ErrorWord::new(backend)?)
        };
        let (out_ptr, word_ptr) = (
            out.device_ptr(),
            word.as_ref().map_or(0, ErrorWord::device_ptr),
        );
        // SAFETY: `list_prod_<O>_<T>(..., void* out, uint64_t* error_word)` writes n
        // products of T::Sum (8-byte integers, or T for floats; allocated above); float
        // products never report, so their word may be null.
        unsafe { launch_values::<O, T>(backend, "prod", col, &params![out_ptr, word_ptr])? };
        if let Some((row, _)) = word.map(|w| w.read(backend)).transpose()?.flatten() {
            return Err(overflow_error::<T>("list_prod", "product", row));
        }
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

/// Values or positions of each list's extreme, with the validity "the list has a
/// valid element".
fn extremum<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
    is_max: bool,
    want_values: bool,
) -> Result<(DeviceBuffer<T>, DeviceBuffer<i64>, Option<DeviceBitmap>)> {
    child_of::<O, T>(col)?;
    let n = col.len();
    let values = if want_values {
        backend.alloc::<T>(n)?
    } else {
        DeviceBuffer::empty()
    };
    let positions = if want_values {
        DeviceBuffer::empty()
    } else {
        backend.alloc::<i64>(n)?
    };
    if n == 0 {
        return Ok((values, positions, None));
    }
    let (scratch, plan) = prepare(backend, col)?;
    let segs = plan.tile_segments();
    let child = child_of::<O, T>(col)?;
    let name = match (want_values, is_max) {
        (true, false) => "min",
        (true, true) => "max",
        (false, false) => "argmin",
        (false, true) => "argmax",
    };
    if want_values && takes_extreme_tiles::<T>(child, &segs) {
        let values_ptr = values.device_ptr();
        let validity = tile_extremum::<O, T>(backend, child, &segs, name, values_ptr, &scratch)?;
        return Ok((values, positions, validity));
    }
    // The modes set bits of zeroed validity words.
    let words = validity_words(backend, n)?;
    // Float list_min / list_max: one word the reductions set when a result is a zero
    // or NaN, so that list_extreme_fix reads nothing else when none is.
    let fix_flag = if want_values && T::IS_FLOAT {
        validity_words(backend, 1)?
    } else {
        DeviceBuffer::empty()
    };
    let (values_ptr, positions_ptr, words_ptr, fix_ptr) = (
        values.device_ptr(),
        positions.device_ptr(),
        words.device_ptr(),
        fix_flag.device_ptr(),
    );
    // SAFETY: `list_<min|max|argmin|argmax>_<O>_<T>(..., T*, long long*, uint32_t*,
    // uint32_t*)` (the min / max entries write values, the arg entries positions):
    // each non-null output holds n entries (a null pointer is skipped by the kernel);
    // the kernel sets bits of the ceil(n / 32) zeroed validity words and, when not
    // null, the one flag word.
    unsafe {
        launch_planned::<O, T>(
            backend,
            name,
            col,
            &params![values_ptr, positions_ptr, words_ptr, fix_ptr],
            &plan,
            scratch,
        )?
    };
    if want_values && T::IS_FLOAT {
        fix_float_extremes::<O, T>(backend, child, &segs, values_ptr, words_ptr, fix_ptr)?;
    }
    Ok((values, positions, finish_validity(backend, words, n)?))
}

/// list_min / list_max (`name`) of a child without nulls by tiles ([`extreme_tiles`])
/// into `out` (n values of T), and the results' validity. The long path does not run:
/// the two counters at the start of its `scratch`, which `list_plan` zeroed, count the
/// validity bits the first step sets and hold the float fix flag, and one read of both
/// gives the null count and tells whether `list_extreme_fix` has work (so it is
/// launched only then).
fn tile_extremum<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    child: &PrimitiveColumn<T, Device>,
    segs: &TileSegments,
    name: &str,
    out: u64,
    scratch: &LongScratch,
) -> Result<Option<DeviceBitmap>> {
    let n = segs.segments as usize;
    // Every validity word is written by the first step.
    let words = backend.alloc::<u32>(n.div_ceil(32))?;
    let counters = scratch.buffer.device_ptr();
    let (set_count, fix_flag) = (counters, counters + 8);
    extreme_tiles::<O, T>(
        backend,
        child,
        segs,
        name,
        (out, words.device_ptr()),
        (set_count, fix_flag),
    )?;
    let bytes = backend.read_bytes(&scratch.buffer, 0, 16)?;
    let (set, flagged) = (
        value_from_bytes::<u64>(&bytes).unwrap_or(0),
        value_from_bytes::<u64>(bytes.get(8..).unwrap_or(&[])).unwrap_or(0),
    );
    if T::IS_FLOAT && flagged != 0 {
        fix_float_extremes::<O, T>(backend, child, segs, out, words.device_ptr(), fix_flag)?;
    }
    let nulls = n.saturating_sub(set as usize);
    Ok((nulls > 0).then(|| DeviceBitmap::new(words.into_bytes(), 0, n, nulls)))
}

/// Whether list_min / list_max of T take the extreme tiles
/// (`kernels/common/segmented_tiles.cuh`): 4- and 8-byte elements without nulls, in
/// lists of 8 or more elements on average (the tiles beat the modes there, whatever the
/// spread of the lengths: PERFORMANCE v0.22 for lists of 64, v0.25 for 10 000 and
/// skewed lengths).
fn takes_extreme_tiles<T: Native>(child: &PrimitiveColumn<T, Device>, segs: &TileSegments) -> bool {
    let size = std::mem::size_of::<T>();
    segs.segments > 0
        && (size == 4 || size == 8)
        && child.validity().is_none()
        && (segs.hi - segs.lo) as u64 / segs.segments >= 8
}

/// list_min / list_max (`name`) by tiles of elements into `out` (n values of T) and
/// the validity words (every one written): `list_<name>_tiles_first_<O>_<T>` finds the
/// list at each tile's start, writes the validity words, adds their set bits to the
/// zeroed counter `set_count` and sets the results the tiles combine into or skip,
/// `list_<name>_tiles_<O>_<T>` reduces the tiles (a block each: values for lists
/// inside a tile, keys of T for lists spanning tiles) and, for floats,
/// `list_extreme_tiles_spanning_<O>_<T>` turns the spanning lists' keys back into
/// numbers. Float results that are a zero or NaN set the word at `fix_flag`.
fn extreme_tiles<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    child: &PrimitiveColumn<T, Device>,
    segs: &TileSegments,
    name: &str,
    (out, words): (u64, u64),
    (set_count, fix_flag): (u64, u64),
) -> Result<()> {
    let module = lists_reduce_module(O::OFFSET_NAME, T::NAME);
    let suffix = format!("{}_{}", O::OFFSET_NAME, T::NAME);
    let values = child.values().device_ptr();
    let layout = TileLayout::new::<T>(values, segs);
    let step1 = backend.function(module, &format!("list_{name}_tiles_first_{suffix}"))?;
    let op = if name == "max" {
        "list_max"
    } else {
        "list_min"
    };
    // `list_<min|max>_tiles_first_<O>_<T>` writes one key (the size of T) per list and
    // the ceil(n / 32) validity words, and adds to the one counter.
    let (first, grid) = tile_starts(backend, step1, segs, &layout, (out, words, set_count), op)?;
    let Some(grid) = grid else {
        return Ok(());
    };
    let (offsets, (list_bits, list_bit_offset)) = (segs.offsets, segs.validity);
    let (first_ptr, TileLayout { base, tile, tiles }) = (first.device_ptr(), layout);
    let step2 = backend.function(module, &format!("list_{name}_tiles_{suffix}"))?;
    let (lo, hi) = (segs.lo, segs.hi);
    let mut args = params![
        values,
        offsets,
        list_bits,
        list_bit_offset,
        first_ptr,
        base,
        lo,
        hi,
        out,
        fix_flag
    ];
    // SAFETY: `list_<min|max>_tiles_<O>_<T>(const T*, const O*, const uint8_t*,
    // uint64_t, const unsigned long long*, long long, long long, long long, void*,
    // uint32_t*)`: a block per tile of `first` (filled by step 1 on the same stream);
    // every element read lies in lo .. hi, inside the child; writes or combines one
    // result per list; floats may set the one flag word. `first`'s stream-ordered free
    // comes after the launches.
    unsafe { launch(step2, grid, BLOCK, 0, backend.stream(), &mut args)? };
    if T::IS_FLOAT {
        let step3 = backend.function(module, &format!("list_extreme_tiles_spanning_{suffix}"))?;
        let tiles_u64 = tiles as u64;
        let mut args = params![
            offsets,
            list_bits,
            list_bit_offset,
            base,
            tile,
            tiles_u64,
            first_ptr,
            out,
            fix_flag
        ];
        // SAFETY: `list_extreme_tiles_spanning_<O>_<T>(const O*, const uint8_t*,
        // uint64_t, long long, long long, uint64_t, const unsigned long long*, void*,
        // uint32_t*)`: a thread per tile reads `first` (tiles + 1 entries) and the
        // offsets of the lists it names, rewrites those lists' results in `out` (n
        // entries) and may set the one flag word.
        unsafe {
            launch(
                step3,
                grid_for(tiles_u64, backend.info().multiprocessors),
                BLOCK,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    drop(first);
    Ok(())
}

/// `list_extreme_fix_<O>_<T>` over the n float results in `out` whose bits are set in
/// `words`: a zero or NaN extreme becomes the list's first valid element equal to it
/// (the sign of the first zero; the first NaN), as the CPU answers. The kernel returns
/// at once unless the reduction set the word at `fix_flag` (some result is a zero or
/// NaN).
fn fix_float_extremes<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    child: &PrimitiveColumn<T, Device>,
    segs: &TileSegments,
    out: u64,
    words: u64,
    fix_flag: u64,
) -> Result<()> {
    let function = backend.function(
        lists_reduce_module(O::OFFSET_NAME, T::NAME),
        &format!("list_extreme_fix_{}_{}", O::OFFSET_NAME, T::NAME),
    )?;
    let (values, (bits, bit_offset)) =
        (child.values().device_ptr(), validity_args(child.validity()));
    let (offsets, lists) = (segs.offsets, segs.segments);
    let mut args = params![values, bits, bit_offset, offsets, lists, out, words, fix_flag];
    // SAFETY: `list_extreme_fix_<O>_<T>(const T*, const uint8_t*, uint64_t, const O*,
    // uint64_t, T*, const uint32_t*, const uint32_t*)`: the child's values and
    // validity, the n + 1 list offsets (valid for the child); reads the flag word, and
    // when set rewrites some of the n results in `out` and reads the ceil(n / 32)
    // validity words.
    unsafe {
        launch(
            function,
            grid_for(lists, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )?
    };
    Ok(())
}

/// ceil(n / 32) zeroed validity words, for kernels that set the bits of valid results.
fn validity_words(backend: &CudaBackend, n: usize) -> Result<DeviceBuffer<u32>> {
    let words = backend.alloc::<u32>(n.div_ceil(32))?;
    backend.zero(&words)?;
    Ok(words)
}

/// The validity of n results from the words a kernel set bits in (`None` when every
/// bit is set): the unset bits are counted by one small pass over the words.
fn finish_validity(
    backend: &CudaBackend,
    words: DeviceBuffer<u32>,
    n: usize,
) -> Result<Option<DeviceBitmap>> {
    let bytes = words.into_bytes();
    let nulls = count_unset(backend, &bytes, 0, n)?;
    Ok((nulls > 0).then(|| DeviceBitmap::new(bytes, 0, n, nulls)))
}

pub(crate) fn list_extremum<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
    is_max: bool,
) -> Result<PrimitiveColumn<T, Device>> {
    let (values, _, validity) = extremum::<O, T>(backend, col, is_max, true)?;
    PrimitiveColumn::try_new(values, validity)
}

pub(crate) fn list_arg<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
    is_max: bool,
) -> Result<PrimitiveColumn<i64, Device>> {
    let (_, positions, validity) = extremum::<O, T>(backend, col, is_max, false)?;
    PrimitiveColumn::try_new(positions, validity)
}

pub(crate) fn list_count_nonzero<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<i64, Device>> {
    child_of::<O, T>(col)?;
    let out = backend.alloc::<i64>(col.len())?;
    if !col.is_empty() {
        let out_ptr = out.device_ptr();
        // SAFETY: `list_count_nonzero_<O>_<T>(..., long long*)` writes n counts.
        unsafe { launch_values::<O, T>(backend, "count_nonzero", col, &params![out_ptr])? };
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

pub(crate) fn list_mean<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<f64, Device>> {
    child_of::<O, T>(col)?;
    let n = col.len();
    let out = backend.alloc::<f64>(n)?;
    if n == 0 {
        return PrimitiveColumn::try_new(out, None);
    }
    let words = validity_words(backend, n)?;
    let (out_ptr, words_ptr) = (out.device_ptr(), words.device_ptr());
    // SAFETY: `list_mean_<O>_<T>(..., double*, uint32_t*)` writes n means and sets bits
    // of the ceil(n / 32) zeroed validity words.
    unsafe { launch_values::<O, T>(backend, "mean", col, &params![out_ptr, words_ptr])? };
    PrimitiveColumn::try_new(out, finish_validity(backend, words, n)?)
}

pub(crate) fn list_count<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<i64, Device>> {
    let child_validity = col.child().validity().filter(|v| v.null_count() > 0);
    let out = backend.alloc::<i64>(col.len())?;
    if !col.is_empty() {
        let plan = plan(backend, col, 0)?;
        let (bits, bit_offset) = validity_args(child_validity);
        let out_ptr = out.device_ptr();
        // Without nulls the count is the length: one thread per list, whatever the mode.
        let threads = if child_validity.is_none() {
            plan.n
        } else {
            mode_threads(plan.mode, plan.n)
        };
        let (function, grid) = mode_kernel(
            backend,
            &LISTS_REDUCE,
            &format!("list_count_{}", O::OFFSET_NAME),
            plan.mode,
            threads,
        )?;
        let mut args = params![
            bits,
            bit_offset,
            plan.offsets,
            plan.list_bits,
            plan.list_bit_offset,
            plan.n,
            out_ptr
        ];
        // SAFETY: `list_count_<O>_m<mode>(const uint8_t*, uint64_t, const O*, const uint8_t*,
        // uint64_t, uint64_t, long long*)`: reads the child's validity bits
        // inside the lists (or none), n + 1 offsets and n list validity bits, writes n
        // counts (allocated above).
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

pub(crate) fn list_any_all<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
    want_all: bool,
) -> Result<BooleanColumn<Device>> {
    let child = col.child().as_boolean("list child")?;
    let n = col.len();
    let flags = backend.alloc::<u8>(n)?;
    if n > 0 {
        let plan = plan(backend, col, 0)?;
        let (bits, bits_offset) = validity_args(Some(child.values()));
        let (validity, bit_offset) = validity_args(child.validity());
        let (all, flags_ptr) = (u32::from(want_all), flags.device_ptr());
        let (function, grid) = mode_kernel(
            backend,
            &LISTS_REDUCE,
            &format!("list_any_all_{}", O::OFFSET_NAME),
            plan.mode,
            mode_threads(plan.mode, plan.n),
        )?;
        let mut args = params![
            bits,
            bits_offset,
            validity,
            bit_offset,
            plan.offsets,
            plan.list_bits,
            plan.list_bit_offset,
            plan.n,
            all,
            flags_ptr
        ];
        // SAFETY: `list_any_all_<O>_m<mode>(const uint8_t*, uint64_t, const uint8_t*,
        // uint64_t, const O*, const uint8_t*, uint64_t, uint64_t, uint32_t, uint8_t*)`:
        // reads value and validity bits inside the lists, n + 1 offsets and n list
        // validity bits, writes n flags (allocated above).
        unsafe { launch(function, grid, BLOCK, 0, backend.stream(), &mut args)? };
    }
    let (words, falses) = pack_flags(backend, &flags, n as u64)?;
    BooleanColumn::try_new(bitmap(words, n, falses), col.validity().cloned())
}
