// validate_offsets: check an offsets buffer against the Arrow invariants on the device.
//
// Computes the same answer as ragged_core::column::validate_offsets on the host: the
// lowest index i where
//   code 1 (negative):     i == 0 && offsets[0] < 0
//   code 2 (decreasing):   i > 0  && offsets[i] < offsets[i - 1]
//   code 3 (out of bounds): offsets[i] > values_len
// checked in that order at each index; reported through the device error word.
//
// validate_offsets_ends_<O> also writes the first and the last offset (as i64) into
// the two words after the error word, so that one read back gives the caller both
// (segmented reductions choose their mapping from the average segment length).
// Mapping: one thread per offset, grid-stride loop. Each thread reads offsets[i] and
// offsets[i - 1] (the second read hits L1/L2), so the kernel moves the offsets once.
// Complexity: O(n) work, O(1) depth plus one atomic per failing index.
#include "common/ragged.cuh"

template <typename O>
__device__ void validate_offsets_check(const O* offsets, uint64_t count, int64_t values_len,
                                       uint64_t* error_word, uint64_t* ends) {
    if (ends != nullptr && ragged::global_thread() == 0) {
        ends[0] = static_cast<uint64_t>(static_cast<int64_t>(offsets[0]));
        ends[1] = static_cast<uint64_t>(static_cast<int64_t>(offsets[count - 1]));
    }
    for (uint64_t i = ragged::global_thread(); i < count; i += ragged::grid_threads()) {
        const int64_t value = static_cast<int64_t>(offsets[i]);
        if (i == 0) {
            if (value < 0) { ragged::report_error(error_word, i, 1); continue; }
        } else if (value < static_cast<int64_t>(offsets[i - 1])) {
            ragged::report_error(error_word, i, 2);
            continue;
        }
        if (value > values_len) ragged::report_error(error_word, i, 3);
    }
}

#define RAGGED_VALIDATE_OFFSETS(O, NAME)                                                    \
    extern "C" __global__ void validate_offsets_check_##NAME(                               \
        const O* offsets, uint64_t count, int64_t values_len, uint64_t* error_word) {       \
        validate_offsets_check<O>(offsets, count, values_len, error_word, nullptr);         \
    }                                                                                       \
    extern "C" __global__ void validate_offsets_ends_##NAME(                                \
        const O* offsets, uint64_t count, int64_t values_len, uint64_t* words) {            \
        validate_offsets_check<O>(offsets, count, values_len, words, words + 1);            \
    }
RAGGED_VALIDATE_OFFSETS(int32_t, i32)
RAGGED_VALIDATE_OFFSETS(int64_t, i64)
