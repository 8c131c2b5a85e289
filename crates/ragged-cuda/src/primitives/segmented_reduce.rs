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

/// Validate the offsets and pick (segments, mode): thread per segment below an average
/// of 8 values, SEGMENT_GROUP lanes below 128, a warp below 2048, else a block. One
/// read back (the validation's error word and the first and last offsets together).
fn plan<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
) -> Result<(u64, u32)> {
    let (first, last) =
        crate::common::validate_offsets::validate_offsets_ends(backend, offsets, col.len())?;
    let segments = (offsets.len() - 1) as u64;
    if segments == 0 {
        return Ok((0, 0));
    }
    let average = (last - first) as u64 / segments;
    Ok(if average < 8 {
        (segments, 0)
    } else if average < 128 {
        (segments, 3)
    } else if average < 2048 {
        (segments, 1)
    } else {
        (segments, 2)
    })
}

pub(crate) fn segmented_sum<T: Native, O: OffsetSize>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    offsets: &DeviceBuffer<O>,
) -> Result<PrimitiveColumn<T::Sum, Device>> {
    let (segments, mode) = plan(backend, col, offsets)?;
    let out = backend.alloc::<T::Sum>(segments as usize)?;
    if segments > 0 {
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
    let (segments, mode) = plan(backend, col, offsets)?;
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
    let (segments, mode) = plan(backend, col, offsets)?;
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
