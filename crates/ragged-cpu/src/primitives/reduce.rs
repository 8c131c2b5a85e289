//! Reductions of a whole column to one value: `reduce_sum`, `reduce_sum_f64`,
//! `reduce_min`, `reduce_max`, `reduce_argmin`, `reduce_argmax`, `count_valid`,
//! `count_if`, `reduce_any`, `reduce_all`.
//!
//! Mapping: the values are cut into chunks of [`CHUNK`] elements; rayon reduces each
//! chunk (skipping nulls through the validity bitmap) and the chunk results are
//! combined in row order. Integer partial sums are kept in 128 bits and only the total
//! is checked against the accumulator type, so overflow is an error, never a wrap,
//! whatever the order. Extremes combine `(value, row)` pairs with the rule of
//! [`Extreme::replaces`]: the lowest row among equal extremes, NaN ignored unless every
//! valid value is NaN.
//!
//! Complexity: O(n) work, one read of the values and of the validity bitmap.

use arrow_buffer::BooleanBuffer;
use rayon::prelude::*;

use ragged_core::ops::{Predicate, Transform};
use ragged_core::{BooleanColumn, Error, Native, PrimitiveColumn, Result};

use super::{for_each_row, transformed, Best, Extreme};
use crate::CHUNK;

/// Sum of the valid values; see [`ragged_core::Primitives::reduce_sum`].
pub(crate) fn reduce_sum<T: Native>(col: &PrimitiveColumn<T>) -> Result<T::Sum> {
    let values: &[T] = col.values();
    let validity = col.validity();
    let total = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            if validity.is_none() {
                // No nulls: eight independent lanes, vectorized.
                return T::sum_slice(chunk);
            }
            let mut acc = T::wide_zero();
            for_each_row(chunk, validity, chunk_index * CHUNK, |_, v, valid| {
                if valid {
                    acc = T::wide_add(acc, v);
                }
            });
            acc
        })
        .reduce(T::wide_zero, T::wide_merge);
    T::wide_total(total).ok_or_else(|| Error::Overflow {
        op: "reduce_sum",
        message: format!(
            "the sum of {} values does not fit {}",
            T::NAME,
            <T::Sum as Native>::NAME
        ),
    })
}

/// Sum of `transform(x)` over the valid values, in `f64`; see
/// [`ragged_core::Primitives::reduce_sum_f64`].
pub(crate) fn reduce_sum_f64<T: Native>(col: &PrimitiveColumn<T>, transform: Transform) -> f64 {
    let values: &[T] = col.values();
    let validity = col.validity();
    values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let mut acc = 0.0f64;
            for_each_row(chunk, validity, chunk_index * CHUNK, |_, v, valid| {
                if valid {
                    acc += transformed(transform, v);
                }
            });
            acc
        })
        .reduce(|| 0.0, |a, b| a + b)
}

/// The extreme valid value and its row, `None` when no row is valid; see
/// [`ragged_core::Primitives::reduce_min`] and the arg forms.
pub(crate) fn reduce_extreme<T: Native>(
    col: &PrimitiveColumn<T>,
    extreme: Extreme,
) -> Option<Best<T>> {
    let values: &[T] = col.values();
    let validity = col.validity();
    // `collect` keeps the chunks in row order, so the merge below always has the
    // earlier rows on the left (rayon's `reduce` would too, but this states it).
    let per_chunk: Vec<Option<Best<T>>> = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let base = chunk_index * CHUNK;
            let mut best = None;
            for_each_row(chunk, validity, base, |i, v, valid| {
                if valid {
                    best = extreme.step(best, base + i, v);
                }
            });
            best
        })
        .collect();
    per_chunk
        .into_iter()
        .fold(None, |acc, chunk| extreme.merge(acc, chunk))
}

/// Number of valid rows; see [`ragged_core::Primitives::count_valid`].
pub(crate) fn count_valid<T: Native>(col: &PrimitiveColumn<T>) -> usize {
    col.len() - col.null_count()
}

/// Number of valid rows satisfying `predicate`; see
/// [`ragged_core::Primitives::count_if`].
pub(crate) fn count_if<T: Native>(col: &PrimitiveColumn<T>, predicate: Predicate<T>) -> usize {
    let values: &[T] = col.values();
    let validity = col.validity();
    values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let mut count = 0usize;
            for_each_row(chunk, validity, chunk_index * CHUNK, |_, v, valid| {
                count += usize::from(valid && predicate.test(v));
            });
            count
        })
        .sum()
}

/// Number of rows that are valid and `true`, 64 rows at a time (`values AND validity`
/// word by word, counted per chunk of [`CHUNK`] rows).
fn count_true(col: &BooleanColumn) -> usize {
    let values: &BooleanBuffer = col.values().inner();
    let validity = col.validity().map(|v| v.inner());
    let len = col.len();
    (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk_index| {
            let start = chunk_index * CHUNK;
            let n = CHUNK.min(len - start);
            let bits = values.slice(start, n);
            match validity {
                None => bits.count_set_bits(),
                Some(valid) => {
                    let valid = valid.slice(start, n);
                    let (a, b) = (bits.bit_chunks(), valid.bit_chunks());
                    let words: u32 = a
                        .iter()
                        .zip(b.iter())
                        .map(|(x, y)| (x & y).count_ones())
                        .sum();
                    let tail = (a.remainder_bits() & b.remainder_bits()).count_ones();
                    (words + tail) as usize
                }
            }
        })
        .sum()
}

/// Whether any valid value is `true` (`None` when no row is valid); see
/// [`ragged_core::Primitives::reduce_any`].
pub(crate) fn reduce_any(col: &BooleanColumn) -> Option<bool> {
    let valid = col.len() - col.null_count();
    (valid > 0).then(|| count_true(col) > 0)
}

/// Whether every valid value is `true` (`None` when no row is valid); see
/// [`ragged_core::Primitives::reduce_all`].
pub(crate) fn reduce_all(col: &BooleanColumn) -> Option<bool> {
    let valid = col.len() - col.null_count();
    (valid > 0).then(|| count_true(col) == valid)
}
