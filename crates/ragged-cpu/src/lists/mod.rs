//! The lists family on the CPU.

mod counts;

use ragged_core::{ListColumn, ListOps, OffsetSize, PrimitiveColumn, Result};

use crate::CpuBackend;

impl ListOps for CpuBackend {
    fn counts<O: OffsetSize>(&self, col: &ListColumn<O>) -> Result<PrimitiveColumn<O>> {
        counts::counts(col)
    }
}
