// counts: the number of elements of each list, offsets[i + 1] - offsets[i], in the
// column's offset type.
//
// Mapping: one thread per list, grid-stride loop; neighbouring threads read
// neighbouring offsets, so loads and stores are coalesced.
// Complexity: O(rows) work, one read of the offsets and one write of the counts.
#include "common/ragged.cuh"

template <typename O>
__device__ void counts_lists(const O* offsets, uint64_t rows, O* out) {
    for (uint64_t row = ragged::global_thread(); row < rows; row += ragged::grid_threads()) {
        out[row] = offsets[row + 1] - offsets[row];
    }
}

#define RAGGED_COUNTS(O, NAME)                                                              \
    extern "C" __global__ void counts_lists_##NAME(const O* offsets, uint64_t rows, O* out) { \
        counts_lists<O>(offsets, rows, out);                                                \
    }
RAGGED_COUNTS(int32_t, i32)
RAGGED_COUNTS(int64_t, i64)
