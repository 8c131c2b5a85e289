//! `pairwise_distances` on the GPU: host dispatch for
//! `kernels/sequences/pairwise_distances.cu` (16 × 16 tiles of the matrix).

use ragged_core::ops::{check_distance_args, DistanceMatrix, SketchColumn};
use ragged_core::Result;

use crate::compile::SEQUENCES_PAIRWISE_DISTANCES;
use crate::launch::{launch, params};
use crate::memory::Device;
use crate::CudaBackend;

const TILE: usize = 16;

pub(super) fn pairwise_distances(
    backend: &CudaBackend,
    queries: &SketchColumn<Device>,
    references: Option<&SketchColumn<Device>>,
) -> Result<DistanceMatrix<Device>> {
    let (rows, cols) = check_distance_args(queries, references)?;
    let references = references.unwrap_or(queries);
    let out = backend.alloc::<f32>(rows * cols)?;
    if rows > 0 && cols > 0 {
        let function = backend.function(&SEQUENCES_PAIRWISE_DISTANCES, "pairwise_distances")?;
        let tiles_x = cols.div_ceil(TILE);
        let tiles = tiles_x * rows.div_ceil(TILE);
        let (q, r, o) = (
            queries.values().device_ptr(),
            references.values().device_ptr(),
            out.device_ptr(),
        );
        let (rows_arg, cols_arg, dim, tiles_arg) = (
            rows as i64,
            cols as i64,
            queries.dim() as i32,
            tiles_x as i64,
        );
        let mut args = params![q, r, rows_arg, cols_arg, dim, tiles_arg, o];
        let grid = u32::try_from(tiles).map_err(|_| {
            ragged_core::Error::invalid_argument(
                "pairwise_distances",
                format!("{rows} × {cols} distances need more than 2^32 tiles"),
            )
        })?;
        // SAFETY: `pairwise_distances(const float*, const float*, long long, long long,
        // int, long long, float*)`: reads rows × dim and cols × dim sketch values (both
        // columns have dimension dim, checked above) and writes rows × cols distances
        // (allocated above), one 16 × 16 tile per block.
        unsafe {
            launch(
                function,
                grid,
                (TILE * TILE) as u32,
                0,
                backend.stream(),
                &mut args,
            )?
        };
    }
    DistanceMatrix::try_new(out, rows, cols)
}
