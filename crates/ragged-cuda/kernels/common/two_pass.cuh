// two_pass.cuh: the shared two-pass helper for variable-length strings outputs
// (DESIGN.md §3). An op supplies a functor F with
//     __device__ bool operator()(uint64_t row, ragged::Writer& w) const;
// which writes row `row`'s bytes through w and returns whether the row is valid (the
// bytes of a null row must be none). The helper runs it twice:
//   1. two_pass_sizes: every row's size as an int32 (a row of 2^31 bytes or more is
//      reported through the error word, code 1), the validity packed by warp ballots
//      with its unset bits counted;
//   2. the host scans the sizes into offsets (i32 or i64, primitives/scan);
//   3. two_pass_fill: every row written at its offset.
// Mapping: one thread per row, grid-stride over rows rounded up to whole warps.
// RAGGED_TWO_PASS(F, NAME) instantiates the entry points
//   NAME_sizes(F, uint64_t rows, int32_t* sizes, uint32_t* validity, unsigned long long* nulls, uint64_t* error_word)
//   NAME_fill_i32(F, uint64_t rows, const int32_t* offsets, uint8_t* chars)
//   NAME_fill_i64(F, uint64_t rows, const long long* offsets, uint8_t* chars)
#pragma once
#include "common/strings.cuh"

namespace ragged {

template <typename F>
__device__ void two_pass_sizes(const F& f, uint64_t rows, int32_t* sizes, uint32_t* validity,
                               unsigned long long* nulls, uint64_t* error_word) {
    const uint64_t rounded = (rows + 31) / 32 * 32;
    unsigned long long null_count = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        bool valid = false;
        if (row < rows) {
            Writer w{nullptr, 0};
            valid = f(row, w);
            if (w.pos > 0x7fffffffll) {
                report_error(error_word, row, 1);
                w.pos = 0;
            }
            sizes[row] = valid ? static_cast<int32_t>(w.pos) : 0;
        }
        ballot_word(row, rows, valid, validity, null_count);
    }
    flush_count(nulls, null_count);
}

template <typename F, typename O>
__device__ void two_pass_fill(const F& f, uint64_t rows, const O* offsets, uint8_t* chars) {
    for (uint64_t row = global_thread(); row < rows; row += grid_threads()) {
        const O begin = offsets[row];
        if (offsets[row + 1] == begin) continue;
        Writer w{chars + begin, 0};
        f(row, w);
    }
}

}  // namespace ragged

#define RAGGED_TWO_PASS(F, NAME)                                                            \
    extern "C" __global__ void __launch_bounds__(256)                                       \
        NAME##_sizes(F f, uint64_t rows, int32_t* sizes, uint32_t* validity, unsigned long long* nulls, \
                     uint64_t* error_word) {                                                \
        ragged::two_pass_sizes(f, rows, sizes, validity, nulls, error_word);               \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256)                                       \
        NAME##_fill_i32(F f, uint64_t rows, const int32_t* offsets, uint8_t* chars) {       \
        ragged::two_pass_fill(f, rows, offsets, chars);                                     \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256)                                       \
        NAME##_fill_i64(F f, uint64_t rows, const long long* offsets, uint8_t* chars) {     \
        ragged::two_pass_fill(f, rows, offsets, chars);                                     \
    }
