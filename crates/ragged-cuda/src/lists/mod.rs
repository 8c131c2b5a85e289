//! The lists family on the GPU.

mod counts;

use ragged_core::{ListColumn, ListOps, OffsetSize, PrimitiveColumn, Result};

use crate::memory::Device;
use crate::CudaBackend;

impl ListOps for CudaBackend {
    fn counts<O: OffsetSize>(
        &self,
        col: &ListColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        counts::counts(self, col)
    }
}
