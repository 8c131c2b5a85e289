//! Squared L2 distances between sketches on the CPU: rayon over query rows, each
//! distance a float32 sum over the dimension in eight independent partial sums (so the
//! loop vectorizes), as the GPU kernel sums in a fixed order of its own.

use ragged_core::ops::{check_distance_args, DistanceMatrix, SketchColumn};
use ragged_core::{Result, ScalarBuffer};
use rayon::prelude::*;

use crate::output_vec;

pub(super) fn pairwise_distances(
    queries: &SketchColumn,
    references: Option<&SketchColumn>,
) -> Result<DistanceMatrix> {
    let (rows, cols) = check_distance_args(queries, references)?;
    let references = references.unwrap_or(queries);
    let mut values = output_vec::<f32>(rows * cols);
    if cols > 0 {
        values
            .par_chunks_mut(cols)
            .enumerate()
            .for_each(|(i, out)| {
                let a = queries.row(i);
                for (j, d) in out.iter_mut().enumerate() {
                    *d = squared_distance(a, references.row(j));
                }
            });
    }
    DistanceMatrix::try_new(ScalarBuffer::from(values), rows, cols)
}

/// `Σ (a[i] − b[i])²` in eight partial sums.
fn squared_distance(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            let d = x[l] - y[l];
            lanes[l] += d * d;
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| (x - y) * (x - y)).sum();
    lanes.iter().sum::<f32>() + tail
}
