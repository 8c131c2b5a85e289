//! `slice_chars` and `slice_bytes`: Python's `row[start:stop]` of every row (see
//! [`ragged_core::StringOps::slice_chars`]).
//!
//! Two passes over rows in chunks across rayon tasks: each task sums its rows' kept
//! lengths (the range located by walking the row's characters, skipped for ASCII rows,
//! where characters are bytes); then each task locates its rows' ranges again, copies
//! them into its own part of the output and writes their offsets from the task's
//! first. Null rows (and rows with a null per-row bound) keep nothing.

use arrow_buffer::NullBuffer;
use rayon::prelude::*;

use ragged_core::ops::{slice_range, SliceBounds};
use ragged_core::{Error, OffsetSize, Result, ScalarBuffer, StringColumn};

use crate::{output_vec, CHUNK};

/// The bounds of row `i`, or `None` when a per-row bound is null.
fn bounds_of(bounds: &SliceBounds<'_>, i: usize) -> Option<(Option<i64>, Option<i64>)> {
    match bounds {
        SliceBounds::Scalar { start, stop } => Some((*start, *stop)),
        SliceBounds::PerRow { starts, stops } => Some((Some(starts.get(i)?), Some(stops.get(i)?))),
    }
}

/// Slice every row; `chars` selects characters or bytes.
pub(crate) fn slice<O: OffsetSize>(
    col: &StringColumn<O>,
    bounds: SliceBounds<'_>,
    chars: bool,
) -> Result<StringColumn<O>> {
    let op = if chars { "slice_chars" } else { "slice_bytes" };
    bounds.check_rows(op, col.len())?;
    let validity = match &bounds {
        SliceBounds::Scalar { .. } => col.validity().cloned(),
        SliceBounds::PerRow { starts, stops } => NullBuffer::union(
            NullBuffer::union(col.validity(), starts.validity()).as_ref(),
            stops.validity(),
        ),
    };
    let n = col.len();
    // The kept range of row i: empty for null rows; Err(byte) when bytes cut a character.
    let range_of = |i: usize| -> std::result::Result<(usize, usize), usize> {
        if !validity.as_ref().is_none_or(|v| v.is_valid(i)) {
            return Ok((0, 0));
        }
        match bounds_of(&bounds, i) {
            Some((start, stop)) => slice_range(col.row_bytes(i), start, stop, chars),
            None => Ok((0, 0)),
        }
    };
    // Pass 1: per task, the total kept length and the lowest cutting row.
    let tasks: Vec<(usize, Option<(usize, usize)>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|task| {
            let mut total = 0usize;
            for i in task * CHUNK..((task + 1) * CHUNK).min(n) {
                match range_of(i) {
                    Ok((a, b)) => total += b - a,
                    Err(byte) => return (total, Some((i, byte))),
                }
            }
            (total, None)
        })
        .collect();
    if let Some((row, byte)) = tasks.iter().find_map(|t| t.1) {
        return Err(Error::InvalidUtf8 { row, byte });
    }
    // Pass 2: each task locates its rows' ranges again and copies them into its own
    // part of the values, writing its rows' offsets from its first one (the output is
    // no larger than the input, so the offsets fit O).
    let total: usize = tasks.iter().map(|t| t.0).sum();
    let mut offsets: Vec<O> = output_vec(n + 1);
    let mut values: Vec<u8> = output_vec(total);
    let mut parts = Vec::with_capacity(tasks.len());
    let mut rest = values.as_mut_slice();
    let mut base = 0usize;
    for (&(len, _), ends) in tasks.iter().zip(offsets[1..].chunks_mut(CHUNK)) {
        let (part, tail) = rest.split_at_mut(len);
        parts.push((base, part, ends));
        rest = tail;
        base += len;
    }
    parts
        .into_par_iter()
        .enumerate()
        .for_each(|(task, (base, part, ends))| {
            let mut at = 0;
            for (k, end) in ends.iter_mut().enumerate() {
                let i = task * CHUNK + k;
                if let Ok((a, b)) = range_of(i) {
                    part[at..at + b - a].copy_from_slice(&col.row_bytes(i)[a..b]);
                    at += b - a;
                }
                *end = O::usize_as(base + at);
            }
        });
    // SAFETY: the offsets start at 0, do not decrease and end at values.len(); each row
    // is a range of a valid UTF-8 row cut at character boundaries (checked above for
    // bytes, by construction for characters), so it is valid UTF-8.
    Ok(
        unsafe {
            StringColumn::new_unchecked(ScalarBuffer::from(offsets), values.into(), validity)
        },
    )
}
