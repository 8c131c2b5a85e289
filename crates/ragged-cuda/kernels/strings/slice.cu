// slice: the byte range Python's row[start:stop] keeps of every row of a strings
// column, counting characters (slice_ranges_chars_<O>) or bytes
// (slice_ranges_bytes_<O>). The host then builds the column from the ranges as a
// starts/stops view over the bytes (compact offsets, then the load-balanced gather of
// lists/gather.cu), so this file only locates the ranges.
//
// Bounds: the same for every row (per_row = 0: has_start / start, has_stop / stop), or
// row i's starts[i] / stops[i] (per_row = 1). A row that is null, or whose per-row
// bound is null, keeps nothing (out_starts = out_stops = its first byte). When
// out_validity is not null the kernel writes the AND of the three validities, packed by
// warp ballots, and counts its unset bits into `nulls`.
// Characters: the k-th character starts at the row's k-th lead byte (not 0b10xxxxxx).
// Bytes: a valid row whose non-empty range starts or ends inside a character reports
// its row through the error word (code 1, lowest row wins); the host finds the byte.
//
// Mapping: one thread per row, grid-stride over rows rounded up to whole warps (every
// lane takes part in the ballots).
// Pseudo-code: (a, b) = python_slice(len(row), start, stop); out = (begin + byte(a),
//              begin + byte(b))
// Complexity: O(bytes) work for characters (one walk per row), O(rows) for bytes.
#include "common/ragged.cuh"

using namespace ragged;

/// Python's bounds over `len` positions: negative counts from the end, clamped, stop
/// never before start.
__device__ __forceinline__ void python_bounds(long long len, bool has_start, long long start, bool has_stop,
                                              long long stop, long long& a, long long& b) {
    auto norm = [len](long long x) {
        if (x < 0) return x + len < 0 ? 0 : x + len;
        return x < len ? x : len;
    };
    a = has_start ? norm(start) : 0;
    b = has_stop ? norm(stop) : len;
    if (b < a) b = a;
}

template <typename O, bool CHARS>
__device__ void slice_ranges(const O* offsets, const uint8_t* chars, const uint8_t* bits, uint64_t bit_offset,
                             uint64_t rows, uint32_t per_row, uint32_t has_start, long long start,
                             uint32_t has_stop, long long stop, const long long* starts,
                             const uint8_t* start_bits, uint64_t start_bit_offset, const long long* stops,
                             const uint8_t* stop_bits, uint64_t stop_bit_offset, O* out_starts, O* out_stops,
                             uint32_t* out_validity, unsigned long long* nulls, uint64_t* error_word) {
    const uint64_t rounded = (rows + 31) / 32 * 32;
    unsigned long long null_count = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        bool valid = false;
        if (row < rows) {
            const long long begin = static_cast<long long>(offsets[row]);
            const long long end = static_cast<long long>(offsets[row + 1]);
            valid = is_valid(bits, bit_offset, row);
            if (per_row) {
                valid = valid && is_valid(start_bits, start_bit_offset, row) &&
                        is_valid(stop_bits, stop_bit_offset, row);
            }
            long long from = 0, to = 0;
            if (valid) {
                const bool s_has = per_row ? true : has_start != 0;
                const bool e_has = per_row ? true : has_stop != 0;
                const long long s = per_row ? starts[row] : start;
                const long long e = per_row ? stops[row] : stop;
                const long long len = end - begin;
                if (CHARS) {
                    long long n = 0;
                    for (long long p = begin; p < end; ++p) n += (chars[p] & 0xC0u) != 0x80u;
                    long long a, b;
                    python_bounds(n, s_has, s, e_has, e, a, b);
                    from = a == n ? len : -1;
                    to = b == n ? len : -1;
                    long long k = 0;
                    for (long long p = begin; p < end && (from < 0 || to < 0); ++p) {
                        if ((chars[p] & 0xC0u) == 0x80u) continue;
                        if (k == a) from = p - begin;
                        if (k == b) to = p - begin;
                        ++k;
                    }
                } else {
                    python_bounds(len, s_has, s, e_has, e, from, to);
                    const auto cuts = [&](long long x) {
                        return x < len && (chars[begin + x] & 0xC0u) == 0x80u;
                    };
                    if (from < to && (cuts(from) || cuts(to))) {
                        report_error(error_word, row, 1);
                        from = to = 0;
                    }
                }
            }
            out_starts[row] = static_cast<O>(begin + from);
            out_stops[row] = static_cast<O>(begin + to);
        }
        // Uniform branch: every lane runs the same rounds.
        if (out_validity != nullptr) ballot_word(row, rows, valid, out_validity, null_count);
    }
    if (out_validity != nullptr) flush_count(nulls, null_count);
}

#define RAGGED_SLICE(O, ONAME, MODE, CHARS)                                                 \
    extern "C" __global__ void __launch_bounds__(256) slice_ranges_##MODE##_##ONAME(       \
        const O* offsets, const uint8_t* chars, const uint8_t* bits, uint64_t bit_offset, uint64_t rows, \
        uint32_t per_row, uint32_t has_start, long long start, uint32_t has_stop, long long stop, \
        const long long* starts, const uint8_t* start_bits, uint64_t start_bit_offset,      \
        const long long* stops, const uint8_t* stop_bits, uint64_t stop_bit_offset, O* out_starts, \
        O* out_stops, uint32_t* out_validity, unsigned long long* nulls, uint64_t* error_word) { \
        slice_ranges<O, CHARS>(offsets, chars, bits, bit_offset, rows, per_row, has_start, start, has_stop, \
                               stop, starts, start_bits, start_bit_offset, stops, stop_bits, stop_bit_offset, \
                               out_starts, out_stops, out_validity, nulls, error_word);          \
    }
RAGGED_SLICE(int32_t, i32, chars, true)
RAGGED_SLICE(int64_t, i64, chars, true)
RAGGED_SLICE(int32_t, i32, bytes, false)
RAGGED_SLICE(int64_t, i64, bytes, false)
