//! Stream compaction on the GPU: host dispatch for `kernels/primitives/select.cu`.
//!
//! Single pass: the output buffers are allocated for every row (the count is known
//! only at the end), the kernel writes the selected values in order and the count,
//! and the result views the first `count` values.

use ragged_core::ops::{Predicate, Selection};
use ragged_core::{BooleanColumn, Error, Native, PrimitiveColumn, Result};

use super::{validity_args, value_from_bytes};
use crate::compile::PRIMITIVES_SELECT;
use crate::launch::{launch, params};
use crate::memory::{Device, DeviceBuffer};
use crate::CudaBackend;

use super::scan::TileState;

/// Threads per block of the select kernels (SELECT_THREADS of kernels/primitives/select.cu).
const SELECT_THREADS: u32 = 384;

/// Values per tile (select.cu: SELECT_THREADS × select_items, 17 values per thread, 8
/// for 8-byte values).
fn select_tile<T>() -> u64 {
    u64::from(SELECT_THREADS) * if std::mem::size_of::<T>() >= 8 { 8 } else { 17 }
}

/// The kernel of `op` for values of type `name`: the `_indices` variant also writes the
/// rows (when the rows pointer is not null).
fn entry_point(op: &str, rows: u64, name: &str) -> String {
    if rows == 0 {
        format!("{op}_{name}")
    } else {
        format!("{op}_indices_{name}")
    }
}

/// Buffers and launch shared by both selects; `launch_kernel` gets (out, rows, state,
/// state bytes, count) pointers and the tile count.
fn select<T: Native>(
    backend: &CudaBackend,
    n: usize,
    with_indices: bool,
    launch_kernel: impl FnOnce(u64, u64, u64, u64, u64, u32) -> Result<()>,
) -> Result<Selection<T, Device>> {
    if n == 0 {
        let indices = with_indices.then(DeviceBuffer::empty);
        return Ok(Selection {
            values: PrimitiveColumn::try_new(DeviceBuffer::empty(), None)?,
            indices,
        });
    }
    let state = TileState::new(
        backend,
        &PRIMITIVES_SELECT,
        "flags",
        n as u64,
        select_tile::<T>(),
    )?;
    let out = backend.alloc::<T>(n)?;
    let rows = if with_indices {
        Some(backend.alloc::<u64>(n)?)
    } else {
        None
    };
    let count = backend.alloc::<u64>(1)?;
    let rows_ptr = rows.as_ref().map_or(0, |r| r.device_ptr());
    launch_kernel(
        out.device_ptr(),
        rows_ptr,
        state.ptr,
        state.bytes,
        count.device_ptr(),
        state.tiles,
    )?;
    let selected =
        value_from_bytes::<u64>(&backend.read_bytes(&count, 0, 8)?).unwrap_or(0) as usize;
    let values = out.slice(0, selected)?;
    let indices = rows.map(|r| r.slice(0, selected)).transpose()?;
    Ok(Selection {
        values: PrimitiveColumn::try_new(values, None)?,
        indices,
    })
}

pub(crate) fn select_if<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    predicate: Predicate<T>,
    with_indices: bool,
) -> Result<Selection<T, Device>> {
    let n = col.len();
    select(
        backend,
        n,
        with_indices,
        |out, rows, state, state_bytes, count, tiles| {
            let function =
                backend.function(&PRIMITIVES_SELECT, &entry_point("select_if", rows, T::NAME))?;
            let (values, (bits, bit_offset), len) = (
                col.values().device_ptr(),
                validity_args(col.validity()),
                n as u64,
            );
            let (cmp, value) = (predicate.comparison.code(), predicate.value);
            let mut args = params![
                values,
                bits,
                bit_offset,
                len,
                cmp,
                value,
                out,
                rows,
                state,
                state_bytes,
                count
            ];
            // SAFETY: `select_if_<T>(const T*, const uint8_t*, uint64_t, uint64_t, uint32_t, T,
            // T*, uint64_t*, void*, uint64_t, unsigned long long*)`: out and rows hold n
            // entries (rows is null for the variant without indices), the state covers `tiles` tiles.
            unsafe {
                launch(
                    function,
                    tiles,
                    SELECT_THREADS,
                    0,
                    backend.stream(),
                    &mut args,
                )
            }
        },
    )
}

pub(crate) fn select_mask<T: Native>(
    backend: &CudaBackend,
    col: &PrimitiveColumn<T, Device>,
    mask: &BooleanColumn<Device>,
    with_indices: bool,
) -> Result<Selection<T, Device>> {
    let n = col.len();
    if mask.len() != n {
        return Err(Error::LengthMismatch {
            op: "select_mask",
            what: "mask",
            expected: n,
            actual: mask.len(),
        });
    }
    select(
        backend,
        n,
        with_indices,
        |out, rows, state, state_bytes, count, tiles| {
            let function = backend.function(
                &PRIMITIVES_SELECT,
                &entry_point("select_mask", rows, T::NAME),
            )?;
            let (values, (bits, bit_offset), len) = (
                col.values().device_ptr(),
                validity_args(col.validity()),
                n as u64,
            );
            let (mask_bits, mask_offset) = (
                mask.values().bits().device_ptr(),
                mask.values().bit_offset() as u64,
            );
            let (mask_valid, mask_valid_offset) = validity_args(mask.validity());
            let mut args = params![
                values,
                bits,
                bit_offset,
                len,
                mask_bits,
                mask_offset,
                mask_valid,
                mask_valid_offset,
                out,
                rows,
                state,
                state_bytes,
                count
            ];
            // SAFETY: `select_mask_<T>(const T*, const uint8_t*, uint64_t, uint64_t, const
            // uint8_t*, uint64_t, const uint8_t*, uint64_t, T*, uint64_t*, void*, uint64_t,
            // unsigned long long*)`: the mask covers n rows (checked above).
            unsafe {
                launch(
                    function,
                    tiles,
                    SELECT_THREADS,
                    0,
                    backend.stream(),
                    &mut args,
                )
            }
        },
    )
}
