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
//   1  warp per segment (lanes stride through the segment, cub::WarpReduce);
//   2  block per segment (long segments: threads stride, cub::BlockReduce).
// In modes 3, 1, 2 and the long path the elements of a plain array are read as aligned
// 16-byte vectors (fold_group: four in flight per lane); element by element (mode 0,
// bit-packed booleans, validity-only counts) threads keep eight loads in flight in
// modes 0 and 3 and in the long path, four in modes 1 and 2 (fold_strided).
// Entry points compile one mode each (the host picks the entry point by name), so that
// a kernel's registers are those of its own mode.
// With a LongWork (lists/reduce.cu), segments much longer than the mode serves are
// queued by the main pass and reduced by two more passes over chunks of LONG_CHUNK
// elements, a block per chunk (see LongWork below).
// Null elements (validity bitmap) contribute nothing. A null segment (optional segment
// validity bitmap; null pointer = every segment valid) is treated as empty: its
// elements are never read, and `finish` receives the identity.
// Pseudo-code: finish(s, reduce(load(offsets[s] .. offsets[s + 1])))
// Complexity: O(n + segments) work; values read once, one result per segment.
#pragma once
#include "common/primitives.cuh"
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/std/limits>

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

/// An integer extremum and whether any valid element was seen.
template <typename T> struct SeenValue {
    T value;
    uint32_t seen;
};

/// Integer extremum reducer: the value alone — equal integers are indistinguishable, so
/// unlike ExtremumReducer (floats, where -0 and +0 tie and NaN is ranked, and the arg
/// forms) no position is kept and no NaN tested: one min / max per element, from the
/// type's extreme as the identity.
template <typename T, bool IS_MAX> struct IntExtremeReducer {
    typedef SeenValue<T> State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const {
        return State{IS_MAX ? ::cuda::std::numeric_limits<T>::lowest() : ::cuda::std::numeric_limits<T>::max(), 0u};
    }
    __device__ __forceinline__ State add(State s, long long, T x) const {
        return State{IS_MAX ? (x > s.value ? x : s.value) : (x < s.value ? x : s.value), 1u};
    }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const {
        return State{IS_MAX ? (b.value > a.value ? b.value : a.value) : (b.value < a.value ? b.value : a.value),
                     a.seen | b.seen};
    }
};

/// Float extremum reducer: the value alone, by fmin / fmax, which skip NaN (NaN is the
/// identity and remains only when every element is NaN). Which of two zeros, and which
/// NaN, is left open: the host's fix-up pass (lists/reduce.cu, list_extreme_fix)
/// rereads each list whose extreme is a zero or NaN for its first such element, so the
/// result is ExtremumReducer's value bit for bit without a position per element.
template <typename T, bool IS_MAX> struct FloatExtremeReducer {
    typedef SeenValue<T> State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const {
        return State{::cuda::std::numeric_limits<T>::quiet_NaN(), 0u};
    }
    __device__ __forceinline__ State add(State s, long long, T x) const { return State{nan_skipping_extreme<IS_MAX>(s.value, x), 1u}; }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const {
        return State{nan_skipping_extreme<IS_MAX>(a.value, b.value), a.seen | b.seen};
    }
};

/// Add the V elements e[0 .. V) at positions pos .. pos + V (all inside the segment
/// and valid) to `state`, in order.
template <typename R, typename T, int V>
__device__ __forceinline__ typename R::State add_vector(const R& reducer, typename R::State state, long long pos,
                                                        const T (&e)[V]) {
#pragma unroll
    for (int i = 0; i < V; ++i) state = reducer.add(state, pos + i, e[i]);
    return state;
}

/// The same for an extremum: the vector's best element first (a tree in which the
/// later element wins only when strictly better, or when the earlier is NaN and it is
/// not — the order add() applies), then one comparison with the state, so only one
/// 64-bit position is formed per vector.
template <typename T, bool IS_MAX, int V>
__device__ __forceinline__ Arg<T> add_vector(const ExtremumReducer<T, IS_MAX>&, Arg<T> state, long long pos,
                                             const T (&e)[V]) {
    T v[V];
    int at[V];
#pragma unroll
    for (int i = 0; i < V; ++i) {
        v[i] = e[i];
        at[i] = i;
    }
#pragma unroll
    for (int step = 1; step < V; step *= 2) {
#pragma unroll
        for (int i = 0; i + step < V; i += 2 * step) {
            const T x = v[i + step], y = v[i];
            if ((IS_MAX ? x > y : x < y) || (is_nan(y) && !is_nan(x))) {
                v[i] = x;
                at[i] = at[i + step];
            }
        }
    }
    const bool take = state.index < 0 || (IS_MAX ? v[0] > state.value : v[0] < state.value) ||
                      (is_nan(state.value) && !is_nan(v[0]));
    return take ? Arg<T>{v[0], pos + at[0]} : state;
}

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
/// position order, which ExtremumReducer relies on; a vector wholly inside the segment
/// with no validity bitmap is added without per-element checks (add_vector). Other
/// load functors, and reducers that read no values, go through fold_strided with
/// SCALAR_UNROLL loads in flight.
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
                if (validity == nullptr && first >= begin && first + V <= end) {
                    // A vector inside the segment with no null elements: no checks.
                    state = add_vector(reducer, state, first - origin, e[u]);
                    continue;
                }
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

/// X(args..., M) for each main-pass mode M = 0..3: the entry points of one reduction.
#define RAGGED_FOR_EACH_MODE(X, ...) X(__VA_ARGS__, 0) X(__VA_ARGS__, 1) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3)

/// MODE of an entry point that runs only the long path's passes 1 and 2.
constexpr int SEGMENT_LONG_PASSES = 4;

/// Reduce every segment with reducer R in mode MODE (0..3, see the top of this file);
/// `finish(segment, state)` writes the result. Segments longer than `work.threshold`
/// are queued to the long path instead, when it has room; their finish comes from
/// long_finish. Each entry point compiles one mode, so that its registers are those of
/// that mode alone.
template <int MODE, typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented_modes(Load load, const uint8_t* validity, uint64_t bit_offset,
                                                const O* offsets, const uint8_t* segment_validity,
                                                uint64_t segment_bit_offset, uint64_t segments, R reducer,
                                                Finish finish, const LongWork& work) {
    static_assert(MODE >= 0 && MODE <= 3, "segmented_modes compiles modes 0 to 3");
    typedef typename R::State State;
    // The elements of all segments (fold_group reads whole vectors only inside them).
    const long long lo = segments > 0 ? static_cast<long long>(offsets[0]) : 0;
    const long long hi = segments > 0 ? static_cast<long long>(offsets[segments]) : 0;
    if constexpr (MODE == 0) {
        for (uint64_t s = global_thread(); s < segments; s += grid_threads()) {
            long long begin, end;
            segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            if (queue_long(work, s, begin, end)) continue;
            // Eight loads in flight, issued before any is used (one round for most lists).
            const State state = fold_strided<1, R, Load, 8>(load, validity, bit_offset, begin, end, 0u, reducer,
                                                            reducer.init(), begin);
            finish(s, state);
        }
    } else if constexpr (MODE == 3) {
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
    } else if constexpr (MODE == 1) {
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
/// The long path takes three launches, in order: the main pass (phase 0, which queues
/// long segments) from the entry point compiled for the chosen mode (MODE 0..3), then
/// the chunk pass (1) and the finishing pass (2) from the one compiled with
/// SEGMENT_LONG_PASSES; each ignores the phases it does not serve.
template <int MODE, typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                          const uint8_t* segment_validity, uint64_t segment_bit_offset,
                                          uint64_t segments, R reducer, Finish finish, const LongWork& work) {
    if constexpr (MODE == SEGMENT_LONG_PASSES) {
        if (work.phase == 1) long_chunks(load, validity, bit_offset, offsets, reducer, work);
        else if (work.phase == 2) long_finish(offsets, reducer, finish, work);
    } else if (work.phase == 0) {
        segmented_modes<MODE>(load, validity, bit_offset, offsets, segment_validity, segment_bit_offset, segments,
                              reducer, finish, work);
    }
}

/// Reduce every segment with reducer R in one pass in mode MODE (no long path).
template <int MODE, typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                          const uint8_t* segment_validity, uint64_t segment_bit_offset,
                                          uint64_t segments, R reducer, Finish finish) {
    segmented_modes<MODE>(load, validity, bit_offset, offsets, segment_validity, segment_bit_offset, segments,
                          reducer, finish, no_long_work());
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

}  // namespace ragged
