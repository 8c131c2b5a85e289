// compact_offsets: offsets of the compact (Arrow List) form of a starts/stops (ListView)
// column, and counts_to_offsets: offsets from per-list counts (unflatten).
//
// compact_offsets_<O>_<W>: out[0] = 0, out[i + 1] = out[i] + size(i), out[n] = total,
// where size(i) = stops[i] - starts[i] (0 for a list that is null in the optional
// validity bitmap, so null lists become empty). Every list, null or not, is checked in
// the same pass, exactly as ragged_core::column::starts_stops_error classifies it:
//   code 1  stops[i] < starts[i]                      (StopsBeforeStarts)
//   code 2  else starts[i] < 0 or stops[i] > child_len (ListOutOfBounds)
//   code 3  (W = i32) the offset at index i exceeds INT32_MAX, reported at 2^54 + i so
//           that a bad list anywhere wins over an overflow (the host validates first).
// The host reads starts[i] and stops[i] of the lowest reported list back to build the
// structured error.
//
// counts_to_offsets_<O>: the same scan over counts (null counts as 0): code 1 for a
// negative valid count, code 2 (at 2^54 + i) for an i32 offset above INT32_MAX.
//
// Mapping: one block of 128 threads per tile of 128 * ITEMS lists, single pass with
// decoupled look-back (common/scan.cuh). compact_offsets loads (start, stop) pairs
// through an iterator over the two arrays, so cub::BlockLoad reads both coalesced
// (warp-striped, then transposed in shared memory); each thread classifies and sizes
// its ITEMS lists in registers before the block scan.
// Pseudo-code: size(i) = check(starts[i], stops[i]); out = exclusive_scan(size); out[n] = total
// Complexity: O(n) work; starts and stops read once, n + 1 offsets written once.
#include "common/scan.cuh"

using namespace ragged;

/// Overflow reports are offset by 2^54 so that an invalid list anywhere wins.
constexpr uint64_t OVERFLOW_BASE = 1ull << 54;

/// One list's (start, stop).
template <typename O> struct StartStop {
    O start;
    O stop;
};

/// A random-access iterator pairing starts[i] with stops[i].
template <typename O> struct StartStopIt {
    const O* starts;
    const O* stops;
    __device__ __forceinline__ StartStop<O> operator[](long long i) const { return StartStop<O>{starts[i], stops[i]}; }
    __device__ __forceinline__ StartStopIt operator+(uint64_t k) const { return StartStopIt{starts + k, stops + k}; }
};

/// Lists per thread: 12 (i32 pairs, 96 bytes) or RAGGED_COMPACT_ITEMS_I64 (i64 pairs,
/// 10 by default: 160 bytes). experiments/compact_offsets_items.cu chose 10 at 2^28
/// lists: 0.885 x copy on an H200 and 0.958 on an H100, against 0.823 and 0.935 for 8
/// (4: 0.73, 6: 0.83, 9: 0.88, 11: 0.85, 12: 0.77, 16: 0.81 on the H200). The host
/// knows these (src/lists/compact_offsets.rs).
#ifndef RAGGED_COMPACT_ITEMS_I64
#define RAGGED_COMPACT_ITEMS_I64 10
#endif
template <typename O> struct CompactItems {
    static constexpr int value = sizeof(O) == 4 ? 12 : RAGGED_COMPACT_ITEMS_I64;
};

template <typename O, typename W>
__device__ void compact_offsets(const O* starts, const O* stops, const uint8_t* validity, uint64_t bit_offset,
                                uint64_t n, long long child_len, W* out, void* state, uint64_t state_bytes,
                                uint64_t* error_word, long long* total_out) {
    auto load = [=](uint64_t row, StartStop<O> p) -> long long {
        const long long a = static_cast<long long>(p.start), b = static_cast<long long>(p.stop);
        if (b < a) {
            report_error(error_word, row, 1);
            return 0;
        }
        if (a < 0 || b > child_len) {
            report_error(error_word, row, 2);
            return 0;
        }
        return is_valid(validity, bit_offset, row) ? b - a : 0;
    };
    auto convert = [=](uint64_t row, long long offset) -> W {
        if (sizeof(W) == 4 && offset > 2147483647ll) report_error(error_word, OVERFLOW_BASE + row, 3);
        return static_cast<W>(offset);
    };
    auto on_total = [=](long long total) {
        if (sizeof(W) == 4 && total > 2147483647ll) report_error(error_word, OVERFLOW_BASE + n, 3);
        out[n] = static_cast<W>(total);
        total_out[0] = total;
    };
    scan_tile<ScanShape<CompactItems<O>::value>, StartStop<O>, long long, W>(
        StartStopIt<O>{starts, stops}, n, out, state, state_bytes, true, 0ll, SumOp(), load, convert, on_total);
}

#define RAGGED_COMPACT_OFFSETS(O, ONAME, W, WNAME)                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) compact_offsets_##ONAME##_##WNAME( \
        const O* starts, const O* stops, const uint8_t* validity, uint64_t bit_offset, uint64_t n, \
        long long child_len, W* out, void* state, uint64_t state_bytes, uint64_t* error_word, \
        long long* total) {                                                                 \
        compact_offsets<O, W>(starts, stops, validity, bit_offset, n, child_len, out, state, state_bytes, \
                              error_word, total);                                           \
    }
RAGGED_COMPACT_OFFSETS(int32_t, i32, int32_t, i32)
RAGGED_COMPACT_OFFSETS(int32_t, i32, int64_t, i64)
RAGGED_COMPACT_OFFSETS(int64_t, i64, int32_t, i32)
RAGGED_COMPACT_OFFSETS(int64_t, i64, int64_t, i64)

/// Counts per thread: 24 for i32, 12 for i64 (as the library's other scans).
template <typename O> struct CountItems { static constexpr int value = sizeof(O) == 4 ? 24 : 12; };

template <typename O>
__device__ void counts_to_offsets(const O* counts, const uint8_t* validity, uint64_t bit_offset, uint64_t n, O* out,
                                  void* state, uint64_t state_bytes, uint64_t* error_word, long long* total_out) {
    auto load = [=](uint64_t row, O count) -> long long {
        if (!is_valid(validity, bit_offset, row)) return 0;
        if (count < 0) {
            report_error(error_word, row, 1);
            return 0;
        }
        return static_cast<long long>(count);
    };
    auto convert = [=](uint64_t row, long long offset) -> O {
        if (sizeof(O) == 4 && offset > 2147483647ll) report_error(error_word, OVERFLOW_BASE + row, 2);
        return static_cast<O>(offset);
    };
    auto on_total = [=](long long total) {
        if (sizeof(O) == 4 && total > 2147483647ll) report_error(error_word, OVERFLOW_BASE + n, 2);
        out[n] = static_cast<O>(total);
        total_out[0] = total;
    };
    scan_tile<ScanShape<CountItems<O>::value>, O, long long, O>(counts, n, out, state, state_bytes, true, 0ll,
                                                                SumOp(), load, convert, on_total);
}

#define RAGGED_COUNTS_TO_OFFSETS(O, NAME)                                                   \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) counts_to_offsets_##NAME(     \
        const O* counts, const uint8_t* validity, uint64_t bit_offset, uint64_t n, O* out,  \
        void* state, uint64_t state_bytes, uint64_t* error_word, long long* total) {        \
        counts_to_offsets<O>(counts, validity, bit_offset, n, out, state, state_bytes, error_word, total); \
    }
RAGGED_COUNTS_TO_OFFSETS(int32_t, i32)
RAGGED_COUNTS_TO_OFFSETS(int64_t, i64)

// The tile state of the 64-bit accumulator.
RAGGED_SCAN_STATE(long long, acc_i64)
