// slice: row[start:stop] of every row of a strings column as Python slices it,
// counting characters (chars = 1: slice_chars) or bytes (chars = 0: slice_bytes), run
// by the string transform helpers (common/one_pass.cuh; common/two_pass.cuh when the
// host's bound is too large). The output is at most the input's bytes, the host's
// bound.
//
// Bounds: the same for every row (per_row = 0: has_start / start, has_stop / stop), or
// row i's starts[i] / stops[i] (per_row = 1). A row that is null, or whose per-row
// bound is null, is null.
// Characters: the k-th character starts at the row's k-th lead byte (not 0b10xxxxxx).
// Bytes: a valid row whose non-empty range starts or ends inside a character reports
// its row through error_word (code 1, lowest row wins) and writes nothing; the host
// finds the byte.
//
// Pseudo-code: (a, b) = python_slice(len(row), start, stop); out = row[byte(a) ..
//              byte(b)]
// Complexity: O(row bytes) per row for characters (a count and a walk), O(1) + the
// copy for bytes.
#include "common/one_pass.cuh"

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

struct Slice {
    StringInput col;
    const long long* starts;
    const uint8_t* start_bits;
    uint64_t start_bit_offset;
    const long long* stops;
    const uint8_t* stop_bits;
    uint64_t stop_bit_offset;
    long long start;
    long long stop;
    uint64_t* error_word;
    uint32_t per_row;
    uint32_t has_start;
    uint32_t has_stop;
    uint32_t chars;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        if (!col.valid(row)) return false;
        if (per_row && !(is_valid(start_bits, start_bit_offset, row) && is_valid(stop_bits, stop_bit_offset, row)))
            return false;
        const string_view s = col.get(row);
        const bool s_has = per_row || has_start;
        const bool e_has = per_row || has_stop;
        const long long s_at = per_row ? starts[row] : start;
        const long long e_at = per_row ? stops[row] : stop;
        long long from, to;
        if (chars) {
            const long long n = s.chars();
            long long a, b;
            python_bounds(n, s_has, s_at, e_has, e_at, a, b);
            from = a == n ? s.size : -1;
            to = b == n ? s.size : -1;
            long long k = 0;
            for (long long p = 0; p < s.size && (from < 0 || to < 0); ++p) {
                if ((s[p] & 0xC0u) == 0x80u) continue;
                if (k == a) from = p;
                if (k == b) to = p;
                ++k;
            }
        } else {
            python_bounds(s.size, s_has, s_at, e_has, e_at, from, to);
            const auto cuts = [&](long long x) { return x < s.size && (s[x] & 0xC0u) == 0x80u; };
            if (from < to && (cuts(from) || cuts(to))) {
                if (error_word != nullptr) report_error(error_word, row, 1);
                return true;
            }
        }
        w.bytes(s.data + from, to - from);
        return true;
    }
};
RAGGED_TWO_PASS(Slice, slice)
RAGGED_ONE_PASS(Slice, slice)
