//! Reductions and scans of numeric arrays. Nulls are skipped; integer sums are exact in
//! their sum type (`i64`, `u64`) or an error on overflow; float sums are `f64`.

use arrow_array::{Array, ArrayRef};
use ragged_core::ops::ScanKind;
use ragged_core::{
    Backend, Column, Error, Host, Memory, Native, PrimitiveColumn, Primitives, Result,
};

use super::{arrow, host_column, Device};
use crate::with_backend;

/// A reduction of a whole array to one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// Sum of the valid values in the sum type (0 for none; `pyarrow.compute.sum`
    /// gives null there).
    Sum,
    /// Least valid value (null when none; NaN ignored unless every value is NaN).
    Min,
    /// Greatest valid value (null when none; NaN as for `Min`).
    Max,
    /// Position of the first least valid value (null when none).
    Argmin,
    /// Position of the first greatest valid value (null when none).
    Argmax,
    /// Number of valid values (`pyarrow.compute.count`).
    Count,
}

/// A running reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    /// Running sums in the sum type (`pyarrow.compute.cumulative_sum`).
    Sum,
    /// Running minima (`pyarrow.compute.cumulative_min`).
    Min,
    /// Running maxima (`pyarrow.compute.cumulative_max`).
    Max,
}

/// Run `$body` with `$b` the backend and `$c` the numeric column `$array` on the
/// device; `$body` gives a host [`Column`].
macro_rules! on_numbers {
    ($device:expr, $array:expr, |$b:ident, $c:ident| $body:expr) => {{
        let host = host_column($array, "array")?;
        let column: Column<Host> = with_backend!($device.backend(), |$b| {
            macro_rules! typed {
                ($h:expr) => {{
                    let $c = &$b.to_device_primitive($h)?;
                    $body
                }};
            }
            match &host {
                Column::Int8(h) => typed!(h),
                Column::Int16(h) => typed!(h),
                Column::Int32(h) => typed!(h),
                Column::Int64(h) => typed!(h),
                Column::UInt8(h) => typed!(h),
                Column::UInt16(h) => typed!(h),
                Column::UInt32(h) => typed!(h),
                Column::UInt64(h) => typed!(h),
                Column::Float32(h) => typed!(h),
                Column::Float64(h) => typed!(h),
                other => {
                    return Err(Error::TypeMismatch {
                        column: "array".into(),
                        expected: "numbers".into(),
                        actual: other.type_name(),
                    })
                }
            }
        });
        Ok(arrow(column))
    }};
}

/// One value as a one-row column (null for `None`).
fn one<T: Native>(value: Option<T>) -> Column<Host> {
    PrimitiveColumn::from_options([value]).into()
}

/// The aggregate of `array`'s valid values as a one-row array (`Sum` and `Min` / `Max`
/// in the types said there, `Argmin` / `Argmax` / `Count` as `uint64`).
///
/// # Errors
/// [`Error::TypeMismatch`] for a non-numeric array; [`Error::Overflow`] for an integer
/// sum that overflows; device errors.
pub fn reduce(array: &dyn Array, aggregate: Aggregate, device: &Device) -> Result<ArrayRef> {
    on_numbers!(device, array, |b, c| reduce_one(b, c, aggregate)?)
}

fn reduce_one<B: Backend, T: Native>(
    b: &B,
    c: &PrimitiveColumn<T, B::Loc>,
    aggregate: Aggregate,
) -> Result<Column<Host>> {
    let position = |p: Option<usize>| one(p.map(|p| p as u64));
    Ok(match aggregate {
        Aggregate::Sum => one(Some(b.reduce_sum(c)?)),
        Aggregate::Min => one(b.reduce_min(c)?),
        Aggregate::Max => one(b.reduce_max(c)?),
        Aggregate::Argmin => position(b.reduce_argmin(c)?),
        Aggregate::Argmax => position(b.reduce_argmax(c)?),
        Aggregate::Count => one(Some(b.count_valid(c)? as u64)),
    })
}

/// The running `scan` of `array` (`Inclusive`: row `i` covers rows `0..=i`), nulls
/// skipped as in [`ragged_core::ops::Primitives::scan_sum`].
///
/// # Errors
/// As [`reduce`].
pub fn scan(array: &dyn Array, scan: Scan, kind: ScanKind, device: &Device) -> Result<ArrayRef> {
    on_numbers!(device, array, |b, c| match scan {
        Scan::Sum => b.to_host(&b.scan_sum(c, kind)?.into())?,
        Scan::Min => b.to_host(&b.scan_min(c, kind)?.into())?,
        Scan::Max => b.to_host(&b.scan_max(c, kind)?.into())?,
    })
}

/// The valid values of `array` where `mask` is true, in order, without nulls (a null
/// value or a null mask row is left out; `pyarrow.compute.filter` keeps null values).
///
/// # Errors
/// [`Error::TypeMismatch`] for a non-numeric array or a non-boolean mask;
/// [`Error::LengthMismatch`] when the lengths differ.
pub fn select(array: &dyn Array, mask: &dyn Array, device: &Device) -> Result<ArrayRef> {
    let Column::Boolean(mask) = host_column(mask, "mask")? else {
        return Err(super::type_mismatch("mask", "booleans", mask.data_type()));
    };
    on_numbers!(device, array, |b, c| {
        let m = b.to_device_booleans(&mask)?;
        b.to_host(&b.select_mask(c, &m, false)?.values.into())?
    })
}

/// One aggregate per segment `offsets[i]..offsets[i + 1]` of `array` (`offsets` an
/// `int32` or `int64` array without nulls, non-decreasing, within the array): sums in
/// the sum type, minima and maxima (null for a segment without a valid value), their
/// positions within the segment, or counts of valid values — CUB's segmented
/// reductions, Awkward's reducers over one level.
///
/// # Errors
/// [`Error::InvalidOffsets`] naming the first bad offset; as [`reduce`].
pub fn segmented(
    array: &dyn Array,
    offsets: &dyn Array,
    aggregate: Aggregate,
    device: &Device,
) -> Result<ArrayRef> {
    let offsets = host_column(offsets, "offsets")?;
    if offsets.null_count() > 0 {
        return Err(Error::invalid_argument("segmented", "offsets hold nulls"));
    }
    on_numbers!(device, array, |b, c| match &offsets {
        Column::Int32(o) => segmented_one(b, c, &b.upload(o.values())?, aggregate)?,
        Column::Int64(o) => segmented_one(b, c, &b.upload(o.values())?, aggregate)?,
        other => {
            return Err(Error::TypeMismatch {
                column: "offsets".into(),
                expected: "int32 or int64".into(),
                actual: other.type_name(),
            });
        }
    })
}

fn segmented_one<B: Backend, T: Native, O: ragged_core::OffsetSize>(
    b: &B,
    c: &PrimitiveColumn<T, B::Loc>,
    offsets: &<B::Loc as ragged_core::Location>::Buffer<O>,
    aggregate: Aggregate,
) -> Result<Column<Host>> {
    match aggregate {
        Aggregate::Sum => b.to_host(&b.segmented_sum(c, offsets)?.into()),
        Aggregate::Min => b.to_host(&b.segmented_min(c, offsets)?.into()),
        Aggregate::Max => b.to_host(&b.segmented_max(c, offsets)?.into()),
        Aggregate::Argmin => b.to_host(&b.segmented_argmin(c, offsets)?.into()),
        Aggregate::Argmax => b.to_host(&b.segmented_argmax(c, offsets)?.into()),
        Aggregate::Count => b.to_host(&b.segmented_count(c, offsets)?.into()),
    }
}
