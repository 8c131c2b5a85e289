// length: characters (length_chars) of each row of a strings column, written in the
// column's offset type.
//
// A row's character count is the number of its bytes that are not UTF-8 continuation
// bytes (0b10xxxxxx); rows are valid UTF-8, so this is exact.
//
// Mapping: a block takes a tile of LENGTH_BLOCK consecutive rows (one per thread),
// grid-stride over tiles. The threads first read the tile's bytes together — aligned
// 16-byte vector loads, coalesced — and vote (__syncthreads_or) on whether any byte has
// its high bit set. An ASCII tile (the common case) then needs only the offsets: each
// thread writes end - begin. A tile with non-ASCII bytes counts lead bytes with one
// warp per row (lanes stride over the row's bytes, a warp reduction sums), so that a
// very long row is split over 32 lanes rather than serialized on one thread; its bytes
// were just read, so they come from cache.
// Pseudo-code: for tile: if all bytes < 0x80: out[r] = end - begin
//              else: out[r] = #{b in row : (b & 0xC0) != 0x80}
// (length_bytes is common/offset_lengths.cu: it needs only the offsets.)
// Complexity: O(bytes + rows) work; an ASCII tile reads every byte once.
#include "common/ragged.cuh"
#include <cub/warp/warp_reduce.cuh>

constexpr int LENGTH_BLOCK = 256;

/// Whether any byte of chars[begin, end) has its high bit set, for this thread's share
/// (aligned 16-byte pieces strided over the block; partial pieces at both ends byte by
/// byte, never reading outside [begin, end)).
__device__ __forceinline__ bool any_high_bit(const uint8_t* chars, long long begin, long long end) {
    const long long base = begin & ~15ll;
    unsigned high = 0;
    for (long long lo = base + 16ll * threadIdx.x; lo < end; lo += 16ll * LENGTH_BLOCK) {
        if (lo >= begin && lo + 16 <= end) {
            const uint4 v = *reinterpret_cast<const uint4*>(chars + lo);
            high |= (v.x | v.y | v.z | v.w) & 0x80808080u;
        } else {
            for (int j = 0; j < 16; ++j)
                if (lo + j >= begin && lo + j < end) high |= chars[lo + j] & 0x80u;
        }
    }
    return high != 0;
}

template <typename O>
__device__ void length_chars(const O* offsets, const uint8_t* values, uint64_t rows, O* out) {
    typedef cub::WarpReduce<unsigned long long> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp[LENGTH_BLOCK / 32];
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
    const uint64_t tiles = (rows + LENGTH_BLOCK - 1) / LENGTH_BLOCK;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t first = tile * LENGTH_BLOCK;
        const uint64_t last = first + LENGTH_BLOCK < rows ? first + LENGTH_BLOCK : rows;
        const long long tile_begin = static_cast<long long>(offsets[first]);
        const long long tile_end = static_cast<long long>(offsets[last]);
        // Every thread reaches the vote (the loop bounds are uniform over the block).
        const bool ascii = !__syncthreads_or(any_high_bit(values, tile_begin, tile_end));
        if (ascii) {
            const uint64_t row = first + threadIdx.x;
            if (row < last) out[row] = static_cast<O>(offsets[row + 1] - offsets[row]);
            continue;
        }
        for (uint64_t row = first + warp; row < last; row += LENGTH_BLOCK / 32) {
            const long long begin = static_cast<long long>(offsets[row]);
            const long long end = static_cast<long long>(offsets[row + 1]);
            unsigned long long count = 0;
            for (long long b = begin + lane; b < end; b += 32) count += (values[b] & 0xC0u) != 0x80u;
            const unsigned long long total = WarpReduce(temp[warp]).Sum(count);
            if (lane == 0) out[row] = static_cast<O>(total);
            __syncwarp();  // temp[warp] is reused by the next row
        }
    }
}

#define RAGGED_LENGTH(O, NAME)                                                              \
    extern "C" __global__ void __launch_bounds__(LENGTH_BLOCK) length_chars_##NAME(         \
        const O* offsets, const uint8_t* values, uint64_t rows, O* out) {                   \
        length_chars<O>(offsets, values, rows, out);                                        \
    }
RAGGED_LENGTH(int32_t, i32)
RAGGED_LENGTH(int64_t, i64)
