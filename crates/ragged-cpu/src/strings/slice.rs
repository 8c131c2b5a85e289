//! `slice_chars` and `slice_bytes`: Python's `row[start:stop]` of every row (see
//! [`ragged_core::StringOps::slice_chars`]).
//!
//! Built by [`build_strings`]: a row's kept length comes from its length alone when
//! slicing bytes (the bounds are checked against its characters as it is copied), and
//! from a walk over its characters when slicing characters (skipped for ASCII rows,
//! where characters are bytes). Null rows (and rows with a null per-row bound) are
//! null and keep nothing.

use arrow_buffer::NullBuffer;
use ragged_core::ops::{python_slice, slice_range, SliceBounds};
use ragged_core::{Error, OffsetSize, Result, StringColumn};

use crate::strings::build::build_strings;

/// Slice every row; `chars` selects characters or bytes.
pub(crate) fn slice<O: OffsetSize>(
    col: &StringColumn<O>,
    bounds: SliceBounds<'_>,
    chars: bool,
) -> Result<StringColumn<O>> {
    let op = if chars { "slice_chars" } else { "slice_bytes" };
    bounds.check_rows(op, col.len())?;
    match bounds {
        SliceBounds::Scalar { start, stop } => {
            slice_with(op, col, col.validity().cloned(), chars, |_| (start, stop))
        }
        SliceBounds::PerRow { starts, stops } => {
            // A row with a null bound is null, and not seen by `bounds_of`.
            let validity = NullBuffer::union(
                NullBuffer::union(col.validity(), starts.validity()).as_ref(),
                stops.validity(),
            );
            let (starts, stops) = (starts.values(), stops.values());
            slice_with(op, col, validity, chars, |i| {
                (Some(starts[i]), Some(stops[i]))
            })
        }
    }
}

/// Slice every valid row `i` from `bounds_of(i)`.
fn slice_with<O: OffsetSize>(
    op: &'static str,
    col: &StringColumn<O>,
    validity: Option<NullBuffer>,
    chars: bool,
    bounds_of: impl Fn(usize) -> (Option<i64>, Option<i64>) + Sync,
) -> Result<StringColumn<O>> {
    let values = col.values();
    let out = build_strings(
        op,
        col.len(),
        validity,
        O::WIDTH,
        |i| {
            let (start, stop) = bounds_of(i);
            if chars {
                slice_range(&values[col.range(i)], start, stop, true).map_or(0, |(a, b)| b - a)
            } else {
                // From the row's length: the bounds are checked as the row is copied.
                let (a, b) = python_slice(col.range(i).len() as i64, start, stop);
                (b - a) as usize
            }
        },
        |i, out| {
            let (start, stop) = bounds_of(i);
            let r = col.range(i);
            let (a, b) = slice_range(&values[r.clone()], start, stop, chars)
                .map_err(|byte| Error::InvalidUtf8 { row: i, byte })?;
            out.push_within(values, r.start + a..r.start + b);
            Ok(())
        },
    )?;
    O::from_any_strings(out).ok_or_else(|| Error::invalid_argument(op, "offset width"))
}
