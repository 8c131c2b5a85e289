// segmented_tiles.cuh: segmented sums of integers of at most 32 bits by tiles of
// elements (prefix differences), whatever the segment lengths. Used by
// primitives/segmented_reduce.cu (segmented_sum, and list_sum of src/lists/reduce.rs).
//
// Such sums accumulate exactly in 64 bits (a segment has far fewer than 2^32 values),
// and integer addition gives the same result in any order, so a segment's sum can be
// taken as P(end) - P(begin) of running sums, and a segment cut by tiles can be
// finished by 64-bit atomic adds of its parts. The element range of the segments,
// lo .. hi, is cut into tiles of TileSumShape<T>::TILE elements (16 KiB), the first
// starting on a 16-byte boundary at `base` <= lo; one block per tile:
//   1. segment_tiles (a thread per segment): first[t] = the segment holding tile t's
//      first element (first[0] = 0, first[tiles] = segments - 1), and out[s] = 0 for
//      every segment that is empty, null or spans more than one tile.
//   2. tile_sums (a block per tile): thread i reads the tile's 16-byte vectors
//      i, i + 256, i + 512, i + 768 (coalesced) and stages them in shared memory
//      (nulls and elements outside lo .. hi as 0); it then sums vectors 4i .. 4i + 3,
//      and one block scan of those sums gives every vector's prefix P (the sum of the
//      tile's elements before it).
//      Each segment that meets the tile (first[t] .. first[t + 1], a thread per
//      segment) takes P at the two ends of its part — a vector prefix plus at most
//      VEC - 1 staged elements — and stores the difference when the segment lies in
//      the tile, or adds it atomically otherwise.
// No element is tested against a segment boundary; per segment the work is two
// lookups in shared memory, so the rate does not depend on how the lengths vary.
// Null segments (optional segment validity bitmap) get 0 and their elements count for
// no segment.
// Pseudo-code: out[s] = P(offsets[s + 1]) - P(offsets[s]), P(p) = sum(x[lo .. p))
// Complexity: O(n + segments) work; elements read once, offsets read twice.
#pragma once
#include "common/primitives.cuh"
#include <cub/block/block_scan.cuh>

namespace ragged {

/// Threads per block of the tile kernels (the host launches 256).
constexpr int TILE_SUM_BLOCK = 256;

/// 16-byte vectors each thread reads per tile.
constexpr int TILE_SUM_VECTORS = 4;

/// The tile of tile_sums for element type T: VEC elements per 16-byte vector and TILE
/// elements per tile (16 KiB whatever T is; the host's TILE_SUM_BYTES).
template <typename T> struct TileSumShape {
    static constexpr int VEC = 16 / sizeof(T);
    static constexpr int VECTORS = TILE_SUM_BLOCK * TILE_SUM_VECTORS;
    static constexpr long long TILE = static_cast<long long>(VECTORS) * VEC;
};

/// Step 1, a thread per segment: the segment holding each tile's first element, and
/// the result 0 for the segments tile_sums only adds to (spanning tiles) or skips
/// (empty or null). Tile t starts at base + t * tile; tiles = ceil((hi - base) / tile).
template <typename O>
__device__ __forceinline__ void segment_tiles(const O* offsets, const uint8_t* segment_validity,
                                              uint64_t segment_bit_offset, uint64_t segments, long long base,
                                              long long tile, uint64_t tiles, unsigned long long* first,
                                              unsigned long long* out) {
    for (uint64_t s = global_thread(); s < segments; s += grid_threads()) {
        const long long b = static_cast<long long>(offsets[s]), e = static_cast<long long>(offsets[s + 1]);
        if (s == 0) first[0] = 0;
        if (s + 1 == segments) first[tiles] = segments - 1;
        if (b >= e) {
            out[s] = 0;
            continue;
        }
        // The tiles t >= 1 whose first element lies in b .. e (tile 0 starts at or
        // before lo, where first[0] = 0 already points).
        const long long t_last = (e - 1 - base) / tile;
        long long t = (b - base + tile - 1) / tile;
        for (t = t < 1 ? 1 : t; t <= t_last; ++t) first[t] = s;
        if ((b - base) / tile != t_last || !is_valid(segment_validity, segment_bit_offset, s)) out[s] = 0;
    }
}

/// The shared-memory slot of a tile's vector k: k with its low three bits XORed by the
/// next three, so that both the coalesced stores (a quarter warp's eight consecutive
/// vectors) and the per-thread reads (vectors 4i .. 4i + 3 of eight consecutive threads)
/// hit eight different 16-byte bank groups.
__device__ __forceinline__ int tile_slot(int k) { return k ^ ((k >> 3) & 7); }

/// Step 2, a block per tile: the sum of each segment's part of tile blockIdx.x, stored
/// (segment inside the tile) or added atomically (segment spanning tiles; step 1 set
/// it to 0). Null segments (segment_validity) are skipped; null elements count 0.
template <typename T, typename O>
__device__ __forceinline__ void tile_sums(const T* values, const uint8_t* validity, uint64_t bit_offset,
                                          const O* offsets, const uint8_t* segment_validity,
                                          uint64_t segment_bit_offset, const unsigned long long* first,
                                          long long base, long long lo, long long hi,
                                          typename SumTraits<T>::Thread* out) {
    typedef TileSumShape<T> Shape;
    typedef typename SumTraits<T>::Thread S;
    static_assert(sizeof(T) <= 4 && sizeof(S) == 8, "tile sums serve integers of at most 32 bits");
    constexpr int VEC = Shape::VEC, VECTORS = Shape::VECTORS;
    typedef cub::BlockScan<S, TILE_SUM_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> BlockScan;
    // Vector k of the tile (elements ts + k * VEC ..) is stage[tile_slot(k)]; prefix[k]
    // is the sum of the tile's elements before it, prefix[VECTORS] the tile's total.
    __shared__ uint4 stage[VECTORS];
    __shared__ S prefix[VECTORS + 1];
    __shared__ typename BlockScan::TempStorage scan;

    const long long ts = base + static_cast<long long>(blockIdx.x) * Shape::TILE;
    const unsigned long long s_first = first[blockIdx.x], s_last = first[blockIdx.x + 1];
    // This thread's first segment's offsets, loaded with the elements.
    const unsigned long long s0 = s_first + threadIdx.x;
    long long b0 = 0, e0 = 0;
    if (s0 <= s_last) {
        b0 = static_cast<long long>(offsets[s0]);
        e0 = static_cast<long long>(offsets[s0 + 1]);
    }

    // Vectors threadIdx.x + 256 u, coalesced; nulls and elements outside lo .. hi as 0.
    {
        uint4 w[TILE_SUM_VECTORS];
#pragma unroll
        for (int u = 0; u < TILE_SUM_VECTORS; ++u) {
            const long long at = ts + static_cast<long long>(u * TILE_SUM_BLOCK + threadIdx.x) * VEC;
            if (at >= lo && at + VEC <= hi) {
                w[u] = __ldg(reinterpret_cast<const uint4*>(values + at));
            } else {
                T e[VEC];
#pragma unroll
                for (int i = 0; i < VEC; ++i) e[i] = at + i >= lo && at + i < hi ? values[at + i] : T(0);
                memcpy(&w[u], e, 16);
            }
        }
#pragma unroll
        for (int u = 0; u < TILE_SUM_VECTORS; ++u) {
            const int k = u * TILE_SUM_BLOCK + threadIdx.x;
            if (validity != nullptr) {
                const long long at = ts + static_cast<long long>(k) * VEC;
                T e[VEC];
                memcpy(e, &w[u], 16);
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    if (at + i >= lo && at + i < hi && !is_valid(validity, bit_offset, at + i)) e[i] = T(0);
                memcpy(&w[u], e, 16);
            }
            stage[tile_slot(k)] = w[u];
        }
    }
    __syncthreads();
    // This thread's four consecutive vectors 4i .. 4i + 3: their sums, scanned.
    S sums[TILE_SUM_VECTORS], mine = 0;
#pragma unroll
    for (int u = 0; u < TILE_SUM_VECTORS; ++u) {
        const uint4 w = stage[tile_slot(TILE_SUM_VECTORS * threadIdx.x + u)];
        T e[VEC];
        memcpy(e, &w, 16);
        S sum = 0;
#pragma unroll
        for (int i = 0; i < VEC; ++i) sum += static_cast<S>(e[i]);
        sums[u] = sum;
        mine += sum;
    }
    S before, total;
    BlockScan(scan).ExclusiveSum(mine, before, total);
#pragma unroll
    for (int u = 0; u < TILE_SUM_VECTORS; ++u) {
        prefix[TILE_SUM_VECTORS * threadIdx.x + u] = before;
        before += sums[u];
    }
    if (threadIdx.x == 0) prefix[VECTORS] = total;
    __syncthreads();

    // P(q): the sum of the tile's elements before local position q (0 <= q <= TILE).
    auto prefix_at = [&](long long q) -> S {
        const int k = static_cast<int>(q / VEC), r = static_cast<int>(q % VEC);
        S p = prefix[k];
        if (r != 0) {
            const uint4 w = stage[tile_slot(k)];
            T e[VEC];
            memcpy(e, &w, 16);
#pragma unroll
            for (int i = 0; i + 1 < VEC; ++i)
                if (i < r) p += static_cast<S>(e[i]);
        }
        return p;
    };
    const long long te = ts + Shape::TILE;
    for (unsigned long long s = s0; s <= s_last; s += TILE_SUM_BLOCK) {
        long long b = b0, e = e0;
        if (s != s0) {
            b = static_cast<long long>(offsets[s]);
            e = static_cast<long long>(offsets[s + 1]);
        }
        const long long cb = b > ts ? b : ts, ce = e < te ? e : te;
        if (cb >= ce || !is_valid(segment_validity, segment_bit_offset, s)) continue;
        const S part = prefix_at(ce - ts) - prefix_at(cb - ts);
        if (b >= ts && e <= te) out[s] = part;
        else atomicAdd(reinterpret_cast<unsigned long long*>(out + s), static_cast<unsigned long long>(part));
    }
}

}  // namespace ragged
