//! Stream compaction: `select_mask` (rows whose mask entry is valid and `true`) and
//! `select_if` (rows satisfying a predicate). Null rows are never selected.
//!
//! Mapping: count → prefix → fill.
//!
//! ```text
//! pass 1 (parallel):   count[c] = number of kept rows of chunk c
//! prefix (sequential): the output is cut into consecutive pieces of count[c] slots
//! pass 2 (parallel):   chunk c writes its kept values (and rows) into its piece, in order
//! ```
//!
//! The output has no validity bitmap; indices are input rows as `u64`.
//! Complexity: O(n) work, two reads of the input, one write of the output.

use rayon::prelude::*;

use ragged_core::ops::{Predicate, Selection};
use ragged_core::{BooleanColumn, Error, Host, Native, PrimitiveColumn, Result, ScalarBuffer};

use super::{for_each_row, split_by_lengths};
use crate::CHUNK;

/// The valid rows for which `keep(row, value)` holds, and optionally their rows.
fn select<T: Native>(
    col: &PrimitiveColumn<T>,
    keep: impl Fn(usize, T) -> bool + Sync,
    with_indices: bool,
) -> Result<Selection<T, Host>> {
    let values: &[T] = col.values();
    let validity = col.validity();
    let kept = |base: usize, i: usize, v: T, valid: bool| valid && keep(base + i, v);

    // Pass 1: kept rows per chunk.
    let counts: Vec<usize> = values
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk_index, chunk)| {
            let base = chunk_index * CHUNK;
            let mut count = 0usize;
            for_each_row(chunk, validity, base, |i, v, valid| {
                count += usize::from(kept(base, i, v, valid));
            });
            count
        })
        .collect();
    let total: usize = counts.iter().sum();

    // Pass 2: each chunk fills its own piece of the outputs.
    let mut out_values = crate::output_vec::<T>(total);
    let mut out_rows = if with_indices {
        vec![0u64; total]
    } else {
        Vec::new()
    };
    let value_parts = split_by_lengths(&mut out_values, &counts);
    let row_parts = if with_indices {
        split_by_lengths(&mut out_rows, &counts)
    } else {
        counts.iter().map(|_| <&mut [u64]>::default()).collect()
    };
    value_parts
        .into_par_iter()
        .zip(row_parts)
        .zip(values.par_chunks(CHUNK))
        .enumerate()
        .for_each(|(chunk_index, ((out, rows), chunk))| {
            let base = chunk_index * CHUNK;
            let mut next = 0usize;
            for_each_row(chunk, validity, base, |i, v, valid| {
                if kept(base, i, v, valid) {
                    out[next] = v;
                    if with_indices {
                        rows[next] = (base + i) as u64;
                    }
                    next += 1;
                }
            });
        });

    Ok(Selection {
        values: PrimitiveColumn::try_new(ScalarBuffer::from(out_values), None)?,
        indices: with_indices.then(|| ScalarBuffer::from(out_rows)),
    })
}

/// The valid rows whose mask entry is valid and `true`; see
/// [`ragged_core::Primitives::select_mask`].
pub(crate) fn select_mask<T: Native>(
    col: &PrimitiveColumn<T>,
    mask: &BooleanColumn,
    with_indices: bool,
) -> Result<Selection<T, Host>> {
    if mask.len() != col.len() {
        return Err(Error::LengthMismatch {
            op: "select_mask",
            what: "mask",
            expected: col.len(),
            actual: mask.len(),
        });
    }
    let bits = mask.values();
    let mask_validity = mask.validity();
    select(
        col,
        |row, _| bits.is_valid(row) && mask_validity.is_none_or(|m| m.is_valid(row)),
        with_indices,
    )
}

/// The valid rows satisfying `predicate`; see [`ragged_core::Primitives::select_if`].
pub(crate) fn select_if<T: Native>(
    col: &PrimitiveColumn<T>,
    predicate: Predicate<T>,
    with_indices: bool,
) -> Result<Selection<T, Host>> {
    select(col, |_, v| predicate.test(v), with_indices)
}
