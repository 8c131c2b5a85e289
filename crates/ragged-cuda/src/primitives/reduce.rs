//! Whole-column reductions on the GPU: host dispatch for `kernels/primitives/reduce.cu`.
//!
//! Each reduction launches its `<op>_partial_<T>` kernel over a grid that fills the chip
//! (one partial per block) and then one block of `<op>_final` over the partials; inputs
//! of at most [`ONE_BLOCK`] values use a single block whose partial is the result, one
//! launch in all. Results come back through the pinned scratch buffer.

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
    // 16 bytes per partial, plus 16 for the total.
    let scratch = backend.alloc::<u8>(16 * (grid as usize + 1))?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let partials = scratch.device_ptr();
    let mut args = params![values, bits, bit_offset, n, partials];
    // SAFETY: `reduce_sum_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t, Wide*)`
    // reads n values (and their bits) and writes `grid` partials of at most 16 bytes.
    unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args)? };
    // Partials are at most 16 bytes each; the total goes right after them.
    let at = finish_partials(
        backend,
        &format!("reduce_sum_final_{}", T::NAME),
        partials,
        grid,
        16,
    )?;
    let bytes = backend.read_bytes(&scratch, at, 16)?;
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
    let scratch = backend.alloc::<f64>(grid as usize + 1)?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let (partials, code) = (scratch.device_ptr(), transform.code());
    let mut args = params![values, bits, bit_offset, n, code, partials];
    // SAFETY: `reduce_sum_f64_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t,
    // uint32_t, double*)` reads n values and writes `grid` doubles.
    unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args)? };
    let at = finish_partials(backend, "reduce_sum_f64_final", partials, grid, 8)?;
    value_from_bytes::<f64>(&backend.read_bytes(&scratch, at, 8)?).ok_or_else(|| Error::Device {
        op: "reduce_sum_f64",
        message: "short read".into(),
    })
}

/// Launch a one-block final over `grid` partials of `width` bytes at `partials`,
/// writing the result right after them; returns the byte offset of the result.
fn finish_partials(
    backend: &CudaBackend,
    kernel: &str,
    partials: u64,
    grid: u32,
    width: usize,
) -> Result<usize> {
    if grid == 1 {
        return Ok(0);
    }
    let finish = backend.function(&PRIMITIVES_REDUCE, kernel)?;
    let (count, total) = (u64::from(grid), partials + (width * grid as usize) as u64);
    let mut args = params![partials, count, total];
    // SAFETY: every `*_final` kernel of reduce.cu takes (const W*, uint64_t, W*) with
    // partials of at most `width` bytes (the sum's Wide, a double, a count, or
    // reduce_bool's pair of counts); the scratch buffer holds grid + 1 slots of
    // `width` bytes, so the result fits right after the partials.
    unsafe { launch(finish, 1, BLOCK, 0, backend.stream(), &mut args)? };
    Ok(width * grid as usize)
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
    // Layout: partial values (16 bytes each), partial rows (8 each), final value (16), final row (8).
    let scratch = backend.alloc::<u8>(24 * g + 24)?;
    let base = scratch.device_ptr();
    let (part_values, part_rows) = (base, base + 16 * g as u64);
    let partial = backend.function(
        &PRIMITIVES_REDUCE,
        &format!("reduce_{which}_partial_{}", T::NAME),
    )?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let mut args = params![values, bits, bit_offset, n, part_values, part_rows];
    // SAFETY: `reduce_<which>_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t, T*,
    // long long*)` writes `grid` values (T fits in 16 bytes) and `grid` rows.
    unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args)? };
    let (value_at, row_at) = if grid > 1 {
        let finish = backend.function(
            &PRIMITIVES_REDUCE,
            &format!("reduce_{which}_final_{}", T::NAME),
        )?;
        let (count, out_value, out_row) = (
            u64::from(grid),
            base + 24 * g as u64,
            base + 24 * g as u64 + 16,
        );
        let mut args = params![part_values, part_rows, count, out_value, out_row];
        // SAFETY: `reduce_<which>_final_<T>(const T*, const long long*, uint64_t, T*,
        // long long*)` reads the partials and writes one value and one row.
        unsafe { launch(finish, 1, BLOCK, 0, backend.stream(), &mut args)? };
        (24 * g, 24 * g + 16)
    } else {
        (0, 16)
    };
    let bytes = backend.read_bytes(&scratch, value_at, row_at + 8 - value_at)?;
    let value = value_from_bytes::<T>(&bytes);
    let row = value_from_bytes::<i64>(&bytes[row_at - value_at..]);
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
    let scratch = backend.alloc::<u64>(grid as usize + 1)?;
    let (values, (bits, bit_offset)) = (col.values().device_ptr(), validity_args(col.validity()));
    let (cmp, value, partials) = (
        predicate.comparison.code(),
        predicate.value,
        scratch.device_ptr(),
    );
    let mut args = params![values, bits, bit_offset, n, cmp, value, partials];
    // SAFETY: `count_if_partial_<T>(const T*, const uint8_t*, uint64_t, uint64_t, uint32_t,
    // T, unsigned long long*)`: `value` is a T passed by value; writes `grid` counts.
    unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args)? };
    let at = finish_partials(backend, "count_final", partials, grid, 8)?;
    let count = value_from_bytes::<u64>(&backend.read_bytes(&scratch, at, 8)?).unwrap_or(0);
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
    let scratch = backend.alloc::<u64>(2 * grid as usize + 2)?;
    let (bits, bits_offset) = (
        col.values().bits().device_ptr(),
        col.values().bit_offset() as u64,
    );
    let (valid_bits, valid_offset) = validity_args(col.validity());
    let partials = scratch.device_ptr();
    let mut args = params![bits, bits_offset, valid_bits, valid_offset, n, partials];
    // SAFETY: `reduce_bool_partial(const uint8_t*, uint64_t, const uint8_t*, uint64_t,
    // uint64_t, unsigned long long*)` reads n bits of each bitmap, writes 2 * grid counts.
    unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args)? };
    // Two counts (16 bytes) per block.
    let at = finish_partials(backend, "reduce_bool_final", partials, grid, 16)?;
    let bytes = backend.read_bytes(&scratch, at, 16)?;
    let valid = value_from_bytes::<u64>(&bytes).unwrap_or(0);
    let set = value_from_bytes::<u64>(&bytes[8..]).unwrap_or(0);
    Ok((valid, set))
}
