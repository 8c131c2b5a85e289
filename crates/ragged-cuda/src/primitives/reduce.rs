//! Whole-column reductions on the GPU: host dispatch for `kernels/primitives/reduce.cu`.
//!
//! Each reduction launches its `<op>_partial_<T>` kernel over a grid that fills the chip
//! (one partial per block) and then one block of `<op>_final` over the partials; inputs
//! of at most [`ONE_BLOCK`] values use a single block whose partial is the result, one
//! launch in all. Results are written by the kernels straight into the backend's
//! device-mapped pinned result slot: no allocation and no copy for small inputs.

use ragged_core::ops::{Predicate, Transform};
use ragged_core::{BooleanColumn, Error, Native, PrimitiveColumn, Result};

use super::{validity_args, value_from_bytes};
use crate::compile::PRIMITIVES_REDUCE;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::Device;
use crate::CudaBackend;

/// Inputs up to this many values are reduced by one block in one launch.
const ONE_BLOCK: u64 = 1 << 15;

/// Blocks for the partial phase: one for small inputs, else enough to fill the chip
/// (each thread of a full grid reads many 16-byte vectors).
fn reduce_grid(backend: &CudaBackend, n: u64) -> u32 {
    if n <= ONE_BLOCK {
        1
    } else {
        grid_for(n.div_ceil(8), backend.info().multiprocessors)
    }
}

pub(crate) fn reduce_sum<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
) -> Result<T::Sum> {
    let n = col.len() as u64;
    if n == 0 || col.null_count() == col.len() {
        return Ok(T::sum_zero());
    }
    let grid = reduce_grid(backend, n);
    let partial = backend.function(
        &PRIMITIVES_REDUCE,
        &format!("reduce_sum_partial_{}", T::NAME),
    )?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let final_kernel = format!("reduce_sum_final_{}", T::NAME);
    // Partials and the total are the sum's Wide type: at most 16 bytes.
    let bytes = reduce_to_host(backend, grid, 16, 16, &final_kernel, |partials| {
        let mut args = params![values, bits, bit_offset, n, partials];
        // SAFETY: `reduce_sum_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t,
        // Wide*)` reads n values (and their bits) and writes `grid` partials of at most
        // 16 bytes, which `partials` holds.
        unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args) }
    })?;
    let mut wide = [0u8; 16];
    wide.copy_from_slice(&bytes);
    T::sum_from_wide(wide).ok_or_else(|| Error::Overflow {
        op: "reduce_sum",
        message: format!(
            "the sum of {} values does not fit {}",
            T::NAME,
            <T::Sum as Native>::NAME
        ),
    })
}

pub(crate) fn reduce_sum_f64<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    transform: Transform,
) -> Result<f64> {
    let n = col.len() as u64;
    if n == 0 || col.null_count() == col.len() {
        return Ok(0.0);
    }
    let grid = reduce_grid(backend, n);
    let partial = backend.function(
        &PRIMITIVES_REDUCE,
        &format!("reduce_sum_f64_partial_{}", T::NAME),
    )?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let code = transform.code();
    let bytes = reduce_to_host(backend, grid, 8, 8, "reduce_sum_f64_final", |partials| {
        let mut args = params![values, bits, bit_offset, n, code, partials];
        // SAFETY: `reduce_sum_f64_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t,
        // uint32_t, double*)` reads n values and writes `grid` doubles into `partials`.
        unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args) }
    })?;
    value_from_bytes::<f64>(&bytes).ok_or_else(|| Error::Device {
        op: "reduce_sum_f64",
        message: "short read".into(),
    })
}

/// Run a reduction whose result comes back to the host: `partial(partials)` queues the
/// partial kernel, which writes `grid` partials of `width` bytes at `partials`. With one
/// block that partial is the result and is written straight into the backend's
/// device-mapped result slot (one launch, no allocation, no copy); otherwise the
/// partials go to device scratch and one block of `final_kernel(const W* partials,
/// uint64_t count, W* total)` writes the total into the slot. Returns the first `len`
/// bytes of the result.
fn reduce_to_host(
    backend: &CudaBackend,
    grid: u32,
    width: usize,
    len: usize,
    final_kernel: &str,
    partial: impl FnOnce(u64) -> Result<()>,
) -> Result<Vec<u8>> {
    if grid == 1 {
        return backend.with_result_slot(len, partial);
    }
    let finish = backend.function(&PRIMITIVES_REDUCE, final_kernel)?;
    let scratch = backend.alloc::<u8>(width * grid as usize)?;
    let partials = scratch.device_ptr();
    backend.with_result_slot(len, |total| {
        partial(partials)?;
        let count = u64::from(grid);
        let mut args = params![partials, count, total];
        // SAFETY: every `*_final` kernel of reduce.cu takes (const W*, uint64_t, W*) with
        // partials of at most `width` bytes (the sum's Wide, a double, a count, or
        // reduce_bool's pair of counts); scratch holds `grid` of them and the result
        // slot holds the total (at most RESULT_SLOT_BYTES).
        unsafe { launch(finish, 1, BLOCK, 0, backend.stream(), &mut args) }
    })
}

/// (value, row) of the minimum or maximum, `None` without a valid value.
pub(crate) fn reduce_extremum<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    is_max: bool,
) -> Result<Option<(T, usize)>> {
    let n = col.len() as u64;
    if n == 0 || col.null_count() == col.len() {
        return Ok(None);
    }
    let which = if is_max { "max" } else { "min" };
    let grid = reduce_grid(backend, n);
    let g = grid as usize;
    let partial = backend.function(
        &PRIMITIVES_REDUCE,
        &format!("reduce_{which}_partial_{}", T::NAME),
    )?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let launch_partial = |part_values: u64, part_rows: u64| -> Result<()> {
        let mut args = params![values, bits, bit_offset, n, part_values, part_rows];
        // SAFETY: `reduce_<which>_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t,
        // T*, long long*)` writes `grid` values and `grid` rows, which the two
        // destinations hold.
        unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args) }
    };
    // Result slot: the value (T fits in 16 bytes), then the row (8 bytes).
    let bytes = if grid == 1 {
        backend.with_result_slot(24, |slot| launch_partial(slot, slot + 16))?
    } else {
        let finish = backend.function(
            &PRIMITIVES_REDUCE,
            &format!("reduce_{which}_final_{}", T::NAME),
        )?;
        // Partial values (16 bytes each), then partial rows (8 each).
        let scratch = backend.alloc::<u8>(24 * g)?;
        let part_values = scratch.device_ptr();
        let part_rows = part_values + 16 * g as u64;
        backend.with_result_slot(24, |slot| {
            launch_partial(part_values, part_rows)?;
            let (count, out_value, out_row) = (u64::from(grid), slot, slot + 16);
            let mut args = params![part_values, part_rows, count, out_value, out_row];
            // SAFETY: `reduce_<which>_final_<T>(const T*, const long long*, uint64_t, T*,
            // long long*)` reads the partials and writes one value and one row into
            // the slot.
            unsafe { launch(finish, 1, BLOCK, 0, backend.stream(), &mut args) }
        })?
    };
    let value = value_from_bytes::<T>(&bytes);
    let row = value_from_bytes::<i64>(&bytes[16..]);
    match (value, row) {
        (Some(v), Some(r)) if r >= 0 => Ok(Some((v, r as usize))),
        (Some(_), Some(_)) => Ok(None),
        _ => Err(Error::Device {
            op: "reduce_extremum",
            message: "short read".into(),
        }),
    }
}

pub(crate) fn count_if<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    predicate: Predicate<T>,
) -> Result<usize> {
    let n = col.len() as u64;
    if n == 0 || col.null_count() == col.len() {
        return Ok(0);
    }
    let grid = reduce_grid(backend, n);
    let partial = backend.function(&PRIMITIVES_REDUCE, &format!("count_if_partial_{}", T::NAME))?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let (cmp, value) = (predicate.comparison.code(), predicate.value);
    let bytes = reduce_to_host(backend, grid, 8, 8, "count_final", |partials| {
        let mut args = params![values, bits, bit_offset, n, cmp, value, partials];
        // SAFETY: `count_if_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t,
        // uint32_t, T, unsigned long long*)`: `value` is a T passed by value; writes
        // `grid` counts into `partials`.
        unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args) }
    })?;
    let count = value_from_bytes::<u64>(&bytes).unwrap_or(0);
    Ok(count as usize)
}

/// (valid rows, valid rows that are true) of a boolean column.
pub(crate) fn reduce_bool(
    backend: &CudaBackend,
    col: &BooleanColumn<Device>,
) -> Result<(u64, u64)> {
    let n = col.len() as u64;
    if n == 0 || col.null_count() == col.len() {
        return Ok((0, 0));
    }
    let grid = reduce_grid(backend, n);
    let partial = backend.function(&PRIMITIVES_REDUCE, "reduce_bool_partial")?;
    let (bits, bits_offset) = (
        col.values().bits().device_ptr(),
        col.values().bit_offset() as u64,
    );
    let (valid_bits, valid_offset) = validity_args(col.validity());
    // Two counts (16 bytes) per block.
    let bytes = reduce_to_host(backend, grid, 16, 16, "reduce_bool_final", |partials| {
        let mut args = params![bits, bits_offset, valid_bits, valid_offset, n, partials];
        // SAFETY: `reduce_bool_partial(const uint8_t*, uint64_t, const uint8_t*, uint64_t,
        // uint64_t, unsigned long long*)` reads n bits of each bitmap, writes 2 * grid
        // counts into `partials`.
        unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args) }
    })?;
    let valid = value_from_bytes::<u64>(&bytes).unwrap_or(0);
    let set = value_from_bytes::<u64>(&bytes[8..]).unwrap_or(0);
    Ok((valid, set))
}
