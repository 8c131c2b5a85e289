//! The sequences family on the CPU: Tensor Sketch (`tensor_sketch.rs`) and the
//! distances between sketches (`pairwise_distances.rs`).

mod pairwise_distances;
mod tensor_sketch;

use ragged_core::ops::{DistanceMatrix, SequenceColumn, SequenceOps, SketchColumn, SketchPlan};
use ragged_core::Result;

use crate::CpuBackend;

impl SequenceOps for CpuBackend {
    fn tensor_sketch(&self, sequences: &SequenceColumn, plan: &SketchPlan) -> Result<SketchColumn> {
        tensor_sketch::tensor_sketch(sequences, plan)
    }

    fn pairwise_distances(
        &self,
        queries: &SketchColumn,
        references: Option<&SketchColumn>,
    ) -> Result<DistanceMatrix> {
        pairwise_distances::pairwise_distances(queries, references)
    }
}
