// segmented.cuh: the segmented-reduction engine shared by primitives/segmented_reduce.cu
// (segments of a column) and lists/reduce.cu (the lists of a list column).
//
// A reducer R names its per-thread State, its element type Value, whether it reads
// values at all (NEEDS_VALUES), its identity (init), how an element joins a state
// (add(state, position in segment, value)) and how two states combine (operator()).
// The engine adds the elements of one fold in increasing position order, starting
// from init (ExtremumReducer relies on it); operator() must be associative and
// commutative (the long path combines chunk partials in any grouping).
// Elements come from a load functor `load(i) -> Value` (a plain array read, or a bit of
// a bit-packed boolean column), so one engine serves every child type.
//
// Mapping, chosen by the host from the segment lengths (mode):
//   0  thread per segment (short segments: a warp reads 32 neighbouring segments,
//      which lie next to each other in memory);
//   3  SEGMENT_GROUP lanes per segment (medium segments, cub::WarpReduce with that many
//      logical lanes; the next round's offsets are loaded ahead);
//      in modes 3, 1, 2 and the long path the elements of a plain array are read as
//      aligned 16-byte vectors (fold_group: four in flight per lane); element by element, threads keep eight loads in flight in modes 0
//      and 3 and in the long path, four in modes 1 and 2 (fold_strided);
//   1  warp per segment (lanes stride through the segment, cub::WarpReduce);
//   2  block per segment (long segments: threads stride, cub::BlockReduce).
// With a LongWork (lists/reduce.cu), segments much longer than the mode serves are
// queued by the main pass and reduced by two more passes over chunks of LONG_CHUNK
// elements, a block per chunk (see LongWork below).
// The tile path (reduce_tiles and its phases, below; lists/reduce.cu's *_tiles_* entry
// points) does not depend on the lengths at all: a block takes a fixed tile of the
// merged sequence of segment ends and elements, and segments that span tiles are
// finished by a small fix-up pass.
// Null elements (validity bitmap) contribute nothing. A null segment (optional segment
// validity bitmap; null pointer = every segment valid) is treated as empty: its
// elements are never read, and `finish` receives the identity.
// Pseudo-code: finish(s, reduce(load(offsets[s] .. offsets[s + 1])))
// Complexity: O(n + segments) work; values read once, one result per segment.
#pragma once
#include "common/primitives.cuh"
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

namespace ragged {

/// Threads per block of every segmented kernel (the host launches BLOCK = 256).
constexpr int SEGMENT_BLOCK = 256;

/// Lanes per segment in mode 3 (medium segments).
constexpr unsigned SEGMENT_GROUP = 4;

/// Sum reducer: 64-bit state for <= 32-bit integers (a segment has far fewer than 2^32
/// values), 128-bit for 64-bit integers, the float itself for floats.
template <typename T> struct SumReducer {
    typedef typename SumTraits<T>::Thread State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return State(0); }
    __device__ __forceinline__ State add(State s, long long, T x) const { return s + static_cast<State>(x); }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const { return a + b; }
};

/// Extremum reducer: (value, position in segment).
template <typename T, bool IS_MAX> struct ExtremumReducer {
    typedef Arg<T> State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return State{T(0), -1}; }
    __device__ __forceinline__ State add(State s, long long pos, T x) const {
        // pos is above every position in s (adds come in increasing order): x wins only
        // when strictly better — a number beats NaN and the missing state — so ties keep
        // the lower position, exactly as better(s, {x, pos}) with fewer comparisons.
        const bool take = s.index < 0 || (IS_MAX ? x > s.value : x < s.value) || (is_nan(s.value) && !is_nan(x));
        return take ? State{x, pos} : s;
    }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const {
        return better<T, IS_MAX>(a, b);
    }
};

/// Count reducer: valid values.
template <typename T> struct CountReducer {
    typedef long long State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = false;
    __device__ __forceinline__ State init() const { return 0; }
    __device__ __forceinline__ State add(State s, long long, T) const { return s + 1; }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const { return a + b; }
};

/// Fold the elements begin + lane, begin + lane + STRIDE, … < end of one segment into
/// `state`, UNROLL loads in flight per lane (they are issued before any is used).
/// Positions given to the reducer count from `origin` (the segment's first element;
/// a chunk of a long segment starts after it).
template <int STRIDE, typename R, typename Load, int UNROLL = 4>
__device__ __forceinline__ typename R::State fold_strided(Load load, const uint8_t* validity, uint64_t bit_offset,
                                                          long long begin, long long end, unsigned lane, R reducer,
                                                          typename R::State state, long long origin) {
    typedef typename R::Value T;
    for (long long i = begin + lane; i < end; i += UNROLL * STRIDE) {
        T v[UNROLL];
        bool ok[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const long long j = i + u * STRIDE;
            ok[u] = j < end && is_valid(validity, bit_offset, j);
            if constexpr (R::NEEDS_VALUES) v[u] = ok[u] ? load(j) : T(0);
            else v[u] = T(0);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (ok[u]) state = reducer.add(state, i + u * STRIDE - origin, v[u]);
    }
    return state;
}

/// A load functor over a plain array: `load(i) = values[i]`. Its elements can also be
/// read as aligned 16-byte vectors (fold_group).
template <typename T> struct ArrayLoad {
    const T* values;
    __device__ __forceinline__ T operator()(long long i) const { return values[i]; }
};

/// Whether a load functor reads a plain array (fold_group may use vector loads).
template <typename Load> struct IsArrayLoad { static constexpr bool value = false; };
template <typename T> struct IsArrayLoad<ArrayLoad<T>> { static constexpr bool value = true; };

/// Fold the elements begin .. end of one segment into `state` with a group of G lanes
/// (this thread is `lane`), as fold_strided does, but through aligned 16-byte loads
/// when the elements come from a plain array. The segment is covered by the aligned
/// 16-byte vectors that overlap it; the lanes take them in turn, UNROLL loads in flight
/// per lane, and add only the elements inside the segment. A vector is loaded whole
/// when it lies inside lo .. hi (elements known to exist: a range of the column that
/// holds the segment), otherwise element by element (only at the ends of lo .. hi), so
/// nothing outside the column is read. Each lane adds its elements in increasing
/// position order, which ExtremumReducer relies on. Other load functors, and reducers
/// that read no values, go through fold_strided with SCALAR_UNROLL loads in flight.
template <int G, typename R, typename Load, int UNROLL, int SCALAR_UNROLL>
__device__ __forceinline__ typename R::State fold_group(Load load, const uint8_t* validity, uint64_t bit_offset,
                                                        long long begin, long long end, unsigned lane, R reducer,
                                                        typename R::State state, long long origin, long long lo,
                                                        long long hi) {
    typedef typename R::Value T;
    if constexpr (!IsArrayLoad<Load>::value || !R::NEEDS_VALUES || (16 % sizeof(T)) != 0) {
        return fold_strided<G, R, Load, SCALAR_UNROLL>(load, validity, bit_offset, begin, end, lane, reducer, state,
                                                       origin);
    } else {
        constexpr int V = 16 / sizeof(T);
        if (begin >= end) return state;
        // Vector k holds elements k * V - shift .. k * V - shift + V (the buffer is
        // aligned to sizeof(T), so vectors start on 16-byte boundaries).
        const long long shift = static_cast<long long>((reinterpret_cast<uintptr_t>(load.values) & 15u) / sizeof(T));
        const long long k0 = (begin + shift) / V, k1 = (end + shift + V - 1) / V;
        for (long long k = k0 + lane; k < k1; k += static_cast<long long>(G) * UNROLL) {
            T e[UNROLL][V];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const long long first = (k + u * G) * V - shift;
                if (k + u * G >= k1) {
                    // Past the segment: nothing to load.
                } else if (first >= lo && first + V <= hi) {
                    const uint4 w = __ldg(reinterpret_cast<const uint4*>(load.values + first));
                    memcpy(e[u], &w, 16);
                } else {
#pragma unroll
                    for (int i = 0; i < V; ++i)
                        e[u][i] = first + i >= begin && first + i < end ? load.values[first + i] : T(0);
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                const long long first = (k + u * G) * V - shift;
                if (k + u * G >= k1) break;
#pragma unroll
                for (int i = 0; i < V; ++i) {
                    const long long j = first + i;
                    if (j >= begin && j < end && is_valid(validity, bit_offset, j))
                        state = reducer.add(state, j - origin, e[u][i]);
                }
            }
        }
        return state;
    }
}

/// The element range of segment s: offsets[s] .. offsets[s + 1], or empty when the
/// segment is null in `segment_validity`.
template <typename O>
__device__ __forceinline__ void segment_range(const O* offsets, const uint8_t* segment_validity,
                                              uint64_t segment_bit_offset, uint64_t s, long long& begin,
                                              long long& end) {
    begin = static_cast<long long>(offsets[s]);
    end = static_cast<long long>(offsets[s + 1]);
    if (!is_valid(segment_validity, segment_bit_offset, s)) end = begin;
}

/// Elements per chunk of a long segment: one block reduces one chunk (long_chunks).
constexpr long long LONG_CHUNK = 8192;

/// The long-segment path. The main pass (phase 0) queues each valid segment longer
/// than `threshold` elements instead of reducing it: one atomicAdd reserves a run of
/// slots, one per chunk of LONG_CHUNK elements, and (segment, chunk) is written into
/// each. Phase 1 (long_chunks) reduces every slot with a whole block into a partial
/// state; phase 2 (long_finish) has a warp take each segment's first slot (chunk 0),
/// combine the segment's partials and finish it. The runtime so no longer depends on
/// the longest segment: a segment of a million elements is spread over the whole grid.
/// Scratch layout (64-bit words): [0] slots reserved, [1] unused, then `capacity`
/// slots of 2 words, and from a 16-byte boundary `capacity` partial states of at most
/// 32 bytes. A segment whose slots do not fit is reduced by the main pass as before
/// (its reserved slots that exist are marked unused), so a full scratch only costs
/// speed. threshold = ~0: no segment is queued.
struct LongWork {
    uint64_t threshold;
    uint64_t capacity;
    uint32_t phase;
    unsigned long long* scratch;
    __device__ __forceinline__ unsigned long long* slots() const { return scratch + 2; }
    __device__ __forceinline__ unsigned long long* partials() const { return scratch + 2 + 2 * capacity; }
    /// The slots reserved, at most the capacity (phases 1 and 2).
    __device__ __forceinline__ unsigned long long used() const {
        const unsigned long long reserved = scratch[0];
        return reserved < capacity ? reserved : capacity;
    }
};

/// A LongWork that never queues (the main pass alone).
__device__ __forceinline__ LongWork no_long_work() { return LongWork{~0ull, 0, 0, nullptr}; }

/// Called by one thread for segment s = [begin, end) in the main pass: queue it to the
/// long path when it is longer than the threshold and its chunks fit the scratch.
/// Returns whether it was queued (then the caller neither reduces nor finishes it).
__device__ __forceinline__ bool queue_long(const LongWork& work, uint64_t s, long long begin, long long end) {
    if (work.phase != 0 || end <= begin || static_cast<uint64_t>(end - begin) <= work.threshold) return false;
    const unsigned long long chunks = static_cast<unsigned long long>((end - begin + LONG_CHUNK - 1) / LONG_CHUNK);
    const unsigned long long base = atomicAdd(&work.scratch[0], chunks);
    unsigned long long* slots = work.slots();
    if (base + chunks > work.capacity) {
        // No room: mark the reserved slots that exist as unused (no later reservation
        // can succeed: the counter only grows) and reduce the segment in place.
        for (unsigned long long t = base; t < work.capacity; ++t) slots[2 * t] = ~0ull;
        return false;
    }
    for (unsigned long long k = 0; k < chunks; ++k) {
        slots[2 * (base + k)] = s;
        slots[2 * (base + k) + 1] = k;
    }
    return true;
}

/// Phase 1: a block per reserved slot reduces its chunk (positions count from the
/// segment's first element) into the slot's partial state.
template <typename O, typename R, typename Load>
__device__ __forceinline__ void long_chunks(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                            R reducer, const LongWork& work) {
    typedef typename R::State State;
    static_assert(sizeof(State) <= 32, "a partial state takes at most 32 bytes of scratch");
    typedef cub::BlockReduce<State, SEGMENT_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    const unsigned long long used = work.used();
    const unsigned long long* slots = work.slots();
    State* partials = reinterpret_cast<State*>(work.partials());
    for (unsigned long long t = blockIdx.x; t < used; t += gridDim.x) {
        const unsigned long long s = slots[2 * t];
        State state = reducer.init();
        if (s != ~0ull) {
            const long long origin = static_cast<long long>(offsets[s]);
            const long long last = static_cast<long long>(offsets[s + 1]);
            const long long begin = origin + static_cast<long long>(slots[2 * t + 1]) * LONG_CHUNK;
            const long long end = begin + LONG_CHUNK < last ? begin + LONG_CHUNK : last;
            state = fold_group<SEGMENT_BLOCK, R, Load, 4, 8>(load, validity, bit_offset, begin, end, threadIdx.x,
                                                              reducer, state, origin, origin, last);
        }
        const State total = BlockReduce(temp).Reduce(state, reducer);
        if (threadIdx.x == 0) partials[t] = total;
        __syncthreads();
    }
}

/// Phase 2: a warp per slot holding chunk 0 of a queued segment combines the partials
/// of the segment's chunks (the slots that follow) and finishes the segment.
template <typename O, typename R, typename Finish>
__device__ __forceinline__ void long_finish(const O* offsets, R reducer, Finish finish, const LongWork& work) {
    typedef typename R::State State;
    typedef cub::WarpReduce<State> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp[SEGMENT_BLOCK / 32];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint64_t warps = grid_threads() >> 5;
    const unsigned long long used = work.used();
    const unsigned long long* slots = work.slots();
    const State* partials = reinterpret_cast<const State*>(work.partials());
    for (uint64_t t = global_thread() >> 5; t < used; t += warps) {
        // The whole warp reads the same slot: the branch is uniform.
        const unsigned long long s = slots[2 * t];
        if (s == ~0ull || slots[2 * t + 1] != 0) continue;
        const long long len = static_cast<long long>(offsets[s + 1]) - static_cast<long long>(offsets[s]);
        const unsigned long long chunks = static_cast<unsigned long long>((len + LONG_CHUNK - 1) / LONG_CHUNK);
        State state = reducer.init();
        for (unsigned long long k = lane; k < chunks; k += 32) state = reducer(state, partials[t + k]);
        const State total = WarpReduce(temp[warp]).Reduce(state, reducer);
        if (lane == 0) finish(s, total);
    }
}

/// Reduce every segment with reducer R in the given mode; `finish(segment, state)` writes
/// the result. Segments longer than `work.threshold` are queued to the long path
/// instead, when it has room; their finish comes from long_finish.
template <typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented_modes(Load load, const uint8_t* validity, uint64_t bit_offset,
                                                const O* offsets, const uint8_t* segment_validity,
                                                uint64_t segment_bit_offset, uint64_t segments, uint32_t mode,
                                                R reducer, Finish finish, const LongWork& work) {
    typedef typename R::State State;
    // The elements of all segments (fold_group reads whole vectors only inside them).
    const long long lo = segments > 0 ? static_cast<long long>(offsets[0]) : 0;
    const long long hi = segments > 0 ? static_cast<long long>(offsets[segments]) : 0;
    if (mode == 0) {
        for (uint64_t s = global_thread(); s < segments; s += grid_threads()) {
            long long begin, end;
            segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            if (queue_long(work, s, begin, end)) continue;
            // Eight loads in flight, issued before any is used (one round for most lists).
            const State state = fold_strided<1, R, Load, 8>(load, validity, bit_offset, begin, end, 0u, reducer,
                                                            reducer.init(), begin);
            finish(s, state);
        }
    } else if (mode == 3) {
        // GROUP lanes per segment (medium segments): a warp serves 32 / GROUP segments
        // per round. The next round's offsets are loaded before this round's elements
        // are folded, so a round waits on one load (the elements), not two.
        constexpr unsigned GROUP = SEGMENT_GROUP;
        typedef cub::WarpReduce<State, GROUP> GroupReduce;
        __shared__ typename GroupReduce::TempStorage temp[SEGMENT_BLOCK / GROUP];
        const unsigned lane = threadIdx.x & (GROUP - 1), group = threadIdx.x / GROUP;
        const uint64_t groups = grid_threads() / GROUP;
        // Every group of a warp takes the same number of iterations (warp-synchronous
        // reduce): iterate over rounds of whole warps.
        const uint64_t rounds = (segments + groups - 1) / groups;
        uint64_t s = global_thread() / GROUP;
        // Raw offsets and validity of segment s (applied when the round starts).
        long long next_begin = 0, next_end = 0;
        bool next_valid = false;
        if (s < segments) {
            next_begin = static_cast<long long>(offsets[s]);
            next_end = static_cast<long long>(offsets[s + 1]);
            next_valid = is_valid(segment_validity, segment_bit_offset, s);
        }
        for (uint64_t r = 0; r < rounds; ++r, s += groups) {
            const long long begin = next_begin;
            const long long end = next_valid ? next_end : next_begin;
            if (r + 1 < rounds && s + groups < segments) {
                next_begin = static_cast<long long>(offsets[s + groups]);
                next_end = static_cast<long long>(offsets[s + groups + 1]);
                next_valid = is_valid(segment_validity, segment_bit_offset, s + groups);
            }
            // The group's first lane queues a long segment; the group then folds nothing.
            bool queued = lane == 0 && s < segments && queue_long(work, s, begin, end);
            queued = __shfl_sync(0xffffffffu, queued, threadIdx.x & ~(GROUP - 1) & 31u);
            State state = reducer.init();
            if (!queued)
                state = fold_group<GROUP, R, Load, 4, 8>(load, validity, bit_offset, begin, end, lane, reducer, state,
                                                         begin, lo, hi);
            const State total = GroupReduce(temp[group]).Reduce(state, reducer);
            if (lane == 0 && s < segments && !queued) finish(s, total);
        }
    } else if (mode == 1) {
        typedef cub::WarpReduce<State> WarpReduce;
        __shared__ typename WarpReduce::TempStorage temp[SEGMENT_BLOCK / 32];
        const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
        const uint64_t warps = grid_threads() >> 5;
        for (uint64_t s = global_thread() >> 5; s < segments; s += warps) {
            long long begin, end;
            segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            bool queued = lane == 0 && queue_long(work, s, begin, end);
            queued = __shfl_sync(0xffffffffu, queued, 0);
            if (queued) continue;
            State state = reducer.init();
            state = fold_group<32, R, Load, 4, 4>(load, validity, bit_offset, begin, end, lane, reducer, state, begin, lo,
                                                  hi);
            const State total = WarpReduce(temp[warp]).Reduce(state, reducer);
            if (lane == 0) finish(s, total);
        }
    } else {
        typedef cub::BlockReduce<State, SEGMENT_BLOCK> BlockReduce;
        __shared__ typename BlockReduce::TempStorage temp;
        __shared__ int block_queued;
        for (uint64_t s = blockIdx.x; s < segments; s += gridDim.x) {
            long long begin, end;
            segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            // Written by thread 0, read by all between the two barriers.
            if (threadIdx.x == 0) block_queued = queue_long(work, s, begin, end);
            __syncthreads();
            if (block_queued) {
                __syncthreads();
                continue;
            }
            State state = reducer.init();
            state = fold_group<SEGMENT_BLOCK, R, Load, 4, 4>(load, validity, bit_offset, begin, end, threadIdx.x,
                                                              reducer, state, begin, lo, hi);
            const State total = BlockReduce(temp).Reduce(state, reducer);
            if (threadIdx.x == 0) finish(s, total);
            __syncthreads();
        }
    }
}

/// Reduce every segment with reducer R; `finish(segment, state)` writes the result.
/// `work.phase` selects the main pass (0, which queues long segments), the chunk pass
/// (1) or the finishing pass (2) of the long path; the host launches all three, in order.
template <typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                          const uint8_t* segment_validity, uint64_t segment_bit_offset,
                                          uint64_t segments, uint32_t mode, R reducer, Finish finish,
                                          const LongWork& work) {
    if (work.phase == 1) {
        long_chunks(load, validity, bit_offset, offsets, reducer, work);
    } else if (work.phase == 2) {
        long_finish(offsets, reducer, finish, work);
    } else {
        segmented_modes(load, validity, bit_offset, offsets, segment_validity, segment_bit_offset, segments, mode,
                        reducer, finish, work);
    }
}

/// Reduce every segment with reducer R in one pass (no long path).
template <typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                          const uint8_t* segment_validity, uint64_t segment_bit_offset,
                                          uint64_t segments, uint32_t mode, R reducer, Finish finish) {
    segmented_modes(load, validity, bit_offset, offsets, segment_validity, segment_bit_offset, segments, mode, reducer,
                    finish, no_long_work());
}


/// A load functor over a bit-packed boolean column (bit i of `bits` from `bit_offset`).
struct BitLoad {
    const uint8_t* bits;
    uint64_t bit_offset;
    __device__ __forceinline__ uint8_t operator()(long long i) const {
        const uint64_t b = bit_offset + static_cast<uint64_t>(i);
        return (bits[b >> 3] >> (b & 7)) & 1;
    }
};

// ---- the tile path ----------------------------------------------------------------
//
// A streaming segmented reduction whose work per block does not depend on the segment
// lengths. The child range is cut into tiles of TILE = SEGMENT_BLOCK x ITEMS elements,
// starting at `origin` = offsets[0] rounded down to a 16-byte boundary of the values
// (up to 15 bytes of elements before offsets[0] belong to tile 0 and are masked), so
// that every thread's ITEMS elements are whole aligned 16-byte vectors. Segment s
// belongs to the tile holding its end: origin + t x TILE < offsets[s + 1] <= origin +
// (t + 1) x TILE (tile 0 also takes the empty segments that end at origin).
//   phase 0 (tile_partitions): a thread per tile boundary finds, by a binary search of
//     the offsets, the segments that end before it (partitions[t]; partitions[0] = 0,
//     partitions[tiles] = segments);
//   phase 1 (reduce_tiles): a block per tile. Each thread issues the 16-byte loads of
//     its ITEMS contiguous elements straight into registers and reads their validity
//     bits at once (valid_bits), while the block stages the ends of the tile's
//     segments (int, relative to the tile; at most TILE of them are read from shared
//     memory — a tile with more, empty segments, searches the offsets in global memory).
//     A thread finds the segment holding its first element by a binary search of the
//     ends; when that segment goes past its elements (almost every thread when
//     segments are long) it folds them with no other work; otherwise it walks them,
//     closing a segment at each end (empty segments are skipped: a strided loop over
//     the tile's segments finishes them). A segment that begins and ends in one thread
//     is finished there. A segmented exclusive scan (cub::BlockScan, warp scans, over
//     (state, ended) pairs) carries the open states across threads: the first segment
//     a thread closes gets the state of the threads before it; when that segment began
//     in an earlier tile (only the tile's first segment can), its in-tile part goes to
//     heads[t], and the state after the tile's last segment end (the part of the
//     segment that goes on) is tails[t];
//   phase 2 (finish_tiles): a warp per tile whose first segment began earlier combines
//     tails[first tile of the segment .. t - 1] and heads[t] and finishes it.
// Every combination happens in a fixed order and grouping (thread fold, block scan, the
// fix-up's warp reduction over tiles in order), so float results do not depend on
// timing; ExtremumReducer's positions count from the segment's first element in every
// tile, and better() keeps the lower position on ties wherever states meet.
// Result validity bits (min, max, mean) are collected per tile in shared memory (one
// atomicOr per non-zero word; bits of segments far past the tile's first one, after
// many empty segments, go straight to global memory); the fix-up sets its own bit.
// Scratch (64-bit words, `tiles` from the host, at least the kernel's own count):
// partitions[tiles + 1], from the next even word heads[tiles] and then tails[tiles],
// 32 bytes each. Tiles past the data hold nothing.
// Null segments: their elements are read but their state is dropped; `finish` receives
// the identity, as in the modes.

/// Elements per thread and per tile of the tile path for elements of type V: 8 per
/// thread for 8-byte values, 16 otherwise (64 bytes a thread for 4- and 8-byte values,
/// four 16-byte loads; the host mirrors it: lists/reduce.rs).
template <typename V> struct TileShape {
    static constexpr int ITEMS = sizeof(V) >= 8 ? 8 : 16;
    static constexpr int TILE = SEGMENT_BLOCK * ITEMS;
};

/// Blocks per SM the tile kernels are compiled for (__launch_bounds__): at most 64
/// registers a thread, so that at least four tiles (64 KB of loads) are in flight per SM.
constexpr int TILE_MIN_BLOCKS = 4;

/// How the tile path reads elements through a load functor: one at a time (bits,
/// counts), with tile 0 starting at offsets[0].
template <typename Load, typename V> struct TileLoader {
    /// Elements of tile 0 before offsets[0] (`base`): none.
    static __device__ __forceinline__ long long shift(const Load&, long long) { return 0; }
    /// v[k] = element g0 + k, for g0 + k in lo .. hi (0 elsewhere).
    template <int ITEMS>
    static __device__ __forceinline__ void load(const Load& load, long long g0, long long lo, long long hi,
                                                V (&v)[ITEMS]) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) v[k] = g0 + k >= lo && g0 + k < hi ? load(g0 + k) : V(0);
    }
};

/// Plain arrays: whole 16-byte vectors (tile 0 starts at the 16-byte boundary at or
/// before element offsets[0]). A vector is read when it holds an element of lo .. hi,
/// so no read leaves the 16-byte blocks of the child's range.
template <typename T> struct TileLoader<ArrayLoad<T>, T> {
    static constexpr int VEC = 16 / static_cast<int>(sizeof(T));
    static __device__ __forceinline__ long long shift(const ArrayLoad<T>& load, long long base) {
        return static_cast<long long>((reinterpret_cast<uint64_t>(load.values + base) & 15u) / sizeof(T));
    }
    template <int ITEMS>
    static __device__ __forceinline__ void load(const ArrayLoad<T>& load, long long g0, long long lo, long long hi,
                                                T (&v)[ITEMS]) {
        static_assert(ITEMS % VEC == 0, "a thread's elements are whole 16-byte vectors");
#pragma unroll
        for (int q = 0; q < ITEMS / VEC; ++q) {
            const long long first = g0 + q * VEC;
            union {
                uint4 raw;
                T v[VEC];
            } x;
            x.raw = first + VEC > lo && first < hi ? __ldg(reinterpret_cast<const uint4*>(load.values + first))
                                                   : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
            for (int u = 0; u < VEC; ++u) v[q * VEC + u] = x.v[u];
        }
    }
};

/// The tile path's launch parameters: the tile length and tile count the host sized the
/// scratch for (checked against the kernel's own), the phase, and the scratch.
struct TileWork {
    uint64_t tile_len;
    uint64_t tiles;
    uint32_t phase;
    unsigned long long* scratch;
    __device__ __forceinline__ unsigned long long* partitions() const { return scratch; }
    /// The in-tile parts of segments begun in an earlier tile (phase 1 writes, 2 reads).
    template <typename S> __device__ __forceinline__ S* heads() const {
        return reinterpret_cast<S*>(scratch + ((tiles + 2) & ~1ull));
    }
    /// The state after each tile's last segment end.
    template <typename S> __device__ __forceinline__ S* tails() const {
        return reinterpret_cast<S*>(scratch + ((tiles + 2) & ~1ull) + 4 * tiles);
    }
};

/// A partial state and whether a segment ended in it: the items of a segmented scan.
template <typename S> struct TileCarry {
    S state;
    int ended;
};

/// The segmented scan's operator: a later part that holds an end restarts the state.
template <typename R> struct TileCarryOp {
    R reducer;
    __device__ __forceinline__ TileCarry<typename R::State> operator()(const TileCarry<typename R::State>& a,
                                                                       const TileCarry<typename R::State>& b) const {
        return b.ended ? b : TileCarry<typename R::State>{reducer(a.state, b.state), a.ended};
    }
};

/// The element index of tile 0's first element (offsets[0] less the loader's shift).
template <typename O, typename R, typename Load>
__device__ __forceinline__ long long tile_origin(const Load& load, const O* offsets) {
    const long long base = static_cast<long long>(offsets[0]);
    if constexpr (R::NEEDS_VALUES) return base - TileLoader<Load, typename R::Value>::shift(load, base);
    else return base;
}

/// Stop the kernel when the host sized the scratch for other tiles than the kernel's
/// (an internal inconsistency, never an input error): a launch failure, not a wrong
/// result. The host's count may exceed the kernel's (it allows for any shift).
template <typename O>
__device__ __forceinline__ void check_tiles(const O* offsets, uint64_t segments, long long origin, long long tile,
                                            const TileWork& work) {
    const long long span = static_cast<long long>(offsets[segments]) - origin;
    if (work.tile_len != static_cast<uint64_t>(tile) || work.tiles == 0 ||
        static_cast<long long>(work.tiles) * tile < span)
        __trap();
}

/// Phase 0: partitions[t] = the segments whose end is at most origin + t x TILE (t = 1 ..
/// tiles; partitions[0] = 0), by a binary search of the offsets.
template <typename O, typename R, typename Load>
__device__ __forceinline__ void tile_partitions(Load load, const O* offsets, uint64_t segments,
                                                const TileWork& work) {
    constexpr long long TILE = TileShape<typename R::Value>::TILE;
    const long long origin = tile_origin<O, R>(load, offsets);
    check_tiles(offsets, segments, origin, TILE, work);
    unsigned long long* partitions = work.partitions();
    for (uint64_t t = global_thread(); t <= work.tiles; t += grid_threads()) {
        long long lo = 0, hi = t == 0 ? 0 : static_cast<long long>(segments);
        const long long bound = origin + static_cast<long long>(t) * TILE;
        while (lo < hi) {
            const long long mid = (lo + hi) >> 1;
            if (static_cast<long long>(offsets[mid + 1]) <= bound) lo = mid + 1;
            else hi = mid;
        }
        partitions[t] = static_cast<unsigned long long>(lo);
    }
}

/// Phase 1: a block per tile (see the section comment). `finish(segment, state)` writes
/// a result and returns whether its validity bit is to be set in `words` (null: no
/// bits).
template <typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void reduce_tiles(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                             const uint8_t* segment_validity, uint64_t segment_bit_offset,
                                             uint64_t segments, R reducer, Finish finish, uint32_t* words,
                                             const TileWork& work) {
    typedef typename R::State State;
    typedef typename R::Value V;
    typedef TileCarry<State> Carry;
    constexpr int ITEMS = TileShape<V>::ITEMS;
    constexpr int TILE = TileShape<V>::TILE;
    constexpr int OUT_WORDS = TILE / 32 + 1;
    static_assert(sizeof(State) <= 32, "a head or tail state takes at most 32 bytes of scratch");
    typedef cub::BlockScan<Carry, SEGMENT_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> BlockScan;
    __shared__ typename BlockScan::TempStorage scan_temp;
    __shared__ int ends[TILE];
    __shared__ uint32_t out_bits[OUT_WORDS];
    __shared__ long long first_begin;

    const long long origin = tile_origin<O, R>(load, offsets);
    check_tiles(offsets, segments, origin, TILE, work);
    const long long base = static_cast<long long>(offsets[0]);
    const long long last = static_cast<long long>(offsets[segments]);
    const unsigned long long* partitions = work.partitions();
    State* heads = work.heads<State>();
    State* tails = work.tails<State>();
    const int tid = static_cast<int>(threadIdx.x);
    constexpr long long NO_END = 0x7fffffffffffffffll;

    for (unsigned long long t = blockIdx.x; t < work.tiles; t += gridDim.x) {
        const long long t0 = origin + static_cast<long long>(t) * TILE;  // the tile's first element
        // Segments lo .. lo + nl - 1 end in the tile.
        const long long lo = static_cast<long long>(partitions[t]);
        const long long nl = static_cast<long long>(partitions[t + 1]) - lo;
        const bool staged = nl <= TILE;
        const long long g0 = t0 + tid * ITEMS;

        // This thread's elements and validity bits (bit k: element g0 + k is in the
        // child range and valid), issued before anything waits.
        V v[ITEMS];
        if constexpr (R::NEEDS_VALUES) {
            TileLoader<Load, V>::template load<ITEMS>(load, g0, base, last, v);
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) v[k] = V(0);
        }
        uint32_t ok;
        {
            const long long first = g0 < base ? base : g0;
            ok = first >= last ? 0u
                               : (valid_bits<ITEMS>(validity, bit_offset, static_cast<uint64_t>(first),
                                                    static_cast<uint64_t>(last))
                                  << (first - g0)) &
                                     ((1u << ITEMS) - 1u);
        }

        // Stage the ends (relative to t0; tile 0 may hold ends at 0).
        if (staged)
            for (int i = tid; i < nl; i += SEGMENT_BLOCK)
                ends[i] = static_cast<int>(static_cast<long long>(offsets[lo + i + 1]) - t0);
        if (tid == 0) first_begin = static_cast<long long>(offsets[lo]) - t0;
        if (words != nullptr)
            for (int i = tid; i < OUT_WORDS; i += SEGMENT_BLOCK) out_bits[i] = 0u;
        __syncthreads();

        // The end of the tile's segment i (relative to t0).
        auto end_of = [&](long long i) -> long long {
            return staged ? static_cast<long long>(ends[i]) : static_cast<long long>(offsets[lo + i + 1]) - t0;
        };
        // The first of the tile's segments from i on whose end is above j (nl: none).
        auto after = [&](long long i, long long j) -> long long {
            if (i >= nl || end_of(i) > j) return i;
            long long a = i + 1, b = nl;
            while (a < b) {
                const long long mid = (a + b) >> 1;
                if (end_of(mid) <= j) a = mid + 1;
                else b = mid;
            }
            return a;
        };
        // Close segment lo + i with state s: null segments get the identity.
        auto close = [&](long long i, const State& s) {
            const long long l = lo + i;
            const bool listed = is_valid(segment_validity, segment_bit_offset, static_cast<uint64_t>(l));
            const bool set = finish(static_cast<uint64_t>(l), listed ? s : reducer.init());
            if (words != nullptr && set) {
                const long long w = (l >> 5) - (lo >> 5);
                if (w < OUT_WORDS) atomicOr(&out_bits[w], 1u << (l & 31));
                else atomicOr(&words[l >> 5], 1u << (l & 31));
            }
        };

        // Empty segments ending in the tile: the identity (their end is their begin).
        for (long long i = tid; i < nl; i += SEGMENT_BLOCK) {
            const long long b = i == 0 ? first_begin : end_of(i - 1);
            if (end_of(i) == b) close(i, reducer.init());
        }

        // The segment holding this thread's first element: the first whose end is above
        // it and above the tile's first segment's begin (in tile 0, elements before the
        // child range precede empty segments that end where the range begins).
        const int j0 = tid * ITEMS;
        long long cur = after(0, j0 > first_begin ? j0 : first_begin);
        long long begin = cur == 0 ? first_begin : end_of(cur - 1);
        long long next = cur < nl ? end_of(cur) : NO_END;
        const bool began_before = begin < 0;
        State state = reducer.init();
        State head = reducer.init();  // the part of the first segment closed here
        long long head_index = -1;    // its index in the tile, -1: none closed here
        // The choice is made per warp (every lane's test): a warp whose lanes all lie
        // inside one segment each takes the plain fold; one with an end takes the walk
        // alone rather than both paths in turn.
        if (__all_sync(0xffffffffu, next > j0 + ITEMS)) {
            // No end among the warp's elements: loads and folds only.
#pragma unroll
            for (int k = 0; k < ITEMS; ++k)
                if ((ok >> k) & 1u) state = reducer.add(state, j0 + k - begin, v[k]);
        } else {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                if (j0 + k == next) {
                    if (head_index < 0) {
                        head_index = cur;
                        head = state;
                    } else {
                        close(cur, state);
                    }
                    state = reducer.init();
                    begin = next;
                    cur = after(cur + 1, next);
                    next = cur < nl ? end_of(cur) : NO_END;
                }
                if ((ok >> k) & 1u) state = reducer.add(state, j0 + k - begin, v[k]);
            }
            if (j0 + ITEMS == next) {
                if (head_index < 0) {
                    head_index = cur;
                    head = state;
                } else {
                    close(cur, state);
                }
                state = reducer.init();
            }
        }

        // Carry the open parts across threads: prefix = the state since the last end
        // before this thread; total = the state after the tile's last end.
        Carry prefix, total;
        BlockScan(scan_temp).ExclusiveScan(Carry{state, head_index >= 0 ? 1 : 0}, prefix, Carry{reducer.init(), 0},
                                           TileCarryOp<R>{reducer}, total);
        if (head_index >= 0) {
            const State full = reducer(prefix.state, head);
            const long long l = lo + head_index;
            if (began_before && is_valid(segment_validity, segment_bit_offset, static_cast<uint64_t>(l))) {
                heads[t] = full;  // began in an earlier tile: finished by phase 2
            } else {
                close(head_index, full);
            }
        }
        if (tid == 0) tails[t] = total.state;
        if (words != nullptr) {
            __syncthreads();
            if (nl > 0) {
                const long long w0 = lo >> 5, count = ((lo + nl - 1) >> 5) - w0 + 1;
                for (int i = tid; i < count && i < OUT_WORDS; i += SEGMENT_BLOCK)
                    if (out_bits[i] != 0u) atomicOr(&words[w0 + i], out_bits[i]);
            }
        }
        __syncthreads();
    }
}

/// Phase 2: a warp per tile whose first segment began in an earlier tile combines the
/// tails of the tiles it spans (in order: lanes fold tiles strided, then a fixed warp
/// reduction), then the tile's head, and finishes it.
template <typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void finish_tiles(Load load, const O* offsets, const uint8_t* segment_validity,
                                             uint64_t segment_bit_offset, uint64_t segments, R reducer, Finish finish,
                                             uint32_t* words, const TileWork& work) {
    typedef typename R::State State;
    constexpr long long TILE = TileShape<typename R::Value>::TILE;
    typedef cub::WarpReduce<State> WarpReduce;
    __shared__ typename WarpReduce::TempStorage temp[SEGMENT_BLOCK / 32];
    const long long origin = tile_origin<O, R>(load, offsets);
    check_tiles(offsets, segments, origin, TILE, work);
    const unsigned long long* partitions = work.partitions();
    const State* heads = work.heads<State>();
    const State* tails = work.tails<State>();
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint64_t warps = grid_threads() >> 5;
    for (uint64_t t = global_thread() >> 5; t < work.tiles; t += warps) {
        // The whole warp reads the same values: the branches are uniform.
        const long long l0 = static_cast<long long>(partitions[t]);
        if (static_cast<long long>(partitions[t + 1]) == l0) continue;  // no end in the tile
        // The tile's first segment, relative to origin: it began earlier when its first
        // element lies before the tile (then it is not empty).
        const long long begin = static_cast<long long>(offsets[l0]) - origin;
        if (begin >= static_cast<long long>(t) * TILE ||
            !is_valid(segment_validity, segment_bit_offset, static_cast<uint64_t>(l0)))
            continue;
        const uint64_t first = static_cast<uint64_t>(begin / TILE);
        State state = reducer.init();
        for (uint64_t u = first + lane; u < t; u += 32) state = reducer(state, tails[u]);
        const State spanned = WarpReduce(temp[warp]).Reduce(state, reducer);
        if (lane == 0) {
            const bool set = finish(static_cast<uint64_t>(l0), reducer(spanned, heads[t]));
            if (words != nullptr && set) atomicOr(&words[l0 >> 5], 1u << (l0 & 31));
        }
    }
}

/// The tile path: phase 0, 1 or 2 of `work` (the host launches all three, in order).
template <typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented_tiles(Load load, const uint8_t* validity, uint64_t bit_offset,
                                                const O* offsets, const uint8_t* segment_validity,
                                                uint64_t segment_bit_offset, uint64_t segments, R reducer,
                                                Finish finish, uint32_t* words, const TileWork& work) {
    if (work.phase == 0) {
        tile_partitions<O, R>(load, offsets, segments, work);
    } else if (work.phase == 1) {
        reduce_tiles(load, validity, bit_offset, offsets, segment_validity, segment_bit_offset, segments, reducer,
                     finish, words, work);
    } else {
        finish_tiles(load, offsets, segment_validity, segment_bit_offset, segments, reducer, finish, words, work);
    }
}

}  // namespace ragged
