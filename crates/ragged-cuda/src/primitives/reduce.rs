//! `reduce_sum` on the GPU: host dispatch for `kernels/primitives/reduce.cu`.
//!
//! Launches `reduce_sum_partial_<T>` over a grid that fills the chip (one 128-bit or
//! floating partial per block), then `reduce_sum_final_<T>` with one block, and reads
//! the total back. Integer totals arrive as 128-bit values and are checked against the
//! accumulator type here, so overflow is an error exactly where the CPU reports one.

use ragged_core::{Error, Native, PrimitiveColumn, Result, ValidityBitmap};

use crate::compile::PRIMITIVES_REDUCE;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::Device;
use crate::CudaBackend;

pub(crate) fn reduce_sum<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
) -> Result<T::Sum> {
    let n = col.len() as u64;
    if n == 0 || col.validity().is_some_and(|v| v.null_count() == v.len()) {
        return Ok(T::sum_zero());
    }
    let partial = backend.function(
        &PRIMITIVES_REDUCE,
        &format!("reduce_sum_partial_{}", T::NAME),
    )?;
    let finish = backend.function(&PRIMITIVES_REDUCE, &format!("reduce_sum_final_{}", T::NAME))?;
    let grid = grid_for(n.div_ceil(4), backend.info().multiprocessors);
    let partials = backend.alloc::<[u8; 16]>(grid as usize)?;
    let total = backend.alloc::<[u8; 16]>(1)?;
    let (values, (bits, bit_offset)) = (
        col.values().device_ptr(),
        col.validity().map_or((0u64, 0u64), |v| {
            (v.bits().device_ptr(), v.bit_offset() as u64)
        }),
    );
    let (partials_ptr, total_ptr, count) =
        (partials.device_ptr(), total.device_ptr(), u64::from(grid));
    let mut args = params![values, bits, bit_offset, n, partials_ptr];
    // SAFETY: parameters match `reduce_sum_partial_<T>(const T*, const uint8_t*,
    // uint64_t, uint64_t, Wide*)`; it reads n values and their bits and writes `grid`
    // 16-byte partials (Wide is at most 16 bytes).
    unsafe { launch(partial, grid, BLOCK, 0, backend.stream(), &mut args)? };
    let mut args = params![partials_ptr, count, total_ptr];
    // SAFETY: `reduce_sum_final_<T>(const Wide*, uint64_t, Wide*)` reads `grid` partials
    // and writes one total.
    unsafe { launch(finish, 1, BLOCK, 0, backend.stream(), &mut args)? };
    let wide = backend.read_scalar(&total)?;
    T::sum_from_wide(wide).ok_or_else(|| Error::Overflow {
        op: "reduce_sum",
        message: format!(
            "the sum of {} values does not fit {}",
            T::NAME,
            <T::Sum as Native>::NAME
        ),
    })
}
