//! `reduce_sum`: the sum of the valid values of a primitive column.
//!
//! Mapping: the values are cut into chunks of [`CHUNK`] elements; rayon sums each chunk
//! (skipping nulls through the validity bitmap) and the chunk sums are combined.
//! Integer partial sums are kept in 128 bits and only the total is checked against the
//! accumulator type, so overflow is an error, never a wrap, whatever the order.

use rayon::prelude::*;

use ragged_core::{Error, Native, PrimitiveColumn, Result};

use crate::CHUNK;

/// Sum of the valid values; see [`ragged_core::Primitives::reduce_sum`].
pub(crate) fn reduce_sum<T: Native>(col: &PrimitiveColumn<T>) -> Result<T::Sum> {
    let values: &[T] = col.values();
    let validity = col.validity();
    let chunk_sum = |(chunk_index, chunk): (usize, &[T])| -> T::Wide {
        let base = chunk_index * CHUNK;
        match validity {
            None => chunk
                .iter()
                .fold(T::wide_zero(), |acc, &v| T::wide_add(acc, v)),
            Some(valid) => chunk
                .iter()
                .enumerate()
                .fold(T::wide_zero(), |acc, (i, &v)| {
                    if valid.is_valid(base + i) {
                        T::wide_add(acc, v)
                    } else {
                        acc
                    }
                }),
        }
    };
    let total = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(chunk_sum)
        .reduce(T::wide_zero, T::wide_merge);
    T::wide_total(total).ok_or_else(|| Error::Overflow {
        op: "reduce_sum",
        message: format!(
            "the sum of {} values does not fit {}",
            T::NAME,
            sum_name::<T>()
        ),
    })
}

fn sum_name<T: Native>() -> &'static str {
    <T::Sum as Native>::NAME
}
