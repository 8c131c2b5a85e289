//! The lists family on arrow-rs arrays (`List`, `LargeList`; list views are compacted
//! first). Per-list reductions take numeric children and skip null elements; a null
//! list gives a null result.

use arrow_array::{Array, ArrayRef};
use arrow_buffer::ScalarBuffer;
use ragged_core::ops::{Offsets, OutOfRange};
use ragged_core::{
    Backend, Column, Error, Host, ListColumn, ListOps, Memory, Native, OffsetSize, Result,
};

use super::{arrow, host_column, Device};
use crate::with_backend;

/// A per-list reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Sum of the valid elements (0 for none), in the sum type of the elements (`i64`,
    /// `u64`, `f64`).
    Sum,
    /// Product of the valid elements (1 for none), in the sum type.
    Prod,
    /// Least valid element (null when none).
    Min,
    /// Greatest valid element (null when none).
    Max,
    /// Position of the least valid element in its list (null when none).
    Argmin,
    /// Position of the greatest valid element in its list (null when none).
    Argmax,
    /// Number of valid elements (any child type).
    Count,
    /// Number of valid non-zero elements.
    CountNonzero,
    /// Whether any valid element is true (boolean children; false for none).
    Any,
    /// Whether every valid element is true (boolean children; true for none).
    All,
    /// Mean of the valid elements as `f64` (null when none).
    Mean,
}

impl Reduction {
    /// The op's name (`sum`, `count_nonzero`, …).
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Prod => "prod",
            Reduction::Min => "min",
            Reduction::Max => "max",
            Reduction::Argmin => "argmin",
            Reduction::Argmax => "argmax",
            Reduction::Count => "count",
            Reduction::CountNonzero => "count_nonzero",
            Reduction::Any => "any",
            Reduction::All => "all",
            Reduction::Mean => "mean",
        }
    }
}

/// A host list column of either offset width.
enum HostLists {
    List(ListColumn<i32, Host>),
    LargeList(ListColumn<i64, Host>),
}

fn host_lists(array: &dyn Array) -> Result<HostLists> {
    match host_column(array, "array")? {
        Column::List(c) => Ok(HostLists::List(c)),
        Column::LargeList(c) => Ok(HostLists::LargeList(c)),
        _ => Err(super::type_mismatch("array", "lists", array.data_type())),
    }
}

/// Run `$body` with `$b` the device's backend and `$c` the list column `$array` on it
/// (either offset width, `$o` its offset type); `$body` gives a host [`Column`].
macro_rules! on_lists {
    ($device:expr, $array:expr, |$b:ident, $c:ident, $o:ident| $body:expr) => {{
        let host = host_lists($array)?;
        let column: Column<Host> = with_backend!($device.backend(), |$b| match &host {
            HostLists::List(h) => {
                type $o = i32;
                let $c = &$b.to_device_list(h)?;
                $body
            }
            HostLists::LargeList(h) => {
                type $o = i64;
                let $c = &$b.to_device_list(h)?;
                $body
            }
        });
        Ok(arrow(column))
    }};
}

/// Elements per list, as the offset type (`pyarrow.compute.list_value_length`).
///
/// # Errors
/// [`Error::TypeMismatch`] when `array` holds no lists; device errors.
pub fn counts(array: &dyn Array, device: &Device) -> Result<ArrayRef> {
    on_lists!(device, array, |b, c, _O| b.to_host(&b.counts(c)?.into())?)
}

/// The elements of the valid lists, in order (`pyarrow.compute.list_flatten`).
///
/// # Errors
/// As [`counts`].
pub fn flatten(array: &dyn Array, device: &Device) -> Result<ArrayRef> {
    on_lists!(device, array, |b, c, _O| b.to_host(&b.flatten(c)?)?)
}

/// Each element's position in its list, as lists of the same shape (Awkward's
/// `local_index`).
///
/// # Errors
/// As [`counts`].
pub fn local_index(array: &dyn Array, device: &Device) -> Result<ArrayRef> {
    on_lists!(device, array, |b, c, _O| b
        .to_host(&b.local_index(c)?.into())?)
}

/// Element `index` of every list (negative counts from the end); a list too short is
/// null, or with `OutOfRange::Error` an error naming it (`pyarrow.compute.list_element`).
///
/// # Errors
/// [`Error::IndexOutOfRange`] as said; as [`counts`].
pub fn get(
    array: &dyn Array,
    index: i64,
    out_of_range: OutOfRange,
    device: &Device,
) -> Result<ArrayRef> {
    on_lists!(device, array, |b, c, _O| b.to_host(&b.get(
        c,
        index,
        out_of_range
    )?)?)
}

/// `list[start:stop]` of every list with Python's rules, as compact lists
/// (`pyarrow.compute.list_slice`).
///
/// # Errors
/// As [`counts`].
pub fn slice(
    array: &dyn Array,
    start: Option<i64>,
    stop: Option<i64>,
    device: &Device,
) -> Result<ArrayRef> {
    on_lists!(device, array, |b, c, _O| {
        let view = b.slice(c, start, stop)?;
        b.to_host(&b.to_compact(&view)?.into())?
    })
}

/// A per-list reduction.
///
/// # Errors
/// [`Error::TypeMismatch`] for a child the reduction does not take (numbers, or
/// booleans for `Any` / `All`); [`Error::Overflow`] for an integer sum or product
/// that overflows; as [`counts`].
pub fn reduce(array: &dyn Array, reduction: Reduction, device: &Device) -> Result<ArrayRef> {
    on_lists!(device, array, |b, c, O| reduce_on::<_, O>(b, reduction, c)?)
}

/// A per-list reduction: `Count`, `Any` and `All` for any child, the others dispatched
/// on the child's numeric type.
fn reduce_on<B: Backend, O: OffsetSize>(
    b: &B,
    r: Reduction,
    col: &ListColumn<O, B::Loc>,
) -> Result<Column<Host>> {
    macro_rules! typed {
        ($t:ty) => {
            reduce_typed::<B, O, $t>(b, r, col)
        };
    }
    match (r, col.child()) {
        (Reduction::Count, _) => b.to_host(&b.list_count(col)?.into()),
        (Reduction::Any, _) => b.to_host(&b.list_any(col)?.into()),
        (Reduction::All, _) => b.to_host(&b.list_all(col)?.into()),
        (_, Column::Int8(_)) => typed!(i8),
        (_, Column::Int16(_)) => typed!(i16),
        (_, Column::Int32(_)) => typed!(i32),
        (_, Column::Int64(_)) => typed!(i64),
        (_, Column::UInt8(_)) => typed!(u8),
        (_, Column::UInt16(_)) => typed!(u16),
        (_, Column::UInt32(_)) => typed!(u32),
        (_, Column::UInt64(_)) => typed!(u64),
        (_, Column::Float32(_)) => typed!(f32),
        (_, Column::Float64(_)) => typed!(f64),
        (_, other) => Err(Error::TypeMismatch {
            column: "list child".into(),
            expected: "a numeric child".into(),
            actual: other.type_name(),
        }),
    }
}

/// A reduction over a numeric child of type `T`.
fn reduce_typed<B: Backend, O: OffsetSize, T: Native>(
    b: &B,
    r: Reduction,
    col: &ListColumn<O, B::Loc>,
) -> Result<Column<Host>> {
    match r {
        Reduction::Sum => b.to_host(&b.list_sum::<O, T>(col)?.into()),
        Reduction::Prod => b.to_host(&b.list_prod::<O, T>(col)?.into()),
        Reduction::Min => b.to_host(&b.list_min::<O, T>(col)?.into()),
        Reduction::Max => b.to_host(&b.list_max::<O, T>(col)?.into()),
        Reduction::Argmin => b.to_host(&b.list_argmin::<O, T>(col)?.into()),
        Reduction::Argmax => b.to_host(&b.list_argmax::<O, T>(col)?.into()),
        Reduction::CountNonzero => b.to_host(&b.list_count_nonzero::<O, T>(col)?.into()),
        Reduction::Mean => b.to_host(&b.list_mean::<O, T>(col)?.into()),
        // Not typed by the child: `reduce_on` runs them before any dispatch.
        Reduction::Count | Reduction::Any | Reduction::All => reduce_on::<B, O>(b, r, col),
    }
}

/// The offsets of the compact lists `child[starts[i]..stops[i]]` (Awkward's
/// `ListArray` → `ListOffsetArray`): `starts` and `stops` are `int32` or `int64`
/// arrays without nulls, of one type; every list must lie within `0..=child_len`
/// with `start <= stop`. Returns the offsets (`int32`, or `int64` when the total
/// passes `i32::MAX` or the device's offset width asks for it) and the total.
///
/// # Errors
/// [`Error::InvalidOffsets`] naming the first bad list; [`Error::TypeMismatch`] for
/// other types; [`Error::LengthMismatch`] when the lengths differ.
pub fn compact_offsets(
    starts: &dyn Array,
    stops: &dyn Array,
    child_len: usize,
    device: &Device,
) -> Result<(ArrayRef, i64)> {
    fn run<O: OffsetSize>(
        starts: &ScalarBuffer<O>,
        stops: &ScalarBuffer<O>,
        child_len: usize,
        device: &Device,
    ) -> Result<(Column<Host>, i64)> {
        let w = device.offset_width();
        with_backend!(device.backend(), |b| {
            let (offsets, total) =
                b.compact_offsets::<O>(&b.upload(starts)?, &b.upload(stops)?, child_len, w)?;
            let column = match offsets {
                Offsets::I32(o) => Column::Int32(
                    b.to_host_primitive(&ragged_core::PrimitiveColumn::try_new(o, None)?)?,
                ),
                Offsets::I64(o) => Column::Int64(
                    b.to_host_primitive(&ragged_core::PrimitiveColumn::try_new(o, None)?)?,
                ),
            };
            Ok((column, total))
        })
    }
    // Unequal lengths are the backends' error; nulls they cannot see in bare buffers.
    for (array, what) in [(starts, "starts"), (stops, "stops")] {
        if array.null_count() > 0 {
            return Err(Error::invalid_argument(
                "compact_offsets",
                format!("{what} holds nulls"),
            ));
        }
    }
    let (column, total) = match (host_column(starts, "starts")?, host_column(stops, "stops")?) {
        (Column::Int32(a), Column::Int32(z)) => run(a.values(), z.values(), child_len, device)?,
        (Column::Int64(a), Column::Int64(z)) => run(a.values(), z.values(), child_len, device)?,
        _ => {
            return Err(super::type_mismatch(
                "starts",
                "int32 or int64 starts and stops of one type",
                starts.data_type(),
            ))
        }
    };
    Ok((arrow(column), total))
}
