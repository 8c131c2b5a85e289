// segmented.cuh: the segmented-reduction engine shared by primitives/segmented_reduce.cu
// (segments of a column) and lists/reduce.cu (the lists of a list column).
//
// A reducer R names its per-thread State, its element type Value, whether it reads
// values at all (NEEDS_VALUES), its identity (init), how an element joins a state
// (add(state, position in segment, value)) and how two states combine (operator()).
// Elements come from a load functor `load(i) -> Value` (a plain array read, or a bit of
// a bit-packed boolean column), so one engine serves every child type.
//
// Mapping, chosen by the host from the average segment length (mode):
//   0  thread per segment (short segments: a warp reads 32 neighbouring segments,
//      which lie next to each other in memory);
//   3  eight lanes per segment (medium segments, cub::WarpReduce with 8 logical lanes);
//      threads of modes 3, 1 and 2 keep four loads in flight (fold_strided);
//   1  warp per segment (lanes stride through the segment, cub::WarpReduce);
//   2  block per segment (long segments: threads stride, cub::BlockReduce).
// Null elements (validity bitmap) contribute nothing. A null segment (optional segment
// validity bitmap; null pointer = every segment valid) is treated as empty: its
// elements are never read, and `finish` receives the identity.
// Pseudo-code: finish(s, reduce(load(offsets[s] .. offsets[s + 1])))
// Complexity: O(n + segments) work; values read once, one result per segment.
#pragma once
#include "common/primitives.cuh"
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

namespace ragged {

/// Threads per block of every segmented kernel (the host launches BLOCK = 256).
constexpr int SEGMENT_BLOCK = 256;

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
        return better<T, IS_MAX>(s, State{x, pos});
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
/// `state`, four loads in flight per lane (they are issued before any is used).
template <int STRIDE, typename R, typename Load>
__device__ __forceinline__ typename R::State fold_strided(Load load, const uint8_t* validity, uint64_t bit_offset,
                                                          long long begin, long long end, unsigned lane, R reducer,
                                                          typename R::State state) {
    typedef typename R::Value T;
    for (long long i = begin + lane; i < end; i += 4 * STRIDE) {
        T v[4];
        bool ok[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const long long j = i + u * STRIDE;
            ok[u] = j < end && is_valid(validity, bit_offset, j);
            if constexpr (R::NEEDS_VALUES) v[u] = ok[u] ? load(j) : T(0);
            else v[u] = T(0);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u)
            if (ok[u]) state = reducer.add(state, i + u * STRIDE - begin, v[u]);
    }
    return state;
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

/// Reduce every segment with reducer R; `finish(segment, state)` writes the result.
template <typename O, typename R, typename Load, typename Finish>
__device__ __forceinline__ void segmented(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                          const uint8_t* segment_validity, uint64_t segment_bit_offset,
                                          uint64_t segments, uint32_t mode, R reducer, Finish finish) {
    typedef typename R::State State;
    typedef typename R::Value T;
    if (mode == 0) {
        for (uint64_t s = global_thread(); s < segments; s += grid_threads()) {
            long long begin, end;
            segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            State state = reducer.init();
            for (long long i = begin; i < end; ++i)
                if (is_valid(validity, bit_offset, i)) {
                    if constexpr (R::NEEDS_VALUES) state = reducer.add(state, i - begin, load(i));
                    else state = reducer.add(state, i - begin, T(0));
                }
            finish(s, state);
        }
    } else if (mode == 3) {
        // Eight lanes per segment (medium segments): a warp serves four segments.
        typedef cub::WarpReduce<State, 8> GroupReduce;
        __shared__ typename GroupReduce::TempStorage temp[SEGMENT_BLOCK / 8];
        const unsigned lane = threadIdx.x & 7u, group = threadIdx.x >> 3;
        const uint64_t groups = grid_threads() >> 3;
        // Every group of a warp takes the same number of iterations (warp-synchronous
        // reduce): iterate over rounds of whole warps.
        const uint64_t rounds = (segments + groups - 1) / groups;
        for (uint64_t r = 0; r < rounds; ++r) {
            const uint64_t s = r * groups + (global_thread() >> 3);
            State state = reducer.init();
            long long begin = 0, end = 0;
            if (s < segments) segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            state = fold_strided<8>(load, validity, bit_offset, begin, end, lane, reducer, state);
            const State total = GroupReduce(temp[group]).Reduce(state, reducer);
            if (lane == 0 && s < segments) finish(s, total);
        }
    } else if (mode == 1) {
        typedef cub::WarpReduce<State> WarpReduce;
        __shared__ typename WarpReduce::TempStorage temp[SEGMENT_BLOCK / 32];
        const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
        const uint64_t warps = grid_threads() >> 5;
        for (uint64_t s = global_thread() >> 5; s < segments; s += warps) {
            long long begin, end;
            segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            State state = reducer.init();
            state = fold_strided<32>(load, validity, bit_offset, begin, end, lane, reducer, state);
            const State total = WarpReduce(temp[warp]).Reduce(state, reducer);
            if (lane == 0) finish(s, total);
        }
    } else {
        typedef cub::BlockReduce<State, SEGMENT_BLOCK> BlockReduce;
        __shared__ typename BlockReduce::TempStorage temp;
        for (uint64_t s = blockIdx.x; s < segments; s += gridDim.x) {
            long long begin, end;
            segment_range(offsets, segment_validity, segment_bit_offset, s, begin, end);
            State state = reducer.init();
            state = fold_strided<SEGMENT_BLOCK>(load, validity, bit_offset, begin, end, threadIdx.x, reducer, state);
            const State total = BlockReduce(temp).Reduce(state, reducer);
            if (threadIdx.x == 0) finish(s, total);
            __syncthreads();
        }
    }
}

/// A load functor over a plain array.
template <typename T> struct ArrayLoad {
    const T* values;
    __device__ __forceinline__ T operator()(long long i) const { return values[i]; }
};

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
