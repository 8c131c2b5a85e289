//! `slice_chars` and `slice_bytes`: Python's `row[start:stop]` of every row (see
//! [`ragged_core::StringOps::slice_chars`]).
//!
//! Two passes over rows in chunks across rayon tasks: each row's kept byte range
//! (characters are located by walking the row, skipped for ASCII rows, where
//! characters are bytes), then the offsets as a running sum of the range lengths, then
//! the bytes copied, each task into its own part of the output. Null rows (and rows
//! with a null per-row bound) keep nothing.

use arrow_buffer::NullBuffer;
use rayon::prelude::*;

use ragged_core::ops::{python_slice, SliceBounds};
use ragged_core::{Error, OffsetSize, Result, ScalarBuffer, StringColumn};

use crate::CHUNK;

/// The byte range `row[start:stop]` keeps, counting characters (`chars`) or bytes.
/// `Err(byte)` when a byte bound of a non-empty slice falls inside a character.
pub(crate) fn slice_range(
    row: &str,
    start: Option<i64>,
    stop: Option<i64>,
    chars: bool,
) -> std::result::Result<(usize, usize), usize> {
    if !chars || row.is_ascii() {
        let (a, b) = python_slice(row.len() as i64, start, stop);
        let (a, b) = (a as usize, b as usize);
        if a < b {
            for bound in [a, b] {
                if !row.is_char_boundary(bound) {
                    return Err(bound);
                }
            }
        }
        return Ok((a, b));
    }
    let n = row.chars().count();
    let (a, b) = python_slice(n as i64, start, stop);
    let byte_of = |k: i64| {
        row.char_indices()
            .nth(k as usize)
            .map_or(row.len(), |(i, _)| i)
    };
    let begin = byte_of(a);
    let end = if b == a {
        begin
    } else {
        begin
            + row[begin..]
                .char_indices()
                .nth((b - a) as usize)
                .map_or(row.len() - begin, |(i, _)| i)
    };
    Ok((begin, end))
}

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
    // Pass 1: each row's kept range (empty for null rows); the lowest cutting row.
    let mut ranges = vec![(0usize, 0usize); n];
    let cut = ranges
        .par_chunks_mut(CHUNK)
        .enumerate()
        .filter_map(|(task, chunk)| {
            for (k, range) in chunk.iter_mut().enumerate() {
                let i = task * CHUNK + k;
                if !validity.as_ref().is_none_or(|v| v.is_valid(i)) {
                    continue;
                }
                let Some((start, stop)) = bounds_of(&bounds, i) else {
                    continue;
                };
                match slice_range(col.row_str(i), start, stop, chars) {
                    Ok(r) => *range = r,
                    Err(byte) => return Some((i, byte)),
                }
            }
            None
        })
        .min();
    if let Some((row, byte)) = cut {
        return Err(Error::InvalidUtf8 { row, byte });
    }
    // The offsets: a running sum (the output is no larger than the input, so it fits O).
    let mut offsets = Vec::with_capacity(n + 1);
    let mut total = 0usize;
    offsets.push(O::usize_as(0));
    for &(a, b) in &ranges {
        total += b - a;
        offsets.push(O::usize_as(total));
    }
    // Pass 2: each task copies its rows into its own part of the values.
    let mut values = vec![0u8; total];
    let mut parts = Vec::with_capacity(n.div_ceil(CHUNK));
    let mut rest = values.as_mut_slice();
    for first in (0..n).step_by(CHUNK) {
        let last = (first + CHUNK).min(n);
        let len = offsets[last].as_usize() - offsets[first].as_usize();
        let (part, tail) = rest.split_at_mut(len);
        parts.push((first, last, part));
        rest = tail;
    }
    parts.into_par_iter().for_each(|(first, last, part)| {
        let mut at = 0;
        for (i, &(a, b)) in ranges.iter().enumerate().take(last).skip(first) {
            let row = col.row_bytes(i);
            part[at..at + b - a].copy_from_slice(&row[a..b]);
            at += b - a;
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
