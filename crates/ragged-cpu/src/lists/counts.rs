//! `counts`: the number of elements of each list, `offsets[i + 1] - offsets[i]`.
//!
//! Mapping: chunks of [`CHUNK`] lists in parallel, each writing its own piece of an
//! output that is not zeroed first.
//!
//! Complexity: O(n) work, one read of the offsets, one write.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use ragged_core::{ListColumn, OffsetSize, PrimitiveColumn, Result, ScalarBuffer};

use crate::{filled_output_vec, CHUNK};

/// Elements per list; see [`ragged_core::ListOps::counts`].
pub(crate) fn counts<O: OffsetSize>(col: &ListColumn<O>) -> Result<PrimitiveColumn<O>> {
    let offsets: &[O] = col.offsets();
    let n = col.len();
    let fill = |out: &mut [MaybeUninit<O>]| {
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, part)| {
            let ends = &offsets[c * CHUNK..c * CHUNK + part.len() + 1];
            for (slot, w) in part.iter_mut().zip(ends.windows(2)) {
                slot.write(w[1] - w[0]);
            }
        });
    };
    // SAFETY: the chunks cover the n slots, and each chunk's `part.len()` windows of
    // its `part.len() + 1` offsets write every slot of its part.
    let out = unsafe { filled_output_vec(n, fill) };
    PrimitiveColumn::try_new(ScalarBuffer::from(out), col.validity().cloned())
}
