//! `reduce_sum`: the sum of the valid values of a primitive column.
//!
//! Mapping: the values are cut into chunks of [`CHUNK`] elements; rayon sums each chunk
//! (skipping nulls through the validity bitmap) and the chunk sums are combined.
//! Integer sums are checked, so overflow of the accumulator is an error, not a wrap.

use rayon::prelude::*;

use ragged_core::{Error, Native, PrimitiveColumn, Result};

use crate::CHUNK;

/// Sum of the valid values; see [`ragged_core::Primitives::reduce_sum`].
pub(crate) fn reduce_sum<T: Native>(col: &PrimitiveColumn<T>) -> Result<T::Sum> {
    let values: &[T] = col.values();
    let validity = col.validity();
    let chunk_sum = |(chunk_index, chunk): (usize, &[T])| -> Option<T::Sum> {
        let base = chunk_index * CHUNK;
        let mut acc = T::sum_zero();
        match validity {
            None => {
                for &v in chunk {
                    acc = T::checked_accumulate(acc, v)?;
                }
            }
            Some(valid) => {
                for (i, &v) in chunk.iter().enumerate() {
                    if valid.is_valid(base + i) {
                        acc = T::checked_accumulate(acc, v)?;
                    }
                }
            }
        }
        Some(acc)
    };
    let total = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(chunk_sum)
        .try_reduce(T::sum_zero, T::checked_add_sums);
    total.ok_or_else(|| Error::Overflow {
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
