// pairwise_distances: squared L2 distances between two sets of sketches (rows x D and
// cols x D, row-major) into a rows x cols matrix.
//
// Mapping: a 16 x 16 thread block computes a 16 x 16 tile of the matrix (tiles numbered
// row-major over a one-dimensional grid, tiles_x to a row). The block walks
// the dimension in steps of 16, staging 16 query rows and 16 reference rows of that
// step in shared memory (coalesced loads), and each thread accumulates
// sum (q[i][d] - r[j][d])^2 for its (i, j) in float32.
// Complexity: rows * cols * D multiply-adds; each input element is read from global
// memory rows/16 or cols/16 times (served mostly by L2).
#include "common/ragged.cuh"

constexpr int TILE = 16;

extern "C" __global__ void __launch_bounds__(TILE * TILE)
pairwise_distances(const float* __restrict__ queries, const float* __restrict__ references, long long rows,
                   long long cols, int dim, long long tiles_x, float* __restrict__ out) {
    __shared__ float q[TILE][TILE + 1];
    __shared__ float r[TILE][TILE + 1];
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const long long tile = blockIdx.x;
    const long long i0 = tile / tiles_x * TILE, j0 = tile % tiles_x * TILE;
    float acc = 0.f;
    for (int d0 = 0; d0 < dim; d0 += TILE) {
        const int d = d0 + tx;
        q[ty][tx] = (i0 + ty < rows && d < dim) ? queries[(i0 + ty) * dim + d] : 0.f;
        r[ty][tx] = (j0 + ty < cols && d < dim) ? references[(j0 + ty) * dim + d] : 0.f;
        __syncthreads();
#pragma unroll
        for (int e = 0; e < TILE; ++e) {
            const float diff = q[ty][e] - r[tx][e];
            acc = fmaf(diff, diff, acc);
        }
        __syncthreads();
    }
    if (i0 + ty < rows && j0 + tx < cols) out[(i0 + ty) * cols + j0 + tx] = acc;
}
