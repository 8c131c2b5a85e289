// segmented_reduce: one reduction per segment offsets[i]..offsets[i + 1] of a primitive
// column — segmented_sum, segmented_min / segmented_max (with the position of the
// extreme inside the segment, for argmin / argmax), segmented_count (valid values).
//
// Mapping, chosen by the host from the average segment length (mode):
//   0  thread per segment (short segments: a warp reads 32 neighbouring segments,
//      which lie next to each other in memory);
//   3  eight lanes per segment (medium segments, cub::WarpReduce with 8 logical lanes);
//      threads of modes 3, 1 and 2 keep four loads in flight (fold_strided);
//   1  warp per segment (lanes stride through the segment, cub::WarpReduce);
//   2  block per segment (long segments: threads stride, cub::BlockReduce).
// Nulls contribute the identity; extremes skip NaN unless the segment holds only NaN
// (common/primitives.cuh, better()). A segment without a valid value gets validity
// flag 0 (packed into a bitmap by common/bitmap.cu). Sums of integers accumulate in
// 128 bits; a segment whose sum does not fit i64 / u64 reports its index (code 1).
// Pseudo-code: out[s] = reduce(x[offsets[s] .. offsets[s + 1]])
// Complexity: O(n + segments) work; values read once, one result per segment written.
#include "common/primitives.cuh"
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

using namespace ragged;

constexpr int SEGMENT_BLOCK = 256;

/// Sum reducer: 64-bit state for <= 32-bit integers (a segment has far fewer than 2^32
/// values), 128-bit for 64-bit integers, the float itself for floats.
template <typename T> struct SumReducer {
    typedef typename SumTraits<T>::Thread State;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return State(0); }
    __device__ __forceinline__ State add(State s, long long, T x) const { return s + static_cast<State>(x); }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const { return a + b; }
};

/// Extremum reducer: (value, position in segment).
template <typename T, bool IS_MAX> struct ExtremumReducer {
    typedef Arg<T> State;
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
    static constexpr bool NEEDS_VALUES = false;
    __device__ __forceinline__ State init() const { return 0; }
    __device__ __forceinline__ State add(State s, long long, T) const { return s + 1; }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const { return a + b; }
};

/// values[i], or a dummy for reducers that look only at validity (values may be null).
template <typename R, typename T>
__device__ __forceinline__ T value_at(const T* values, long long i) {
    if constexpr (R::NEEDS_VALUES) return values[i];
    else return T(0);
}

/// Fold the values begin + lane, begin + lane + STRIDE, … < end of one segment into
/// `state`, four loads in flight per lane (they are issued before any is used).
template <int STRIDE, typename T, typename R>
__device__ __forceinline__ typename R::State fold_strided(const T* values, const uint8_t* validity, uint64_t bit_offset,
                                                          long long begin, long long end, unsigned lane, R reducer,
                                                          typename R::State state) {
    for (long long i = begin + lane; i < end; i += 4 * STRIDE) {
        T v[4];
        bool ok[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const long long j = i + u * STRIDE;
            ok[u] = j < end && is_valid(validity, bit_offset, j);
            v[u] = ok[u] ? value_at<R>(values, j) : T(0);
        }
#pragma unroll
        for (int u = 0; u < 4; ++u)
            if (ok[u]) state = reducer.add(state, i + u * STRIDE - begin, v[u]);
    }
    return state;
}

/// Reduce every segment with reducer R; `finish(segment, state)` writes the result.
template <typename T, typename O, typename R, typename Finish>
__device__ __forceinline__ void segmented(const T* values, const uint8_t* validity, uint64_t bit_offset,
                                          const O* offsets, uint64_t segments, uint32_t mode, R reducer,
                                          Finish finish) {
    typedef typename R::State State;
    if (mode == 0) {
        for (uint64_t s = global_thread(); s < segments; s += grid_threads()) {
            const long long begin = static_cast<long long>(offsets[s]), end = static_cast<long long>(offsets[s + 1]);
            State state = reducer.init();
            for (long long i = begin; i < end; ++i)
                if (is_valid(validity, bit_offset, i)) state = reducer.add(state, i - begin, value_at<R>(values, i));
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
            if (s < segments) {
                begin = static_cast<long long>(offsets[s]);
                end = static_cast<long long>(offsets[s + 1]);
            }
            state = fold_strided<8>(values, validity, bit_offset, begin, end, lane, reducer, state);
            const State total = GroupReduce(temp[group]).Reduce(state, reducer);
            if (lane == 0 && s < segments) finish(s, total);
        }
    } else if (mode == 1) {
        typedef cub::WarpReduce<State> WarpReduce;
        __shared__ typename WarpReduce::TempStorage temp[SEGMENT_BLOCK / 32];
        const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
        const uint64_t warps = grid_threads() >> 5;
        for (uint64_t s = global_thread() >> 5; s < segments; s += warps) {
            const long long begin = static_cast<long long>(offsets[s]), end = static_cast<long long>(offsets[s + 1]);
            State state = reducer.init();
            state = fold_strided<32>(values, validity, bit_offset, begin, end, lane, reducer, state);
            const State total = WarpReduce(temp[warp]).Reduce(state, reducer);
            if (lane == 0) finish(s, total);
        }
    } else {
        typedef cub::BlockReduce<State, SEGMENT_BLOCK> BlockReduce;
        __shared__ typename BlockReduce::TempStorage temp;
        for (uint64_t s = blockIdx.x; s < segments; s += gridDim.x) {
            const long long begin = static_cast<long long>(offsets[s]), end = static_cast<long long>(offsets[s + 1]);
            State state = reducer.init();
            state = fold_strided<SEGMENT_BLOCK>(values, validity, bit_offset, begin, end, threadIdx.x, reducer, state);
            const State total = BlockReduce(temp).Reduce(state, reducer);
            if (threadIdx.x == 0) finish(s, total);
            __syncthreads();
        }
    }
}

#define RAGGED_SEGMENTED(O, ONAME, T, NAME)                                                 \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_sum_##ONAME##_##NAME( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,   \
        uint64_t segments, uint32_t mode, void* out, uint64_t* error_word) {               \
        segmented(values, validity, bit_offset, offsets, segments, mode, SumReducer<T>(),  \
                  [=](uint64_t s, SumReducer<T>::State v) {                                 \
                      auto r = narrow_sum(s, v, error_word);                                \
                      static_cast<decltype(r)*>(out)[s] = r;                                \
                  });                                                                       \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_min_##ONAME##_##NAME( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,   \
        uint64_t segments, uint32_t mode, T* out_values, long long* out_positions,          \
        uint8_t* out_flags) {                                                               \
        segmented(values, validity, bit_offset, offsets, segments, mode,                    \
                  ExtremumReducer<T, false>(), [=](uint64_t s, Arg<T> a) {                  \
                      if (out_values) out_values[s] = a.index < 0 ? T(0) : a.value;         \
                      if (out_positions) out_positions[s] = a.index < 0 ? 0 : a.index;      \
                      out_flags[s] = a.index >= 0;                                          \
                  });                                                                       \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_max_##ONAME##_##NAME( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,   \
        uint64_t segments, uint32_t mode, T* out_values, long long* out_positions,          \
        uint8_t* out_flags) {                                                               \
        segmented(values, validity, bit_offset, offsets, segments, mode,                    \
                  ExtremumReducer<T, true>(), [=](uint64_t s, Arg<T> a) {                   \
                      if (out_values) out_values[s] = a.index < 0 ? T(0) : a.value;         \
                      if (out_positions) out_positions[s] = a.index < 0 ? 0 : a.index;      \
                      out_flags[s] = a.index >= 0;                                          \
                  });                                                                       \
    }

#define RAGGED_SEGMENTED_I32(T, NAME) RAGGED_SEGMENTED(int32_t, i32, T, NAME)
#define RAGGED_SEGMENTED_I64(T, NAME) RAGGED_SEGMENTED(int64_t, i64, T, NAME)
RAGGED_FOR_EACH_NATIVE(RAGGED_SEGMENTED_I32)
RAGGED_FOR_EACH_NATIVE(RAGGED_SEGMENTED_I64)

#define RAGGED_SEGMENTED_COUNT(O, ONAME)                                                    \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_count_##ONAME(   \
        const uint8_t* validity, uint64_t bit_offset, const O* offsets, uint64_t segments,  \
        uint32_t mode, long long* out) {                                                    \
        const uint8_t* none = nullptr;                                                      \
        segmented(none, validity, bit_offset, offsets, segments, mode, CountReducer<uint8_t>(), \
                  [=](uint64_t s, long long c) { out[s] = c; });                            \
    }
RAGGED_SEGMENTED_COUNT(int32_t, i32)
RAGGED_SEGMENTED_COUNT(int64_t, i64)
