//! `to_compact` (a starts/stops view → offsets and a gathered child) and `flatten`
//! (the valid lists' elements as one column).
//!
//! Mapping: the output offsets come from the lists' lengths (null lists count 0) in
//! two parallel passes ([`super::offsets`]); the child ranges are then gathered in
//! parallel ([`super::gather`]). `flatten` without a null list covering elements is a
//! zero-copy slice of the child.
//!
//! Complexity: O(n + elements) work; `flatten` without null lists is O(n) (a scan of
//! the validity for null lists holding elements).

use std::sync::Arc;

use ragged_core::{
    BooleanColumn, Column, Error, Host, ListColumn, ListViewColumn, OffsetSize, Result,
};

use super::gather::gather_ranges;
use super::offsets::offsets_from_lengths;
use super::{gatherable, is_valid, unsupported_child};

/// The offsets-based column of a view; see [`ragged_core::ListOps::to_compact`].
pub(crate) fn to_compact<O: OffsetSize>(col: &ListViewColumn<O>) -> Result<ListColumn<O>> {
    const OP: &str = "to_compact";
    if !gatherable(col.child()) {
        return Err(unsupported_child(OP, col.child()));
    }
    let (starts, stops): (&[O], &[O]) = (col.starts(), col.stops());
    let validity = col.validity();
    let range = |i: usize| {
        if is_valid(validity, i) {
            (starts[i].as_usize(), stops[i].as_usize())
        } else {
            (0, 0)
        }
    };
    let len_of = |i: usize| {
        let (a, b) = range(i);
        (b - a) as i64
    };
    let (offsets, _) = offsets_from_lengths::<O>(OP, col.len(), &len_of)?;
    let child = gather_ranges(OP, col.child(), &offsets, &range)?;
    // SAFETY: the offsets start at 0, are non-decreasing (prefix sums of lengths) and
    // end at the gathered child's length; the validity is the view's, one bit per list.
    Ok(unsafe { ListColumn::new_unchecked(offsets.into(), Arc::new(child), validity.cloned()) })
}

/// The valid lists' elements; see [`ragged_core::ListOps::flatten`].
pub(crate) fn flatten<O: OffsetSize>(col: &ListColumn<O>) -> Result<Column<Host>> {
    const OP: &str = "flatten";
    let child = col.child();
    if !gatherable(child) {
        return Err(unsupported_child(OP, child));
    }
    let offsets: &[O] = col.offsets();
    let validity = col.validity();
    let n = col.len();
    let covered_null = validity.is_some_and(|v| {
        v.null_count() > 0 && (0..n).any(|i| v.is_null(i) && offsets[i] != offsets[i + 1])
    });
    if !covered_null {
        let (first, last) = (offsets[0].as_usize(), offsets[n].as_usize());
        return slice_child(child, first, last - first);
    }
    let range = |i: usize| {
        if is_valid(validity, i) {
            (offsets[i].as_usize(), offsets[i + 1].as_usize())
        } else {
            (0, 0)
        }
    };
    let len_of = |i: usize| {
        let (a, b) = range(i);
        (b - a) as i64
    };
    let (out_offsets, _) = offsets_from_lengths::<i64>(OP, n, &len_of)?;
    gather_ranges(OP, child, &out_offsets, &range)
}

/// Rows `offset..offset + len` of a gatherable child, without copying.
fn slice_child(child: &Column<Host>, offset: usize, len: usize) -> Result<Column<Host>> {
    let in_range = offset
        .checked_add(len)
        .is_some_and(|end| end <= child.len());
    if !in_range {
        return Err(Error::invalid_argument(
            "flatten",
            format!(
                "range {offset}..{offset}+{len} is out of bounds for a child of {} rows",
                child.len()
            ),
        ));
    }
    Ok(match child {
        Column::Int8(c) => Column::Int8(c.slice(offset, len)),
        Column::Int16(c) => Column::Int16(c.slice(offset, len)),
        Column::Int32(c) => Column::Int32(c.slice(offset, len)),
        Column::Int64(c) => Column::Int64(c.slice(offset, len)),
        Column::UInt8(c) => Column::UInt8(c.slice(offset, len)),
        Column::UInt16(c) => Column::UInt16(c.slice(offset, len)),
        Column::UInt32(c) => Column::UInt32(c.slice(offset, len)),
        Column::UInt64(c) => Column::UInt64(c.slice(offset, len)),
        Column::Float32(c) => Column::Float32(c.slice(offset, len)),
        Column::Float64(c) => Column::Float64(c.slice(offset, len)),
        Column::Boolean(c) => Column::Boolean(BooleanColumn::try_new(
            c.values().slice(offset, len),
            c.validity().map(|v| v.slice(offset, len)),
        )?),
        Column::Utf8(c) => Column::Utf8(c.slice(offset, len)?),
        Column::LargeUtf8(c) => Column::LargeUtf8(c.slice(offset, len)?),
        other => return Err(unsupported_child("flatten", other)),
    })
}
