//! Per-list reductions on the GPU: host dispatch for `kernels/lists/reduce.cu`.
//!
//! The list offsets are valid for the child by construction (no validation pass). The
//! mapping — thread, eight lanes, warp or block per list — is chosen from the average
//! list length, as for segmented reductions. Null lists are never read. Results that
//! always exist (sum, prod, counts, any, all) take the list validity; the others (min,
//! max, arg forms, mean) get a per-list flag (the list has a valid element) packed
//! into their validity.

use std::ffi::c_void;

use ragged_core::{
    BooleanColumn, Error, ListColumn, Native, OffsetSize, PrimitiveColumn, Result, ValidityBitmap,
};

use super::{bitmap, pack_flags, read_offset, validity_or_none};
use crate::compile::LISTS_REDUCE;
use crate::error_word::ErrorWord;
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::{Device, DeviceBitmap, DeviceBuffer};
use crate::primitives::validity_args;
use crate::CudaBackend;

/// How a reduction over the lists is launched.
struct Plan {
    offsets: u64,
    list_bits: u64,
    list_bit_offset: u64,
    n: u64,
    mode: u32,
    grid: u32,
}

/// Pick the mode from the average list length: thread per list below 8 elements, eight
/// lanes below 128, a warp below 2048, else a block (kernels/common/segmented.cuh).
fn plan<O: OffsetSize>(backend: &CudaBackend, col: &ListColumn<O, Device>) -> Result<Plan> {
    let n = col.len();
    let first = read_offset(backend, col.offsets(), 0)?;
    let last = read_offset(backend, col.offsets(), n)?;
    let lists = n as u64;
    let average = (last - first).max(0) as u64 / lists.max(1);
    let sms = backend.info().multiprocessors;
    let (mode, grid) = if average < 8 {
        (0, grid_for(lists, sms))
    } else if average < 128 {
        (3, grid_for(lists * 8, sms))
    } else if average < 2048 {
        (1, grid_for(lists * 32, sms))
    } else {
        (2, lists.min(u64::from(sms.max(1) as u32) * 8).max(1) as u32)
    };
    let (list_bits, list_bit_offset) = validity_args(col.validity());
    Ok(Plan {
        offsets: col.offsets().device_ptr(),
        list_bits,
        list_bit_offset,
        n: lists,
        mode,
        grid,
    })
}

/// Launch `list_<name>_<O>_<T>` over the values of `child`.
///
/// # Safety
/// `extra` points to the kernel's parameters after `mode`, each of its exact type and
/// alive for the call; every output behind them holds `plan.n` entries.
unsafe fn launch_values<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    name: &str,
    plan: &Plan,
    child: &PrimitiveColumn<T, Device>,
    extra: &[*mut c_void],
) -> Result<()> {
    let function = backend.function(
        &LISTS_REDUCE,
        &format!("list_{name}_{}_{}", O::OFFSET_NAME, T::NAME),
    )?;
    let (values, (bits, bit_offset)) =
        (child.values().device_ptr(), validity_args(child.validity()));
    let mut args = params![
        values,
        bits,
        bit_offset,
        plan.offsets,
        plan.list_bits,
        plan.list_bit_offset,
        plan.n,
        plan.mode
    ]
    .to_vec();
    args.extend_from_slice(extra);
    // SAFETY: the first eight parameters are `(const T*, const uint8_t*, uint64_t, const
    // O*, const uint8_t*, uint64_t, uint64_t, uint32_t)` of every `list_<name>_<O>_<T>`:
    // the child's values and validity, the lists' n + 1 offsets (valid for the child)
    // and validity; the rest is the caller's contract.
    unsafe { launch(function, plan.grid, BLOCK, 0, backend.stream(), &mut args) }
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
    let child = child_of::<O, T>(col)?;
    let out = backend.alloc::<T::Sum>(col.len())?;
    if !col.is_empty() {
        let plan = plan(backend, col)?;
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
        // SAFETY: `list_sum_<O>_<T>(..., void* out, uint64_t* error_word)` writes n sums of
        // T::Sum (allocated above); the word is null when the kernel cannot report.
        unsafe {
            launch_values::<O, T>(backend, "sum", &plan, child, &params![out_ptr, word_ptr])?
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
    let child = child_of::<O, T>(col)?;
    let out = backend.alloc::<T::Sum>(col.len())?;
    if !col.is_empty() {
        let plan = plan(backend, col)?;
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
        unsafe {
            launch_values::<O, T>(backend, "prod", &plan, child, &params![out_ptr, word_ptr])?
        };
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
    let child = child_of::<O, T>(col)?;
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
    let plan = plan(backend, col)?;
    let flags = backend.alloc::<u8>(n)?;
    let (values_ptr, positions_ptr, flags_ptr) = (
        values.device_ptr(),
        positions.device_ptr(),
        flags.device_ptr(),
    );
    let name = if is_max { "max" } else { "min" };
    // SAFETY: `list_<min|max>_<O>_<T>(..., T*, long long*, uint8_t*)`: each non-null
    // output holds n entries (a null pointer is skipped by the kernel); n flags.
    unsafe {
        launch_values::<O, T>(
            backend,
            name,
            &plan,
            child,
            &params![values_ptr, positions_ptr, flags_ptr],
        )?
    };
    let (words, nulls) = pack_flags(backend, &flags, n as u64)?;
    Ok((values, positions, validity_or_none(words, n, nulls)))
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
    let child = child_of::<O, T>(col)?;
    let out = backend.alloc::<i64>(col.len())?;
    if !col.is_empty() {
        let plan = plan(backend, col)?;
        let out_ptr = out.device_ptr();
        // SAFETY: `list_count_nonzero_<O>_<T>(..., long long*)` writes n counts.
        unsafe {
            launch_values::<O, T>(backend, "count_nonzero", &plan, child, &params![out_ptr])?
        };
    }
    PrimitiveColumn::try_new(out, col.validity().cloned())
}

pub(crate) fn list_mean<O: OffsetSize, T: Native>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<f64, Device>> {
    let child = child_of::<O, T>(col)?;
    let n = col.len();
    let out = backend.alloc::<f64>(n)?;
    if n == 0 {
        return PrimitiveColumn::try_new(out, None);
    }
    let plan = plan(backend, col)?;
    let flags = backend.alloc::<u8>(n)?;
    let (out_ptr, flags_ptr) = (out.device_ptr(), flags.device_ptr());
    // SAFETY: `list_mean_<O>_<T>(..., double*, uint8_t*)` writes n means and n flags.
    unsafe { launch_values::<O, T>(backend, "mean", &plan, child, &params![out_ptr, flags_ptr])? };
    let (words, nulls) = pack_flags(backend, &flags, n as u64)?;
    PrimitiveColumn::try_new(out, validity_or_none(words, n, nulls))
}

pub(crate) fn list_count<O: OffsetSize>(
    backend: &CudaBackend,
    col: &ListColumn<O, Device>,
) -> Result<PrimitiveColumn<i64, Device>> {
    let child_validity = col.child().validity().filter(|v| v.null_count() > 0);
    let out = backend.alloc::<i64>(col.len())?;
    if !col.is_empty() {
        let mut plan = plan(backend, col)?;
        if child_validity.is_none() {
            // Without nulls the count is the length: one thread per list.
            plan.grid = grid_for(plan.n, backend.info().multiprocessors);
        }
        let function =
            backend.function(&LISTS_REDUCE, &format!("list_count_{}", O::OFFSET_NAME))?;
        let (bits, bit_offset) = validity_args(child_validity);
        let out_ptr = out.device_ptr();
        let mut args = params![
            bits,
            bit_offset,
            plan.offsets,
            plan.list_bits,
            plan.list_bit_offset,
            plan.n,
            plan.mode,
            out_ptr
        ];
        // SAFETY: `list_count_<O>(const uint8_t*, uint64_t, const O*, const uint8_t*,
        // uint64_t, uint64_t, uint32_t, long long*)`: reads the child's validity bits
        // inside the lists (or none), n + 1 offsets and n list validity bits, writes n
        // counts (allocated above).
        unsafe { launch(function, plan.grid, BLOCK, 0, backend.stream(), &mut args)? };
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
        let plan = plan(backend, col)?;
        let function =
            backend.function(&LISTS_REDUCE, &format!("list_any_all_{}", O::OFFSET_NAME))?;
        let (bits, bits_offset) = validity_args(Some(child.values()));
        let (validity, bit_offset) = validity_args(child.validity());
        let (all, flags_ptr) = (u32::from(want_all), flags.device_ptr());
        let mut args = params![
            bits,
            bits_offset,
            validity,
            bit_offset,
            plan.offsets,
            plan.list_bits,
            plan.list_bit_offset,
            plan.n,
            plan.mode,
            all,
            flags_ptr
        ];
        // SAFETY: `list_any_all_<O>(const uint8_t*, uint64_t, const uint8_t*, uint64_t,
        // const O*, const uint8_t*, uint64_t, uint64_t, uint32_t, uint32_t, uint8_t*)`:
        // reads value and validity bits inside the lists, n + 1 offsets and n list
        // validity bits, writes n flags (allocated above).
        unsafe { launch(function, plan.grid, BLOCK, 0, backend.stream(), &mut args)? };
    }
    let (words, falses) = pack_flags(backend, &flags, n as u64)?;
    BooleanColumn::try_new(bitmap(words, n, falses), col.validity().cloned())
}
