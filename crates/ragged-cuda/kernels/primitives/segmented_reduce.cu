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
#include "common/segmented_tiles.cuh"

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

// Sums of integers of at most 32 bits by tiles of elements (common/segmented_tiles.cuh),
// for segmented_sum and for the lists' list_sum (the list validity as segment validity):
// segmented_tiles_<O> (step 1) then segmented_sum_tiles_<O>_<T> (step 2), chosen by the
// host for segments of 8 to 128 elements on average.
#define RAGGED_SEGMENTED_TILES(O, ONAME)                                                          \
    extern "C" __global__ void __launch_bounds__(TILE_SUM_BLOCK) segmented_tiles_##ONAME(          \
        const O* offsets, const uint8_t* segment_validity, uint64_t segment_bit_offset,           \
        uint64_t segments, long long base, long long tile, uint64_t tiles,                        \
        unsigned long long* first, unsigned long long* out, uint32_t* words,                      \
        unsigned long long* set_count) {                                                          \
        segment_tiles(offsets, segment_validity, segment_bit_offset, segments, base, tile, tiles, \
                      first, 0ull, out, words, set_count);                                        \
    }
RAGGED_SEGMENTED_TILES(int32_t, i32)
RAGGED_SEGMENTED_TILES(int64_t, i64)

// BOUNDS: the launch bounds. 32-bit elements with 32-bit offsets ask for eight blocks
// per SM (32 registers, every warp slot of an SM; the shared memory allows eight),
// where they spill nothing (42 registers before: five blocks); the others spill at 32
// registers and keep the compiler's choice.
#define RAGGED_SUM_TILES_BOUNDS __launch_bounds__(TILE_SUM_BLOCK)
#define RAGGED_SUM_TILES_BOUNDS_FULL __launch_bounds__(TILE_SUM_BLOCK, 8)
#define RAGGED_SEGMENTED_SUM_TILES(O, ONAME, T, NAME, BOUNDS)                                    \
    extern "C" __global__ void BOUNDS segmented_sum_tiles_##ONAME##_##NAME(                       \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,          \
        const uint8_t* segment_validity, uint64_t segment_bit_offset,                             \
        const unsigned long long* first, long long base, long long lo, long long hi, void* out) { \
        tile_sums(values, validity, bit_offset, offsets, segment_validity, segment_bit_offset,    \
                  first, base, lo, hi, static_cast<SumTraits<T>::Thread*>(out));                 \
    }
#define RAGGED_SEGMENTED_SUM_TILES_TYPES(O, ONAME, WIDE_BOUNDS)                                  \
    RAGGED_SEGMENTED_SUM_TILES(O, ONAME, int8_t, i8, RAGGED_SUM_TILES_BOUNDS)                    \
    RAGGED_SEGMENTED_SUM_TILES(O, ONAME, int16_t, i16, RAGGED_SUM_TILES_BOUNDS)                  \
    RAGGED_SEGMENTED_SUM_TILES(O, ONAME, int32_t, i32, WIDE_BOUNDS)                              \
    RAGGED_SEGMENTED_SUM_TILES(O, ONAME, uint8_t, u8, RAGGED_SUM_TILES_BOUNDS)                   \
    RAGGED_SEGMENTED_SUM_TILES(O, ONAME, uint16_t, u16, RAGGED_SUM_TILES_BOUNDS)                 \
    RAGGED_SEGMENTED_SUM_TILES(O, ONAME, uint32_t, u32, WIDE_BOUNDS)
RAGGED_SEGMENTED_SUM_TILES_TYPES(int32_t, i32, RAGGED_SUM_TILES_BOUNDS_FULL)
RAGGED_SEGMENTED_SUM_TILES_TYPES(int64_t, i64, RAGGED_SUM_TILES_BOUNDS)
