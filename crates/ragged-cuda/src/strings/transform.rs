//! `copy_if_else`, `concatenate` and `redact` on the GPU: one functor each in
//! `kernels/strings/transform.cu`, run by the two-pass helper.

use ragged_core::ops::{AnyStringColumn, ConcatNulls, OffsetWidth, StringArg};
use ragged_core::{BooleanColumn, Error, OffsetSize, Result, StringColumn};

use super::two_pass::{bool_input, column_input, two_pass, BoolInput, StringInput, Uploads};
use crate::compile::STRINGS_TRANSFORM;
use crate::memory::Device;
use crate::CudaBackend;

#[repr(C)]
#[derive(Clone, Copy)]
struct CopyIfElse {
    mask: BoolInput,
    left: StringInput,
    right: StringInput,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Concatenate {
    inputs: u64,
    count: u32,
    nulls: u32,
    separator: StringInput,
    replacement: StringInput,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Redact {
    names: StringInput,
    visibility: StringInput,
}

pub(crate) fn copy_if_else(
    backend: &CudaBackend,
    mask: &BooleanColumn<Device>,
    left: StringArg<'_, Device>,
    right: StringArg<'_, Device>,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let rows = mask.len();
    left.check_rows("copy_if_else", "the left column", rows)?;
    right.check_rows("copy_if_else", "the right column", rows)?;
    let mut uploads = Uploads::default();
    let functor = CopyIfElse {
        mask: bool_input(mask),
        left: uploads.string(backend, left)?,
        right: uploads.string(backend, right)?,
    };
    two_pass(
        backend,
        &STRINGS_TRANSFORM,
        "copy_if_else",
        "copy_if_else",
        functor,
        rows,
        width,
    )
}

pub(crate) fn concatenate(
    backend: &CudaBackend,
    columns: &[StringArg<'_, Device>],
    separator: &str,
    nulls: ConcatNulls<'_>,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    let rows = columns.iter().find_map(StringArg::rows).ok_or_else(|| {
        Error::invalid_argument("concatenate", "at least one input must be a column")
    })?;
    for arg in columns {
        arg.check_rows("concatenate", "an input column", rows)?;
    }
    let mut uploads = Uploads::default();
    let inputs = columns
        .iter()
        .map(|&arg| uploads.string(backend, arg))
        .collect::<Result<Vec<_>>>()?;
    // SAFETY: StringInput is repr(C) plain data (integers); viewing it as bytes is sound.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            inputs.as_ptr().cast::<u8>(),
            std::mem::size_of_val(inputs.as_slice()),
        )
    };
    let table = backend.upload_slice(bytes)?;
    let (code, replacement) = match nulls {
        ConcatNulls::Null => (0, None),
        ConcatNulls::Skip => (1, None),
        ConcatNulls::Replace(r) => (2, Some(r)),
    };
    let functor = Concatenate {
        inputs: table.device_ptr(),
        count: inputs.len() as u32,
        nulls: code,
        separator: uploads.string(backend, StringArg::Scalar(Some(separator)))?,
        replacement: uploads.string(backend, StringArg::Scalar(Some(replacement.unwrap_or(""))))?,
    };
    uploads.keep(table);
    two_pass(
        backend,
        &STRINGS_TRANSFORM,
        "concatenate",
        "concatenate",
        functor,
        rows,
        width,
    )
}

pub(crate) fn redact<O: OffsetSize>(
    backend: &CudaBackend,
    names: &StringColumn<O, Device>,
    visibility: StringArg<'_, Device>,
    width: OffsetWidth,
) -> Result<AnyStringColumn<Device>> {
    visibility.check_rows("redact", "the visibility column", names.len())?;
    let mut uploads = Uploads::default();
    let functor = Redact {
        names: column_input(names),
        visibility: uploads.string(backend, visibility)?,
    };
    two_pass(
        backend,
        &STRINGS_TRANSFORM,
        "redact",
        "redact",
        functor,
        names.len(),
        width,
    )
}
