//! `copy_if_else`, `concatenate` and `redact` on the GPU: one functor each in
//! `kernels/strings/transform.cu`, run by the two-pass helper; and user transforms
//! (`CudaBackend::transform_strings`), a device function compiled at run time into the
//! same helper.

use ragged_core::ops::{AnyStringColumn, ConcatNulls, OffsetWidth, StringArg};
use ragged_core::{BooleanColumn, Error, OffsetSize, Result, StringColumn};

use super::two_pass::{bool_input, column_input, two_pass, BoolInput, StringInput, Uploads};
use crate::compile::{user_transform_module, STRINGS_TRANSFORM};
use crate::memory::{Device, DeviceBuffer};
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
    let table = input_table(backend, &mut uploads, columns)?;
    let (code, replacement) = match nulls {
        ConcatNulls::Null => (0, None),
        ConcatNulls::Skip => (1, None),
        ConcatNulls::Replace(r) => (2, Some(r)),
    };
    let functor = Concatenate {
        inputs: table.device_ptr(),
        count: columns.len() as u32,
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

/// The kernel's views of `args`, uploaded as one device array.
fn input_table(
    backend: &CudaBackend,
    uploads: &mut Uploads,
    args: &[StringArg<'_, Device>],
) -> Result<DeviceBuffer<u8>> {
    let inputs = args
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
    // An empty table still gets one byte, so that the kernel's pointer is valid.
    backend.upload_slice(if bytes.is_empty() { &[0u8] } else { bytes })
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

#[repr(C)]
#[derive(Clone, Copy)]
struct UserTransform {
    inputs: u64,
}

impl CudaBackend {
    /// A strings column of `rows` rows built on the GPU by a CUDA C++ device function,
    /// compiled once with NVRTC (and cached on disk like every kernel) and run through
    /// ragged's two-pass helper: sizes, a scan into offsets (`width` as for
    /// [`ragged_core::StringOps::concatenate`]), then the bytes.
    ///
    /// `source` defines
    /// ```text
    /// __device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out);
    /// ```
    /// which writes row `row` through `out` (`out.str(view)`, `out.bytes(p, n)`,
    /// `out.byte(b)`) and returns whether the row is valid. It runs twice per row — once
    /// to size, once to write — and must write the same bytes both times, valid UTF-8,
    /// and none for a null row. `inputs[k]` is `inputs[k]` here: `valid(row)`,
    /// `get(row)` (a `ragged::string_view` with `find`, `find_byte`, `contains`,
    /// `substr`, `chars`, `char_bytes_at`); a scalar serves every row. The helpers are
    /// in `kernels/common/strings.cuh`. This is the GPU half of
    /// `CpuBackend::transform_strings`, which takes a Rust closure instead.
    ///
    /// # Errors
    /// [`Error::KernelCompile`] with NVRTC's log (lines of `source` are named
    /// `transform:LINE`); [`Error::LengthMismatch`] when a column input does not have
    /// `rows` rows; [`Error::Overflow`] as for `concatenate`; device errors.
    pub fn transform_strings(
        &self,
        source: &str,
        inputs: &[StringArg<'_, Device>],
        rows: usize,
        width: OffsetWidth,
    ) -> Result<AnyStringColumn<Device>> {
        for arg in inputs {
            arg.check_rows("transform_strings", "an input column", rows)?;
        }
        let (module, prefix) = user_transform_module(source)?;
        let mut uploads = Uploads::default();
        let table = input_table(self, &mut uploads, inputs)?;
        let functor = UserTransform {
            inputs: table.device_ptr(),
        };
        uploads.keep(table);
        two_pass(
            self,
            module,
            &prefix,
            "transform_strings",
            functor,
            rows,
            width,
        )
    }
}
