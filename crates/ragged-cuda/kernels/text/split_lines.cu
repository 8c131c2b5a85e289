// split_lines: the records column built from the record boundaries b[0..=n] of
// line_ends.cu (record i with its delimiter is hay[b[i] .. b[i + 1]]).
//
// - keep delimiters: the values are the input slice hay[b[0] .. b[n]] (no copy); the
//   offsets are b - b[0] (split_lines_rebase, one thread per offset).
// - strip delimiters: strip[i] = the bytes a record loses (m for a terminated record,
//   one more in newline mode when a `\r` precedes the `\n` inside the record), one
//   thread per record (split_lines_strip); the host scans strip (inclusive, 64-bit) and
//   offsets are off[i + 1] = b[i + 1] - b[0] - scan[i] (split_lines_offsets, one thread
//   per offset; the width is chosen from the total first); the characters are gathered
//   one warp per record (split_lines_gather: lanes copy consecutive bytes).
// - UTF-8 (unless binary): one warp per output row (split_lines_validate): lane j
//   checks whether byte j of the row is where the row stops being UTF-8 — a lead byte
//   whose sequence is bad or cut by the row's end, or a continuation byte no lead of
//   the row covers — and reports its position in the values (offsets[row] + j) through
//   the error word; the lowest position is the lowest (row, byte) since rows are
//   consecutive, and the host turns it into (row, byte within the row), which equals
//   std's `valid_up_to` of the row.
// Pseudo-code:
//   strip[i] = (i + 1 < n || terminated) ? m + (newline && e > b[i] && hay[e - 1] == '\r') : 0,
//              with e = b[i + 1] - m
//   off[0] = 0; off[i + 1] = b[i + 1] - b[0] - inclusive_scan(strip)[i]
//   chars[off[i] .. off[i + 1]] = hay[b[i] .. b[i] + off[i + 1] - off[i]]
// Complexity: O(n + bytes) work; the characters are read and written once (gather) and
// read once more by the UTF-8 check. Warp per record: a record much longer than the
// others keeps one warp busy (records are typically short).
#include "common/ragged.cuh"

using namespace ragged;

/// Bytes of the UTF-8 sequence led by `c`: 1 for ASCII, 2 to 4 for valid lead bytes,
/// 0 for bytes that cannot lead (continuations, C0, C1, F5..FF).
__device__ __forceinline__ int sequence_length(uint8_t c) {
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return 2;
    if (c >= 0xE0 && c <= 0xEF) return 3;
    if (c >= 0xF0 && c <= 0xF4) return 4;
    return 0;
}

/// Whether the row `r` of `len` bytes stops being UTF-8 at byte `j`: the first such
/// byte of a row is std's `valid_up_to` (every byte before it belongs to a valid
/// character, so no earlier byte is flagged).
__device__ __forceinline__ bool utf8_breaks_at(const uint8_t* r, long long len, long long j) {
    const uint8_t c = r[j];
    if (c < 0x80) return false;
    if ((c & 0xC0) == 0x80) {
        // A continuation byte: the nearest non-continuation byte at most 3 back must
        // lead a sequence long enough to cover it.
        for (int k = 1; k <= 3; ++k) {
            if (j - k < 0) return true;
            const uint8_t b = r[j - k];
            if ((b & 0xC0) != 0x80) return k >= sequence_length(b);
        }
        return true;
    }
    const int need = sequence_length(c);
    if (need == 0 || j + need > len) return true;
    const uint8_t c1 = r[j + 1];
    uint8_t lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;       // overlong
    if (c == 0xED) hi = 0x9F;       // surrogates
    if (c == 0xF0) lo = 0x90;       // overlong
    if (c == 0xF4) hi = 0x8F;       // above U+10FFFF
    if (c1 < lo || c1 > hi) return true;
    for (int k = 2; k < need; ++k)
        if ((r[j + k] & 0xC0) != 0x80) return true;
    return false;
}

template <typename O>
__device__ void rebase(const long long* b, uint64_t count, O* out) {
    const long long first = b[0];
    for (uint64_t i = global_thread(); i < count; i += grid_threads()) out[i] = static_cast<O>(b[i] - first);
}

template <typename O>
__device__ void stripped_offsets(const long long* b, const long long* scanned, uint64_t rows, O* out) {
    const long long first = b[0];
    for (uint64_t i = global_thread(); i <= rows; i += grid_threads())
        out[i] = i == 0 ? O(0) : static_cast<O>(b[i] - first - scanned[i - 1]);
}

template <typename O>
__device__ void gather(const uint8_t* hay, const long long* b, const O* offsets, uint64_t rows, uint8_t* chars) {
    const unsigned lane = threadIdx.x & 31u;
    const uint64_t warps = grid_threads() >> 5;
    for (uint64_t row = global_thread() >> 5; row < rows; row += warps) {
        const long long from = b[row];
        const long long to = static_cast<long long>(offsets[row]);
        const long long size = static_cast<long long>(offsets[row + 1]) - to;
        for (long long k = lane; k < size; k += 32) chars[to + k] = hay[from + k];
    }
}

template <typename O>
__device__ void validate(const O* offsets, const uint8_t* values, uint64_t rows, uint64_t* word) {
    const unsigned lane = threadIdx.x & 31u;
    const uint64_t warps = grid_threads() >> 5;
    for (uint64_t row = global_thread() >> 5; row < rows; row += warps) {
        const long long begin = static_cast<long long>(offsets[row]);
        const long long len = static_cast<long long>(offsets[row + 1]) - begin;
        const uint8_t* r = values + begin;
        for (long long j = lane; j < len; j += 32) {
            if (utf8_breaks_at(r, len, j)) {
                report_error(word, static_cast<uint64_t>(begin + j), 1);
                break;
            }
        }
    }
}

/// strip[i] for the `rows` records; see the file comment.
extern "C" __global__ void __launch_bounds__(256) split_lines_strip(const uint8_t* hay, const long long* b,
                                                                    uint64_t rows, uint32_t terminated,
                                                                    uint32_t m, uint32_t newline, int* strip) {
    for (uint64_t i = global_thread(); i < rows; i += grid_threads()) {
        int s = 0;
        if (i + 1 < rows || terminated) {
            const long long e = b[i + 1] - m;
            s = static_cast<int>(m) + (newline && e > b[i] && hay[e - 1] == '\r' ? 1 : 0);
        }
        strip[i] = s;
    }
}

#define RAGGED_SPLIT_LINES(O, NAME)                                                         \
    extern "C" __global__ void __launch_bounds__(256) split_lines_rebase_##NAME(            \
        const long long* b, uint64_t count, O* out) {                                       \
        rebase<O>(b, count, out);                                                           \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256) split_lines_offsets_##NAME(           \
        const long long* b, const long long* scanned, uint64_t rows, O* out) {              \
        stripped_offsets<O>(b, scanned, rows, out);                                         \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256) split_lines_gather_##NAME(            \
        const uint8_t* hay, const long long* b, const O* offsets, uint64_t rows, uint8_t* chars) { \
        gather<O>(hay, b, offsets, rows, chars);                                            \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256) split_lines_validate_##NAME(          \
        const O* offsets, const uint8_t* values, uint64_t rows, uint64_t* word) {           \
        validate<O>(offsets, values, rows, word);                                           \
    }
RAGGED_SPLIT_LINES(int32_t, i32)
RAGGED_SPLIT_LINES(int64_t, i64)
