// slice: row[start:stop] of every row of a strings column as Python slices it,
// counting characters (chars = 1: slice_chars) or bytes (chars = 0: slice_bytes), run
// by the string transform helpers (common/one_pass.cuh; common/two_pass.cuh when the
// host's bound is too large). The output is at most the input's bytes, the host's
// bound.
//
// Bounds: the same for every row (per_row = 0: has_start / start, has_stop / stop), or
// row i's starts[i] / stops[i] (per_row = 1). A row that is null, or whose per-row
// bound is null, is null.
// Characters: the k-th character starts at the row's k-th lead byte (not 0b10xxxxxx);
// a bound is located by walking from the row's start (k >= 0) or end (k < 0).
// Bytes: a valid row whose non-empty range starts or ends inside a character reports
// its row through error_word (code 1, lowest row wins) and writes nothing; the host
// finds the byte.
//
// Pseudo-code: (a, b) = python_slice(len(row), start, stop); out = row[byte(a) ..
//              byte(b)]
// Complexity: O(|start| + |stop|) characters walked per row for characters, O(1) for
// bytes, plus the copy.
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

/// The byte position in `s` of character `k` as Python indexes it (negative counts
/// from the end), clamped to [0, size]: a walk over k characters from the nearer end,
/// so that the row's characters need not be counted.
__device__ __forceinline__ long long char_position(string_view s, long long k) {
    long long p = 0;
    if (k >= 0) {
        for (; k > 0 && p < s.size; --k) p += s.char_bytes_at(p);
        return p < s.size ? p : s.size;
    }
    p = s.size;
    for (; k < 0 && p > 0; ++k) {
        --p;
        while (p > 0 && (s[p] & 0xC0u) == 0x80u) --p;
    }
    return p;
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
            // Character positions map to byte positions in order, so Python's clamped
            // bounds are the byte positions of the clamped characters.
            from = s_has ? char_position(s, s_at) : 0;
            to = e_has ? char_position(s, e_at) : s.size;
            if (to < from) to = from;
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
