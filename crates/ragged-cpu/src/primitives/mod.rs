//! The primitives family on the CPU.

mod reduce;

use ragged_core::{Native, PrimitiveColumn, Primitives, Result};

use crate::CpuBackend;

impl Primitives for CpuBackend {
    fn reduce_sum<T: Native>(&self, col: &PrimitiveColumn<T>) -> Result<T::Sum> {
        reduce::reduce_sum(col)
    }
}
