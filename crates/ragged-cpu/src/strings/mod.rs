//! The strings family on the CPU.

mod length;

use ragged_core::{OffsetSize, PrimitiveColumn, Result, StringColumn, StringOps};

use crate::CpuBackend;

impl StringOps for CpuBackend {
    fn length<O: OffsetSize>(&self, col: &StringColumn<O>) -> Result<PrimitiveColumn<O>> {
        length::length(col)
    }

    fn length_bytes<O: OffsetSize>(&self, col: &StringColumn<O>) -> Result<PrimitiveColumn<O>> {
        length::length_bytes(col)
    }
}
