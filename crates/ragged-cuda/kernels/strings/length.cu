// length: characters (length_chars) of each row of a strings
// column, written in the column's offset type.
//
// length_chars: a row's character count is the number of its bytes that are not UTF-8
// continuation bytes (0b10xxxxxx); rows are valid UTF-8, so this is exact.
//   Mapping: one warp per row. Lanes read the row's bytes in a strided loop (32
//   consecutive bytes per step, coalesced), count lead bytes, and a warp reduction
//   (CUB WarpReduce) gives the total; lane 0 writes it. A warp per row keeps long rows
//   from serializing one thread; short rows cost one step.
//   Pseudo-code: for row in warps: n = sum over lanes of #{b in row[lane::32] : (b & 0xC0) != 0x80}
// (length_bytes is common/offset_lengths.cu: it needs only the offsets.)
// Complexity: O(bytes + rows) work.
#include "common/ragged.cuh"
#include <cub/warp/warp_reduce.cuh>

template <typename O>
__device__ void length_chars(const O* offsets, const uint8_t* values, uint64_t rows, O* out) {
    typedef cub::WarpReduce<unsigned long long> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp[8];  // blockDim.x <= 256
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp_in_block = threadIdx.x >> 5;
    const uint64_t warps = ragged::grid_threads() >> 5;
    for (uint64_t row = ragged::global_thread() >> 5; row < rows; row += warps) {
        const int64_t begin = static_cast<int64_t>(offsets[row]);
        const int64_t end = static_cast<int64_t>(offsets[row + 1]);
        unsigned long long count = 0;
        for (int64_t b = begin + lane; b < end; b += 32) {
            count += (values[b] & 0xC0u) != 0x80u;
        }
        const unsigned long long total = WarpReduce(temp[warp_in_block]).Sum(count);
        if (lane == 0) out[row] = static_cast<O>(total);
    }
}

#define RAGGED_LENGTH(O, NAME)                                                              \
    extern "C" __global__ void __launch_bounds__(256) length_chars_##NAME(                  \
        const O* offsets, const uint8_t* values, uint64_t rows, O* out) {                   \
        length_chars<O>(offsets, values, rows, out);                                        \
    }
RAGGED_LENGTH(int32_t, i32)
RAGGED_LENGTH(int64_t, i64)
