//! The lists family on the GPU: host dispatch for `kernels/lists/*.cu`.
//!
//! - `compact_offsets.rs`: starts/stops → compact offsets (one checking scan), and the
//!   counts → offsets scan of `unflatten`;
//! - `gather.rs`: `to_compact`, `flatten` and `local_index` (load-balanced gathers over
//!   output elements) and zero-copy child slices;
//! - `get.rs`: `get` and `slice`;
//! - `unflatten.rs`;
//! - `reduce.rs`: the per-list reductions over the segmented engine.

mod compact_offsets;
mod counts;
mod gather;
mod get;
mod reduce;
mod unflatten;

// The byte-range machinery the strings family builds its columns with.
pub(crate) use compact_offsets::compact_for;
pub(crate) use gather::{gather_values, Plan as GatherPlan};

use ragged_core::ops::{OffsetWidth, Offsets, OutOfRange};
use ragged_core::{
    BooleanColumn, Column, Error, ListColumn, ListOps, ListViewColumn, Native, OffsetSize,
    PrimitiveColumn, Result,
};

use crate::memory::{Device, DeviceBuffer};
use crate::primitives::value_from_bytes;
use crate::CudaBackend;

/// Element `index` of a device buffer of offsets, as `i64` (waits for queued work).
pub(crate) fn read_offset<O: OffsetSize>(
    backend: &CudaBackend,
    buffer: &DeviceBuffer<O>,
    index: usize,
) -> Result<i64> {
    let size = std::mem::size_of::<O>();
    let offset = index.checked_mul(size).ok_or_else(|| {
        Error::invalid_argument("read_offset", format!("index {index} out of range"))
    })?;
    let bytes = backend.read_bytes(buffer, offset, size)?;
    Ok(value_from_bytes::<O>(&bytes).map_or(0, |o| o.as_i64()))
}

/// A device buffer holding one offset 0 (the offsets of zero lists).
pub(crate) fn zero_offsets<O: OffsetSize>(backend: &CudaBackend) -> Result<DeviceBuffer<O>> {
    backend.upload_slice(&[O::default()])
}

/// The kernel-name suffix of an element of `size` bytes: `b1`, `b2`, `b4`, `b8`.
pub(crate) fn width_name(size: usize) -> Result<&'static str> {
    match size {
        1 => Ok("b1"),
        2 => Ok("b2"),
        4 => Ok("b4"),
        8 => Ok("b8"),
        other => Err(Error::Unsupported {
            op: "lists",
            message: format!("elements of {other} bytes"),
        }),
    }
}

/// Whether element-moving operations (`to_compact`, `flatten`, `get`) accept the
/// child: numeric, boolean and strings children.
pub(crate) fn check_movable(col: &Column<Device>, op: &'static str) -> Result<()> {
    match col {
        Column::Int8(_)
        | Column::Int16(_)
        | Column::Int32(_)
        | Column::Int64(_)
        | Column::UInt8(_)
        | Column::UInt16(_)
        | Column::UInt32(_)
        | Column::UInt64(_)
        | Column::Float32(_)
        | Column::Float64(_)
        | Column::Boolean(_)
        | Column::Utf8(_)
        | Column::LargeUtf8(_) => Ok(()),
        other => Err(Error::Unsupported {
            op,
            message: format!(
                "children of type {} cannot be gathered (numeric, bool and strings can)",
                other.type_name()
            ),
        }),
    }
}

/// Apply a body generic over the element type to every numeric variant of a column,
/// rewrapping the result in the same variant; the remaining arms are given after `;`.
macro_rules! match_numeric {
    ($col:expr; $c:ident => $body:expr; $($rest:tt)*) => {
        match $col {
            Column::Int8($c) => Column::Int8($body),
            Column::Int16($c) => Column::Int16($body),
            Column::Int32($c) => Column::Int32($body),
            Column::Int64($c) => Column::Int64($body),
            Column::UInt8($c) => Column::UInt8($body),
            Column::UInt16($c) => Column::UInt16($body),
            Column::UInt32($c) => Column::UInt32($body),
            Column::UInt64($c) => Column::UInt64($body),
            Column::Float32($c) => Column::Float32($body),
            Column::Float64($c) => Column::Float64($body),
            $($rest)*
        }
    };
}
pub(crate) use match_numeric;

impl ListOps for CudaBackend {
    fn counts<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        counts::counts(self, col)
    }

    fn compact_offsets<O: OffsetSize>(
        &self,
        starts: &DeviceBuffer<O>,
        stops: &DeviceBuffer<O>,
        child_len: usize,
        width: OffsetWidth,
    ) -> Result<(Offsets<Device>, i64)> {
        compact_offsets::compact_offsets(self, starts, stops, child_len, width)
    }

    fn to_compact<O: OffsetSize>(
        &self,
        col: &ListViewColumn<O, Device>,
    ) -> Result<ListColumn<O, Device>> {
        gather::to_compact(self, col)
    }

    fn flatten<O: OffsetSize>(&self, col: &ListColumn<O, Device>) -> Result<Column<Device>> {
        gather::flatten(self, col)
    }

    fn unflatten<O: OffsetSize>(
        &self,
        child: &Column<Device>,
        counts: &PrimitiveColumn<O, Device>,
    ) -> Result<ListColumn<O, Device>> {
        unflatten::unflatten(self, child, counts)
    }

    fn local_index<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<ListColumn<O, Device>> {
        gather::local_index(self, col)
    }

    fn get<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
        index: i64,
        out_of_range: OutOfRange,
    ) -> Result<Column<Device>> {
        get::get(self, col, index, out_of_range)
    }

    fn slice<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
        start: Option<i64>,
        stop: Option<i64>,
    ) -> Result<ListViewColumn<O, Device>> {
        get::slice(self, col, start, stop)
    }

    fn list_sum<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<T::Sum, Device>> {
        reduce::list_sum::<O, T>(self, col)
    }

    fn list_prod<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<T::Sum, Device>> {
        reduce::list_prod::<O, T>(self, col)
    }

    fn list_min<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<T, Device>> {
        reduce::list_extremum::<O, T>(self, col, false)
    }

    fn list_max<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<T, Device>> {
        reduce::list_extremum::<O, T>(self, col, true)
    }

    fn list_argmin<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        reduce::list_arg::<O, T>(self, col, false)
    }

    fn list_argmax<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        reduce::list_arg::<O, T>(self, col, true)
    }

    fn list_count<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        reduce::list_count(self, col)
    }

    fn list_count_nonzero<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<i64, Device>> {
        reduce::list_count_nonzero::<O, T>(self, col)
    }

    fn list_any<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<BooleanColumn<Device>> {
        reduce::list_any_all(self, col, false)
    }

    fn list_all<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<BooleanColumn<Device>> {
        reduce::list_any_all(self, col, true)
    }

    fn list_mean<O: OffsetSize, T: Native>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<f64, Device>> {
        reduce::list_mean::<O, T>(self, col)
    }
}
