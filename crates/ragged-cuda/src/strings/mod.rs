//! The strings family on the GPU.

mod length;

use ragged_core::{OffsetSize, PrimitiveColumn, Result, StringColumn, StringOps};

use crate::memory::Device;
use crate::CudaBackend;

impl StringOps for CudaBackend {
    fn length<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        length::length(self, col)
    }

    fn length_bytes<O: OffsetSize>(
        &self,
        col: &StringColumn<O, Device>,
    ) -> Result<PrimitiveColumn<O, Device>> {
        length::length_bytes(self, col)
    }
}
