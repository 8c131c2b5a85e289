//! `length` (characters) and `length_bytes` of each row of a strings column.
//!
//! Mapping: rows in chunks of [`CHUNK`] across rayon tasks. A row's character count is
//! the number of its bytes that are not UTF-8 continuation bytes (`0b10xx_xxxx`);
//! rows are valid UTF-8 by construction, so this is exact. Rows go in blocks of
//! [`ASCII_BLOCK`]: when a block's bytes are all ASCII (one SIMD `is_ascii` over the
//! block's contiguous bytes) its lengths are the offset differences, so ASCII text is
//! measured at memory speed; other blocks count row by row. Null rows get the value
//! computed from their bytes and stay null through the copied validity.

use rayon::prelude::*;

use ragged_core::{OffsetSize, PrimitiveColumn, Result, ScalarBuffer, StringColumn};

use crate::CHUNK;
use ragged_core::ops::char_count;

/// Rows per ASCII check: small enough that one non-ASCII row slows few others.
const ASCII_BLOCK: usize = 1024;

/// Characters per row; see [`ragged_core::StringOps::length`].
pub(crate) fn length<O: OffsetSize>(col: &StringColumn<O>) -> Result<PrimitiveColumn<O>> {
    let offsets: &[O] = col.offsets();
    let values: &[u8] = col.values();
    let mut out = vec![O::usize_as(0); col.len()];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(chunk_index, chunk)| {
            for (block_index, block) in chunk.chunks_mut(ASCII_BLOCK).enumerate() {
                let base = chunk_index * CHUNK + block_index * ASCII_BLOCK;
                let bounds = &offsets[base..base + block.len() + 1];
                let bytes = &values[bounds[0].as_usize()..bounds[block.len()].as_usize()];
                if bytes.is_ascii() {
                    for (slot, w) in block.iter_mut().zip(bounds.windows(2)) {
                        *slot = w[1] - w[0];
                    }
                } else {
                    for (slot, w) in block.iter_mut().zip(bounds.windows(2)) {
                        *slot = O::usize_as(char_count(&values[w[0].as_usize()..w[1].as_usize()]));
                    }
                }
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
