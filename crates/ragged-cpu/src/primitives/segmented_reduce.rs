//! Segmented reductions: one result per segment `offsets[i]..offsets[i + 1]` of a
//! column: `segmented_sum`, `segmented_min`, `segmented_max`, `segmented_argmin`,
//! `segmented_argmax`, `segmented_count`.
//!
//! Mapping: the offsets are validated against the column first
//! (`ragged_core::column::validate_offsets`: the same error, at the same lowest index,
//! as every backend). The segments are then cut into tasks of consecutive segments
//! holding about [`CHUNK`] elements (and at most [`CHUNK`] segments), found by binary
//! search on the offsets; each rayon task reduces its segments one after the other,
//! sequentially within a segment, and writes its own piece of the output. A segment
//! larger than a chunk is one task.
//!
//! Offsets index the column directly: sliced offsets (`offsets[0] != 0`) and offsets
//! that end before the column's end are fine. Sums and counts are valid in every row;
//! minima, maxima and their arg forms are null for a segment with no valid value.
//!
//! Complexity: O(n + segments) work, one read of the values and of the offsets.

use rayon::prelude::*;

use ragged_core::{Error, Native, OffsetSize, PrimitiveColumn, Result, ScalarBuffer};

use super::{split_by_lengths, validity_from_flags, Best, Extreme};
use crate::CHUNK;

/// Tasks `(first segment, end segment)` covering segments `0..n` of `offsets`, each
/// holding about [`CHUNK`] elements and at most [`CHUNK`] segments.
fn segment_tasks<O: OffsetSize>(offsets: &[O]) -> Vec<(usize, usize)> {
    let n = offsets.len() - 1;
    let mut tasks = Vec::with_capacity(n / CHUNK + 1);
    let mut start = 0;
    while start < n {
        let limit = offsets[start].as_i64().saturating_add(CHUNK as i64);
        // The first segment end at or beyond the limit closes the task.
        let reach = start + 1 + offsets[start + 1..].partition_point(|o| o.as_i64() < limit);
        let end = reach.min(n).min(start + CHUNK).max(start + 1);
        tasks.push((start, end));
        start = end;
    }
    tasks
}

/// Validate the offsets, then compute `reduce(values, first_row)` for each segment
/// (the segment's values and the column row of its first value) in parallel.
fn per_segment<T: Native, O: OffsetSize, R: Copy + Default + Send>(
    col: &PrimitiveColumn<T>,
    offsets: &ScalarBuffer<O>,
    reduce: impl Fn(&[T], usize) -> R + Sync,
) -> Result<Vec<R>> {
    let offsets: &[O] = offsets;
    ragged_core::column::validate_offsets(offsets, col.len())?;
    let values: &[T] = col.values();
    let tasks = segment_tasks(offsets);
    let lengths: Vec<usize> = tasks.iter().map(|&(s, e)| e - s).collect();
    let mut out = vec![R::default(); offsets.len() - 1];
    split_by_lengths(&mut out, &lengths)
        .into_par_iter()
        .zip(tasks.par_iter())
        .for_each(|(out, &(first, _))| {
            for (k, slot) in out.iter_mut().enumerate() {
                let (start, end) = (
                    offsets[first + k].as_usize(),
                    offsets[first + k + 1].as_usize(),
                );
                *slot = reduce(&values[start..end], start);
            }
        });
    Ok(out)
}

/// Sum of each segment's valid values; see [`ragged_core::Primitives::segmented_sum`].
pub(crate) fn segmented_sum<T: Native, O: OffsetSize>(
    col: &PrimitiveColumn<T>,
    offsets: &ScalarBuffer<O>,
) -> Result<PrimitiveColumn<T::Sum>> {
    let validity = col.validity();
    let sums: Vec<Option<T::Sum>> = per_segment(col, offsets, |segment, first| {
        let mut acc = T::wide_zero();
        for (i, &v) in segment.iter().enumerate() {
            if validity.is_none_or(|m| m.is_valid(first + i)) {
                acc = T::wide_add(acc, v);
            }
        }
        T::wide_total(acc)
    })?;
    let mut out = Vec::with_capacity(sums.len());
    for (segment, sum) in sums.into_iter().enumerate() {
        out.push(sum.ok_or_else(|| Error::Overflow {
            op: "segmented_sum",
            message: format!(
                "the sum of segment {segment} ({} values) does not fit {}",
                T::NAME,
                <T::Sum as Native>::NAME
            ),
        })?);
    }
    PrimitiveColumn::try_new(ScalarBuffer::from(out), None)
}

/// The extreme valid value of each segment and its position in the segment.
fn extremes<T: Native, O: OffsetSize>(
    col: &PrimitiveColumn<T>,
    offsets: &ScalarBuffer<O>,
    extreme: Extreme,
) -> Result<Vec<Option<Best<T>>>> {
    let validity = col.validity();
    per_segment(col, offsets, |segment, first| {
        let mut best = None;
        for (i, &v) in segment.iter().enumerate() {
            if validity.is_none_or(|m| m.is_valid(first + i)) {
                best = extreme.step(best, i, v);
            }
        }
        best
    })
}

/// Least or greatest valid value per segment, null where there is none; see
/// [`ragged_core::Primitives::segmented_min`].
pub(crate) fn segmented_extreme<T: Native, O: OffsetSize>(
    col: &PrimitiveColumn<T>,
    offsets: &ScalarBuffer<O>,
    extreme: Extreme,
) -> Result<PrimitiveColumn<T>> {
    let best = extremes(col, offsets, extreme)?;
    let values: Vec<T> = best
        .iter()
        .map(|b| b.map_or_else(|| extreme.identity(), |b| b.value))
        .collect();
    let valid: Vec<bool> = best.iter().map(Option::is_some).collect();
    PrimitiveColumn::try_new(ScalarBuffer::from(values), validity_from_flags(valid))
}

/// Position in its segment of each segment's least or greatest valid value, null
/// where there is none; see [`ragged_core::Primitives::segmented_argmin`].
pub(crate) fn segmented_arg_extreme<T: Native, O: OffsetSize>(
    col: &PrimitiveColumn<T>,
    offsets: &ScalarBuffer<O>,
    extreme: Extreme,
) -> Result<PrimitiveColumn<i64>> {
    let best = extremes(col, offsets, extreme)?;
    let rows: Vec<i64> = best.iter().map(|b| b.map_or(0, |b| b.row as i64)).collect();
    let valid: Vec<bool> = best.iter().map(Option::is_some).collect();
    PrimitiveColumn::try_new(ScalarBuffer::from(rows), validity_from_flags(valid))
}

/// Valid values per segment; see [`ragged_core::Primitives::segmented_count`].
pub(crate) fn segmented_count<T: Native, O: OffsetSize>(
    col: &PrimitiveColumn<T>,
    offsets: &ScalarBuffer<O>,
) -> Result<PrimitiveColumn<i64>> {
    let validity = col.validity();
    let counts: Vec<i64> = per_segment(col, offsets, |segment, first| match validity {
        None => segment.len() as i64,
        Some(m) => (first..first + segment.len())
            .filter(|&r| m.is_valid(r))
            .count() as i64,
    })?;
    PrimitiveColumn::try_new(ScalarBuffer::from(counts), None)
}
