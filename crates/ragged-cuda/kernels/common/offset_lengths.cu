// offset_lengths: the length of each row of an offsets buffer, offsets[i + 1] - offsets[i],
// in the offset type. The kernel behind `length_bytes` (strings) and `counts` (lists),
// which are the same computation over different columns.
//
// Mapping: one thread per row, grid-stride loop; neighbouring threads read neighbouring
// offsets, so loads and stores are coalesced.
// Complexity: O(rows) work, one read of the offsets and one write of the lengths.
#include "common/ragged.cuh"

template <typename O>
__device__ void offset_lengths(const O* offsets, uint64_t rows, O* out) {
    for (uint64_t row = ragged::global_thread(); row < rows; row += ragged::grid_threads()) {
        out[row] = offsets[row + 1] - offsets[row];
    }
}

#define RAGGED_OFFSET_LENGTHS(O, NAME)                                                      \
    extern "C" __global__ void offset_lengths_##NAME(const O* offsets, uint64_t rows, O* out) { \
        offset_lengths<O>(offsets, rows, out);                                              \
    }
RAGGED_OFFSET_LENGTHS(int32_t, i32)
RAGGED_OFFSET_LENGTHS(int64_t, i64)
