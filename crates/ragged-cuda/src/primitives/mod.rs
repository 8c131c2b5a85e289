//! The primitives family on the GPU.

mod reduce;

use ragged_core::{Native, PrimitiveColumn, Primitives, Result};

use crate::memory::Device;
use crate::CudaBackend;

impl Primitives for CudaBackend {
    fn reduce_sum<T: Native>(&self, col: &PrimitiveColumn<T, Device>) -> Result<T::Sum> {
        reduce::reduce_sum(self, col)
    }
}
