//! `validate_offsets` on the device: the kernel `validate_offsets_check_<offset>`
//! reports the lowest failing index through the device error word; the host reads the
//! two offsets around it to build the same error the CPU backend returns.
//! `validate_offsets_ends` does the same and also returns the first and the last
//! offset, from the same single read back (kernel `validate_offsets_ends_<offset>`).

use ragged_core::{Error, OffsetSize, OffsetsProblem, Result};

use crate::compile::VALIDATE_OFFSETS;
use crate::error_word::{ErrorWord, ErrorWordWith};
use crate::launch::{grid_for, launch, params, BLOCK};
use crate::memory::DeviceBuffer;
use crate::CudaBackend;

/// Launch `validate_offsets_<kind>_<O>(const O*, uint64_t, int64_t, uint64_t*)` with
/// `words` as its last parameter.
fn launch_check<O: OffsetSize>(
    backend: &CudaBackend,
    kind: &str,
    offsets: &DeviceBuffer<O>,
    values_len: usize,
    words: u64,
) -> Result<()> {
    let function = backend.function(
        &VALIDATE_OFFSETS,
        &format!("validate_offsets_{kind}_{}", O::OFFSET_NAME),
    )?;
    let (ptr, count, len) = (
        offsets.device_ptr(),
        offsets.len() as u64,
        values_len as i64,
    );
    let mut args = params![ptr, count, len, words];
    // SAFETY: parameters match `validate_offsets_<kind>_<O>(const O*, uint64_t, int64_t,
    // uint64_t*)`; the kernel reads `count` offsets, all inside `offsets`, and writes
    // the words the caller allocated for `kind` (one for check, three for ends).
    unsafe {
        launch(
            function,
            grid_for(count, backend.info().multiprocessors),
            BLOCK,
            0,
            backend.stream(),
            &mut args,
        )
    }
}

/// The structured error for a failing `index` reported with `code`.
fn offsets_error<O: OffsetSize>(
    backend: &CudaBackend,
    offsets: &DeviceBuffer<O>,
    values_len: usize,
    index: u64,
    code: u32,
) -> Error {
    let index = index as usize;
    let read = |i: usize| -> Result<i64> {
        Ok(offsets
            .slice(i, 1)
            .and_then(|b| backend.read_scalar(&b))?
            .as_i64())
    };
    let value = match read(index) {
        Ok(v) => v,
        Err(e) => return e,
    };
    let problem = match code {
        1 => OffsetsProblem::Negative { value },
        2 => match read(index - 1) {
            Ok(previous) => OffsetsProblem::Decreasing { previous, value },
            Err(e) => return e,
        },
        _ => OffsetsProblem::OutOfBounds { value, values_len },
    };
    Error::InvalidOffsets { index, problem }
}

/// The error for an offsets buffer with no entry.
fn empty_offsets() -> Error {
    Error::InvalidOffsets {
        index: 0,
        problem: OffsetsProblem::Empty,
    }
}

pub(crate) fn validate_offsets<O: OffsetSize>(
    backend: &CudaBackend,
    offsets: &DeviceBuffer<O>,
    values_len: usize,
) -> Result<()> {
    if offsets.is_empty() {
        return Err(empty_offsets());
    }
    let word = ErrorWord::new(backend)?;
    launch_check(backend, "check", offsets, values_len, word.device_ptr())?;
    match word.read(backend)? {
        None => Ok(()),
        Some((index, code)) => Err(offsets_error(backend, offsets, values_len, index, code)),
    }
}

/// Validate `offsets` against a child of `values_len` values, as [`validate_offsets`],
/// and return its first and last offset: one launch and one read back.
pub(crate) fn validate_offsets_ends<O: OffsetSize>(
    backend: &CudaBackend,
    offsets: &DeviceBuffer<O>,
    values_len: usize,
) -> Result<(i64, i64)> {
    if offsets.is_empty() {
        return Err(empty_offsets());
    }
    // The error word, then the first and the last offset (written by the kernel).
    let words = ErrorWordWith::<2>::new(backend)?;
    launch_check(backend, "ends", offsets, values_len, words.device_ptr())?;
    match words.read(backend)? {
        (None, [first, last]) => Ok((first as i64, last as i64)),
        (Some((index, code)), _) => Err(offsets_error(backend, offsets, values_len, index, code)),
    }
}
