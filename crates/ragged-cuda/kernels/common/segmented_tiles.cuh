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
//      (nulls and elements outside lo .. hi as 0; a whole tile of a child without
//      nulls by cp.async, not through registers); it then sums vectors 4i .. 4i + 3,
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
#include <cuda/std/limits>
#include <cuda/std/type_traits>

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

/// The tile holding element `at` (at >= base) of tiles of `tile` elements, a power of
/// two (TILE_SUM_BYTES / sizeof(T)): a shift, not a 64-bit division (three of those
/// per segment made step 1 34 µs of a 360 µs list extreme of 2^28 elements on an H200).
__device__ __forceinline__ long long tile_of(long long at, long long base, long long tile) {
    return (at - base) >> (__ffsll(tile) - 1);
}

/// Step 1, a thread per segment: the segment holding each tile's first element, and
/// the results of the segments the tiles only combine into (spanning tiles) or skip
/// (empty or null). Tile t starts at base + t * tile (tile a power of two); tiles =
/// ceil((hi - base) / tile).
/// The results are R words: 0 for an empty or null segment, `spanning` (what tiles
/// combine into: 0 for sums, the identity for extremes) for a segment spanning tiles.
/// When `words` is not null, validity word w is set to the segments 32w .. 32w + 31
/// that are valid and not empty (every word written; the lanes of a warp take 32
/// consecutive segments), and, when `set_count` is not null either, the number of bits
/// set is added to *set_count (zeroed by the caller; one atomic per block), so that the
/// host learns the null count without a pass over the words.
template <typename O, typename R>
__device__ __forceinline__ void segment_tiles(const O* offsets, const uint8_t* segment_validity,
                                              uint64_t segment_bit_offset, uint64_t segments, long long base,
                                              long long tile, uint64_t tiles, unsigned long long* first,
                                              R spanning, R* out, uint32_t* words, unsigned long long* set_count) {
    const unsigned lane = threadIdx.x & 31u;
    // Bits this warp set (lane 0's count) and the block's, for *set_count.
    __shared__ unsigned long long block_set;
    unsigned long long warp_set = 0;
    const bool counting = words != nullptr && set_count != nullptr;
    if (counting) {
        if (threadIdx.x == 0) block_set = 0;
        __syncthreads();
    }
    for (uint64_t w0 = global_thread() & ~31ull; w0 < segments; w0 += grid_threads()) {
        const uint64_t s = w0 + lane;
        bool set = false;
        if (s < segments) {
            const long long b = static_cast<long long>(offsets[s]), e = static_cast<long long>(offsets[s + 1]);
            if (s == 0) first[0] = 0;
            if (s + 1 == segments) first[tiles] = segments - 1;
            if (b >= e) {
                out[s] = R(0);
            } else {
                // The tiles t >= 1 whose first element lies in b .. e (tile 0 starts at
                // or before lo, where first[0] = 0 already points).
                const long long t_last = tile_of(e - 1, base, tile);
                long long t = tile_of(b + tile - 1, base, tile);
                for (t = t < 1 ? 1 : t; t <= t_last; ++t) first[t] = s;
                set = is_valid(segment_validity, segment_bit_offset, s);
                if (!set) out[s] = R(0);
                else if (tile_of(b, base, tile) != t_last) out[s] = spanning;
            }
        }
        if (words != nullptr) {
            const unsigned bits = __ballot_sync(0xffffffffu, set);
            if (lane == 0) {
                words[w0 >> 5] = bits;
                warp_set += __popc(bits);
            }
        }
    }
    if (counting) {
        if (lane == 0 && warp_set != 0) atomicAdd(&block_set, warp_set);
        __syncthreads();
        if (threadIdx.x == 0 && block_set != 0) atomicAdd(set_count, block_set);
    }
}

/// Segment s's element range b .. e, for the per-segment loops of a tile block (s = s0,
/// s0 + 256, ...): the thread's first segment's range was loaded ahead (b0, e0).
template <typename O>
__device__ __forceinline__ void tile_segment_range(const O* offsets, unsigned long long s, unsigned long long s0,
                                                   long long b0, long long e0, long long& b, long long& e) {
    if (s == s0) {
        b = b0;
        e = e0;
    } else {
        b = static_cast<long long>(offsets[s]);
        e = static_cast<long long>(offsets[s + 1]);
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
    // A tile inside lo .. hi of a child without nulls (all but the ends: a uniform
    // branch) copies whole vectors straight into shared memory.
    const long long te = ts + Shape::TILE;
    if (validity == nullptr && ts >= lo && te <= hi) {
#pragma unroll
        for (int u = 0; u < TILE_SUM_VECTORS; ++u)
            copy_async_16(&stage[tile_slot(u * TILE_SUM_BLOCK + threadIdx.x)],
                          reinterpret_cast<const uint4*>(values + ts) + u * TILE_SUM_BLOCK + threadIdx.x);
        copy_async_wait_all();
    } else {
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
    for (unsigned long long s = s0; s <= s_last; s += TILE_SUM_BLOCK) {
        long long b, e;
        tile_segment_range(offsets, s, s0, b0, e0, b, e);
        const long long cb = b > ts ? b : ts, ce = e < te ? e : te;
        if (cb >= ce || !is_valid(segment_validity, segment_bit_offset, s)) continue;
        const S part = prefix_at(ce - ts) - prefix_at(cb - ts);
        if (b >= ts && e <= te) out[s] = part;
        else atomicAdd(reinterpret_cast<unsigned long long*>(out + s), static_cast<unsigned long long>(part));
    }
}

// ---- extremes by tiles ----------------------------------------------------------------
//
// Minima and maxima of 4- and 8-byte elements without nulls, by the same tiles (the
// lists' list_min / list_max, lists/reduce.cu). Inside a tile, integers compare as
// themselves and floats by fmin / fmax (NaN, the identity, wins only when nothing else
// is there); a segment cut by tiles combines its parts by an atomic min / max of keys
// (floats as unsigned keys ordered like the numbers, NaN as the identity). Which of two
// zeros and which NaN comes out is left open: the lists' fix-up pass rereads such
// lists (list_extreme_fix).
//   1. segment_tiles as for sums, with the identity key for segments spanning tiles,
//      and the validity words (valid and not empty).
//   2. tile_extremes (a block per tile): the tile staged as for sums (elements outside
//      lo .. hi as the identity); a bit per element marks the segment starts in the
//      tile (position 0 always) and hi when it lies in the tile; each thread folds its
//      16 or 8 consecutive elements into running extremes restarted at every mark and
//      stages back, in place of the elements, only the vectors holding an element just
//      before a mark (where a segment's part ends); one block scan of (extreme, marked)
//      pairs gives each thread the carry from the threads before, kept with the
//      position of its first mark. A segment's part ending at local position q then
//      reads the running extreme at q, with the carry of its thread when q lies before
//      that thread's first mark; a segment inside the tile stores it as a value, one
//      spanning tiles combines its key atomically.
//   3. extreme_tiles_spanning, floats only (a thread per tile): the keys of segments
//      spanning tiles turned back into numbers.
// Floats set `fix_flag` when a result is a zero or NaN (see lists/reduce.cu).
// Pseudo-code: out[s] = min(x[offsets[s] .. offsets[s + 1]])
// Complexity: O(n + segments) work; elements read once, offsets read twice.

/// How tiles compare elements of T: integers as themselves.
template <typename T, bool IS_MAX, bool IS_FLOAT = ::cuda::std::is_floating_point<T>::value> struct TileExtreme {
    /// The atomics' type (the results' words until step 3).
    typedef T Key;
    __device__ __forceinline__ static T identity() {
        return IS_MAX ? ::cuda::std::numeric_limits<T>::lowest() : ::cuda::std::numeric_limits<T>::max();
    }
    __device__ __forceinline__ static T better(T a, T b) { return IS_MAX ? (b > a ? b : a) : (b < a ? b : a); }
    __device__ __forceinline__ static Key key(T x) { return x; }
    __device__ __forceinline__ static Key identity_key() { return identity(); }
    __device__ __forceinline__ static T value(Key k) { return k; }
};

/// Floats: fmin / fmax (NaN the identity); keys are unsigned and order like the numbers
/// (-0 just below +0), NaN's key is the identity key (the largest for a minimum, 0 for
/// a maximum), and both identity keys decode to a NaN.
template <typename T, bool IS_MAX> struct TileExtreme<T, IS_MAX, true> {
    typedef typename ::cuda::std::conditional<sizeof(T) == 4, uint32_t, unsigned long long>::type Key;
    static constexpr Key SIGN = Key(1) << (8 * sizeof(T) - 1);
    __device__ __forceinline__ static T identity() { return ::cuda::std::numeric_limits<T>::quiet_NaN(); }
    __device__ __forceinline__ static T better(T a, T b) { return nan_skipping_extreme<IS_MAX>(a, b); }
    __device__ __forceinline__ static Key identity_key() { return IS_MAX ? Key(0) : ~Key(0); }
    __device__ __forceinline__ static Key key(T x) {
        if (is_nan(x)) return identity_key();
        Key b;
        memcpy(&b, &x, sizeof(T));
        return (b & SIGN) ? ~b : (b | SIGN);
    }
    __device__ __forceinline__ static T value(Key k) {
        const Key b = (k & SIGN) ? (k & ~SIGN) : ~k;
        T x;
        memcpy(&x, &b, sizeof(T));
        return x;
    }
};

/// *at = the better of *at and v, atomically (keys compare as integers).
template <bool IS_MAX, typename K> __device__ __forceinline__ void atomic_better_key(K* at, K v) {
    static_assert(sizeof(K) == 4 || sizeof(K) == 8, "4- or 8-byte keys");
    if constexpr (sizeof(K) == 8 && K(-1) < K(0)) {
        long long* p = reinterpret_cast<long long*>(at);
        if constexpr (IS_MAX) atomicMax(p, static_cast<long long>(v));
        else atomicMin(p, static_cast<long long>(v));
    } else if constexpr (sizeof(K) == 8) {
        unsigned long long* p = reinterpret_cast<unsigned long long*>(at);
        if constexpr (IS_MAX) atomicMax(p, static_cast<unsigned long long>(v));
        else atomicMin(p, static_cast<unsigned long long>(v));
    } else if constexpr (K(-1) < K(0)) {
        int* p = reinterpret_cast<int*>(at);
        if constexpr (IS_MAX) atomicMax(p, static_cast<int>(v));
        else atomicMin(p, static_cast<int>(v));
    } else {
        unsigned int* p = reinterpret_cast<unsigned int*>(at);
        if constexpr (IS_MAX) atomicMax(p, static_cast<unsigned int>(v));
        else atomicMin(p, static_cast<unsigned int>(v));
    }
}

/// A running extreme and whether a segment start was passed (the block scan's item).
template <typename T> struct MarkedExtreme {
    T value;
    uint32_t marked;
};

/// The block scan's operator: the later run restarts at its mark.
template <typename E, typename T> struct MarkedBetter {
    __device__ __forceinline__ MarkedExtreme<T> operator()(const MarkedExtreme<T>& a,
                                                           const MarkedExtreme<T>& b) const {
        return MarkedExtreme<T>{b.marked ? b.value : E::better(a.value, b.value), a.marked | b.marked};
    }
};

/// Step 2, a block per tile: the extreme of each segment's part of tile blockIdx.x,
/// stored as a T (segment inside the tile) or combined atomically as a key (segment
/// spanning tiles; step 1 set it to the identity key). Null segments are skipped
/// (their elements are staged but form runs of their own, which no other segment
/// reads). The elements lo .. hi are read; the child has no nulls. For floats, a
/// stored zero or NaN sets *fix_flag.
template <typename T, typename O, bool IS_MAX>
__device__ __forceinline__ void tile_extremes(const T* values, const O* offsets, const uint8_t* segment_validity,
                                              uint64_t segment_bit_offset, const unsigned long long* first,
                                              long long base, long long lo, long long hi, void* out,
                                              uint32_t* fix_flag) {
    typedef TileExtreme<T, IS_MAX> E;
    typedef TileSumShape<T> Shape;
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tile extremes serve 4- and 8-byte elements");
    constexpr int VEC = Shape::VEC, VECTORS = Shape::VECTORS;
    // Consecutive elements per thread (16 or 8) and elements per tile.
    constexpr int PER = TILE_SUM_VECTORS * VEC;
    constexpr int TILE = static_cast<int>(Shape::TILE);
    typedef cub::BlockScan<MarkedExtreme<T>, TILE_SUM_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> BlockScan;
    // Vector k of the tile (elements ts + k * VEC ..) is stage[tile_slot(k)], later
    // the running extremes at those positions; bit q of marks: a segment starts at
    // local position q; carry[i] and first_mark[i]: thread i's carry and the first
    // marked position among its elements (PER when none).
    __shared__ uint4 stage[VECTORS];
    __shared__ uint32_t marks[TILE / 32];
    __shared__ T carry[TILE_SUM_BLOCK];
    __shared__ int first_mark[TILE_SUM_BLOCK];
    __shared__ typename BlockScan::TempStorage scan;
    const T identity = E::identity();

    const long long ts = base + static_cast<long long>(blockIdx.x) * TILE, te = ts + TILE;
    const unsigned long long s_first = first[blockIdx.x], s_last = first[blockIdx.x + 1];
    const unsigned long long s0 = s_first + threadIdx.x;
    long long b0 = 0, e0 = 0;
    if (s0 <= s_last) {
        b0 = static_cast<long long>(offsets[s0]);
        e0 = static_cast<long long>(offsets[s0 + 1]);
    }
    static_assert(TILE / 32 <= TILE_SUM_BLOCK, "a mark word per thread at most");
    if (threadIdx.x < TILE / 32) marks[threadIdx.x] = threadIdx.x == 0 ? 1u : 0u;

    // Vectors threadIdx.x + 256 u, coalesced. A tile inside lo .. hi (all but the
    // ends: a uniform branch) copies whole vectors straight into shared memory, in
    // flight while the marks are set.
    if (ts >= lo && te <= hi) {
#pragma unroll
        for (int u = 0; u < TILE_SUM_VECTORS; ++u)
            copy_async_16(&stage[tile_slot(u * TILE_SUM_BLOCK + threadIdx.x)],
                          reinterpret_cast<const uint4*>(values + ts) + u * TILE_SUM_BLOCK + threadIdx.x);
    } else {
#pragma unroll 1
        for (int u = 0; u < TILE_SUM_VECTORS; ++u) {
            const int k = u * TILE_SUM_BLOCK + threadIdx.x;
            const long long at = ts + static_cast<long long>(k) * VEC;
            T e[VEC];
#pragma unroll
            for (int i = 0; i < VEC; ++i) e[i] = at + i >= lo && at + i < hi ? values[at + i] : identity;
            uint4 w;
            memcpy(&w, e, 16);
            stage[tile_slot(k)] = w;
        }
    }
    __syncthreads();  // the marks' first words
    // Mark where segments start inside the tile (position 0 is marked already), and
    // hi, where the last segment ends, when the tile holds it: every part then ends
    // just before a mark or at the tile's end.
    for (unsigned long long s = s0; s <= s_last; s += TILE_SUM_BLOCK) {
        long long b, e;
        tile_segment_range(offsets, s, s0, b0, e0, b, e);
        if (b < e && b > ts && b < te) {
            const int q = static_cast<int>(b - ts);
            atomicOr(&marks[q >> 5], 1u << (q & 31));
        }
    }
    if (threadIdx.x == 0 && hi > ts && hi < te) {
        const int q = static_cast<int>(hi - ts);
        atomicOr(&marks[q >> 5], 1u << (q & 31));
    }
    copy_async_wait_all();
    __syncthreads();

    // This thread's PER consecutive elements, positions PER * i ..: running extremes
    // restarted at each mark. A vector is staged back only when a part ends in it: an
    // element of it lies just before a mark (bit PER of `ends` is the next thread's
    // first position; the tile's end counts as marked).
    static_assert(PER < 32, "the thread's marks and the next thread's first in one word");
    const int q0 = PER * static_cast<int>(threadIdx.x), q1 = q0 + PER;
    const uint32_t bits = (marks[q0 >> 5] >> (q0 & 31)) & ((1u << PER) - 1u);
    const uint32_t ends = bits | ((q1 < TILE ? (marks[q1 >> 5] >> (q1 & 31)) & 1u : 1u) << PER);
    T v = identity;
#pragma unroll
    for (int u = 0; u < TILE_SUM_VECTORS; ++u) {
        const int slot = tile_slot(TILE_SUM_VECTORS * threadIdx.x + u);
        const uint4 w = stage[slot];
        T e[VEC];
        memcpy(e, &w, 16);
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            v = ((bits >> (u * VEC + i)) & 1u) ? e[i] : E::better(v, e[i]);
            e[i] = v;
        }
        if ((ends >> (u * VEC + 1)) & ((1u << VEC) - 1u)) {
            uint4 r;
            memcpy(&r, e, 16);
            stage[slot] = r;
        }
    }
    MarkedExtreme<T> before;
    BlockScan(scan).ExclusiveScan(MarkedExtreme<T>{v, bits != 0u}, before, MarkedExtreme<T>{identity, 0u},
                                  MarkedBetter<E, T>());
    carry[threadIdx.x] = before.value;
    first_mark[threadIdx.x] = bits != 0u ? __ffs(bits) - 1 : PER;
    __syncthreads();

    for (unsigned long long s = s0; s <= s_last; s += TILE_SUM_BLOCK) {
        long long b, e;
        tile_segment_range(offsets, s, s0, b0, e0, b, e);
        const long long cb = b > ts ? b : ts, ce = e < te ? e : te;
        if (cb >= ce || !is_valid(segment_validity, segment_bit_offset, s)) continue;
        // The running extreme at the part's last element, q.
        const int q = static_cast<int>(ce - 1 - ts), owner = q / PER;
        T part = reinterpret_cast<const T*>(&stage[tile_slot(q / VEC)])[q % VEC];
        if (q % PER < first_mark[owner]) part = E::better(carry[owner], part);
        if (b >= ts && e <= te) {
            static_cast<T*>(out)[s] = part;
            if constexpr (::cuda::std::is_floating_point<T>::value)
                if (extreme_is_open(part)) atomicOr(fix_flag, 1u);
        } else {
            atomic_better_key<IS_MAX>(static_cast<typename E::Key*>(out) + s, E::key(part));
        }
    }
}

/// Step 3 for floats, a thread per tile t >= 1: the segment holding tile t's first
/// element, when it started in tile t - 1 (so each segment spanning tiles is met once)
/// and is valid, has its key turned back into its number; a zero or NaN sets
/// *fix_flag. Tile t starts at base + t * tile; first[t] as step 1 left it. Minima and
/// maxima share it: float keys decode the same way for both.
template <typename T, typename O>
__device__ __forceinline__ void extreme_tiles_spanning(const O* offsets, const uint8_t* segment_validity,
                                                       uint64_t segment_bit_offset, long long base, long long tile,
                                                       uint64_t tiles, const unsigned long long* first, void* out,
                                                       uint32_t* fix_flag) {
    typedef TileExtreme<T, false> E;
    static_assert(::cuda::std::is_floating_point<T>::value, "integer keys are their values");
    for (uint64_t t = global_thread() + 1; t < tiles; t += grid_threads()) {
        const unsigned long long s = first[t];
        const long long b = static_cast<long long>(offsets[s]);
        if (b >= base + static_cast<long long>(t) * tile || tile_of(b, base, tile) != static_cast<long long>(t) - 1 ||
            !is_valid(segment_validity, segment_bit_offset, s))
            continue;
        typename E::Key* keys = static_cast<typename E::Key*>(out);
        const T x = E::value(keys[s]);
        if (extreme_is_open(x)) atomicOr(fix_flag, 1u);
        static_cast<T*>(out)[s] = x;
    }
}

}  // namespace ragged
