// segmented_reduce: one reduction per segment offsets[i]..offsets[i + 1] of a primitive
// column — segmented_sum, segmented_min / segmented_max (with the position of the
// extreme inside the segment, for argmin / argmax), segmented_count (valid values).
//
// Mapping: the engine of common/segmented.cuh (thread, four lanes, warp or block per
// segment, chosen by the host from the average segment length). Each reduction has one
// entry point per mode, <name>_m<mode> (mode 0..3), each compiled for its mode alone.
// Nulls contribute the identity; extremes skip NaN unless the segment holds only NaN
// (common/primitives.cuh, better()). A segment without a valid value gets validity
// flag 0 (packed into a bitmap by common/bitmap.cu). Sums of integers accumulate in
// 128 bits; a segment whose sum does not fit i64 / u64 reports its index (code 1).
// Pseudo-code: out[s] = reduce(x[offsets[s] .. offsets[s + 1]])
// Complexity: O(n + segments) work; values read once, one result per segment written.
#include "common/segmented.cuh"

using namespace ragged;

#define RAGGED_SEGMENTED_MODE(O, ONAME, T, NAME, M)                                              \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_sum_##ONAME##_##NAME##_m##M( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,   \
        uint64_t segments, void* out, uint64_t* error_word) {               \
        segmented<M>(ArrayLoad<T>{values}, validity, bit_offset, offsets, nullptr, 0, segments, SumReducer<T>(),  \
                  [=](uint64_t s, SumReducer<T>::State v) {                                 \
                      auto r = narrow_sum(s, v, error_word);                                \
                      static_cast<decltype(r)*>(out)[s] = r;                                \
                  });                                                                       \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_min_##ONAME##_##NAME##_m##M( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,   \
        uint64_t segments, T* out_values, long long* out_positions,          \
        uint8_t* out_flags) {                                                               \
        segmented<M>(ArrayLoad<T>{values}, validity, bit_offset, offsets, nullptr, 0, segments,                          \
                  ExtremumReducer<T, false>(), [=](uint64_t s, Arg<T> a) {                  \
                      if (out_values) out_values[s] = a.index < 0 ? T(0) : a.value;         \
                      if (out_positions) out_positions[s] = a.index < 0 ? 0 : a.index;      \
                      out_flags[s] = a.index >= 0;                                          \
                  });                                                                       \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_max_##ONAME##_##NAME##_m##M( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,   \
        uint64_t segments, T* out_values, long long* out_positions,          \
        uint8_t* out_flags) {                                                               \
        segmented<M>(ArrayLoad<T>{values}, validity, bit_offset, offsets, nullptr, 0, segments,                          \
                  ExtremumReducer<T, true>(), [=](uint64_t s, Arg<T> a) {                   \
                      if (out_values) out_values[s] = a.index < 0 ? T(0) : a.value;         \
                      if (out_positions) out_positions[s] = a.index < 0 ? 0 : a.index;      \
                      out_flags[s] = a.index >= 0;                                          \
                  });                                                                       \
    }

#define RAGGED_SEGMENTED(O, ONAME, T, NAME) RAGGED_FOR_EACH_MODE(RAGGED_SEGMENTED_MODE, O, ONAME, T, NAME)
#define RAGGED_SEGMENTED_I32(T, NAME) RAGGED_SEGMENTED(int32_t, i32, T, NAME)
#define RAGGED_SEGMENTED_I64(T, NAME) RAGGED_SEGMENTED(int64_t, i64, T, NAME)
RAGGED_FOR_EACH_NATIVE(RAGGED_SEGMENTED_I32)
RAGGED_FOR_EACH_NATIVE(RAGGED_SEGMENTED_I64)

#define RAGGED_SEGMENTED_COUNT_MODE(O, ONAME, M)                                                 \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) segmented_count_##ONAME##_m##M(   \
        const uint8_t* validity, uint64_t bit_offset, const O* offsets, uint64_t segments,  \
        long long* out) {                                                           \
        const uint8_t* none = nullptr;                                                      \
        segmented<M>(ArrayLoad<uint8_t>{none}, validity, bit_offset, offsets, nullptr, 0, segments, CountReducer<uint8_t>(), \
                  [=](uint64_t s, long long c) { out[s] = c; });                            \
    }
#define RAGGED_SEGMENTED_COUNT(O, ONAME) RAGGED_FOR_EACH_MODE(RAGGED_SEGMENTED_COUNT_MODE, O, ONAME)
RAGGED_SEGMENTED_COUNT(int32_t, i32)
RAGGED_SEGMENTED_COUNT(int64_t, i64)
