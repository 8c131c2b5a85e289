//! The text (lines) family on the CPU: the tiled delimiter scan and record boundaries
//! (`line_ends.rs`, also `count_lines`) and the records column (`split_lines.rs`).
//!
//! The semantics are those of `ragged_core::ops::text`; where the contract leaves a
//! choice open, this backend decides and the others follow:
//! - with no record in the range, `line_ends` is the one entry `min(range start, len)`;
//! - a keep-delimiter strings column shares the input buffer (zero-copy slice);
//! - UTF-8 errors name the lowest bad record and the byte within the output row (with
//!   the delimiter when it is kept).

mod line_ends;
mod split_lines;

use ragged_core::ops::{LinePlan, LinesColumn, TextOps};
use ragged_core::{PrimitiveColumn, Result, ScalarBuffer};

use crate::CpuBackend;

impl TextOps for CpuBackend {
    fn split_lines(&self, bytes: &ScalarBuffer<u8>, plan: &LinePlan) -> Result<LinesColumn> {
        split_lines::split_lines(bytes, plan)
    }

    fn line_ends(&self, bytes: &ScalarBuffer<u8>, plan: &LinePlan) -> Result<PrimitiveColumn<i64>> {
        let ends = line_ends::record_boundaries(bytes, plan).ends;
        PrimitiveColumn::try_new(ScalarBuffer::from(ends), None)
    }

    fn count_lines(&self, bytes: &ScalarBuffer<u8>, plan: &LinePlan) -> Result<u64> {
        Ok(line_ends::count_lines(bytes, plan))
    }
}
