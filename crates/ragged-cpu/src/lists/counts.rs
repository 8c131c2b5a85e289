//! `counts`: the number of elements of each list, `offsets[i + 1] - offsets[i]`.
//!
//! A single sequential pass: it moves as many bytes as a copy, so threads add little
//! below memory bandwidth.

use ragged_core::{ListColumn, OffsetSize, PrimitiveColumn, Result, ScalarBuffer};

/// Elements per list; see [`ragged_core::ListOps::counts`].
pub(crate) fn counts<O: OffsetSize>(col: &ListColumn<O>) -> Result<PrimitiveColumn<O>> {
    let offsets: &[O] = col.offsets();
    let out: Vec<O> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    PrimitiveColumn::try_new(ScalarBuffer::from(out), col.validity().cloned())
}
