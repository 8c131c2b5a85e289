//! `length` (characters) and `length_bytes` of each row of a strings column.
//!
//! Mapping: rows in chunks of [`CHUNK`] across rayon tasks. A row's character count is
//! the number of its bytes that are not UTF-8 continuation bytes (`0b10xx_xxxx`);
//! rows are valid UTF-8 by construction, so this is exact. Null rows get the value
//! computed from their bytes and stay null through the copied validity.

use rayon::prelude::*;

use ragged_core::{OffsetSize, PrimitiveColumn, Result, ScalarBuffer, StringColumn};

use super::search::char_count;
use crate::CHUNK;

/// Characters per row; see [`ragged_core::StringOps::length`].
pub(crate) fn length<O: OffsetSize>(col: &StringColumn<O>) -> Result<PrimitiveColumn<O>> {
    let offsets: &[O] = col.offsets();
    let values: &[u8] = col.values();
    let mut out = vec![O::usize_as(0); col.len()];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(chunk_index, chunk)| {
            let base = chunk_index * CHUNK;
            for (i, slot) in chunk.iter_mut().enumerate() {
                let row = &values[offsets[base + i].as_usize()..offsets[base + i + 1].as_usize()];
                *slot = O::usize_as(char_count(row));
            }
        });
    PrimitiveColumn::try_new(ScalarBuffer::from(out), col.validity().cloned())
}

/// Bytes per row; see [`ragged_core::StringOps::length_bytes`].
pub(crate) fn length_bytes<O: OffsetSize>(col: &StringColumn<O>) -> Result<PrimitiveColumn<O>> {
    let offsets: &[O] = col.offsets();
    let out: Vec<O> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    PrimitiveColumn::try_new(ScalarBuffer::from(out), col.validity().cloned())
}
