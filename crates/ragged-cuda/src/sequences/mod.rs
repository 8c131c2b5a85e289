//! The sequences family on the GPU: host dispatch for `kernels/sequences/*.cu`.
//!
//! - `tensor_sketch.rs`: the chunk plan of `ragged_core::ops::sequences` run as one
//!   kernel over every chunk item (a thread per frequency) and one finishing kernel per
//!   sequence (the f64 combination and the inverse transform); from host memory, the
//!   codes are uploaded in rounds that the running kernel waits for;
//! - `pairwise_distances.rs`: a tiled distance matrix.

mod pairwise_distances;
mod tensor_sketch;

use ragged_core::ops::{DistanceMatrix, SequenceColumn, SequenceOps, SketchColumn, SketchPlan};
use ragged_core::{Host, Result};

use crate::memory::Device;
use crate::CudaBackend;

impl SequenceOps for CudaBackend {
    fn tensor_sketch(
        &self,
        sequences: &SequenceColumn<Device>,
        plan: &SketchPlan,
    ) -> Result<SketchColumn<Device>> {
        tensor_sketch::tensor_sketch(self, sequences, plan)
    }

    fn tensor_sketch_host(
        &self,
        sequences: &SequenceColumn<Host>,
        plan: &SketchPlan,
    ) -> Result<SketchColumn<Host>> {
        tensor_sketch::tensor_sketch_host(self, sequences, plan)
    }

    fn pairwise_distances(
        &self,
        queries: &SketchColumn<Device>,
        references: Option<&SketchColumn<Device>>,
    ) -> Result<DistanceMatrix<Device>> {
        pairwise_distances::pairwise_distances(self, queries, references)
    }
}
