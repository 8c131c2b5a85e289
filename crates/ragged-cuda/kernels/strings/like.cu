// like: SQL LIKE matching of every row of a strings column against one pattern,
// compiled on the host into tokens (ragged_core::ops::like_tokens): a code point,
// ANY_ONE (`_`) or ANY_MANY (`%`). Matching is by characters, decoded from the row's
// UTF-8 bytes on the fly, with the greedy wildcard algorithm that backtracks to the
// last `%` (the CPU backend runs the same algorithm).
// The answers are bit-packed by warp ballots; their unset bits are counted into
// `falses`. The output validity is the column's (set by the host).
//
// Mapping: one thread per row, grid-stride over rows rounded up to whole warps (every
// lane takes part in the ballots).
// Pseudo-code: out[r] = like(chars[offsets[r] .. offsets[r + 1]], tokens)
// Complexity: O(row × pattern) per row in the worst case, linear with at most one `%`.
#include "common/ragged.cuh"

using namespace ragged;

constexpr uint32_t ANY_ONE = 0xFFFFFFFEu;
constexpr uint32_t ANY_MANY = 0xFFFFFFFFu;

/// The code point starting at chars[at] (valid UTF-8 ending before `end`) and its width.
__device__ __forceinline__ uint32_t decode(const uint8_t* chars, long long at, long long end, int& width) {
    const uint32_t b0 = chars[at];
    auto cont = [&](int k) { return at + k < end ? static_cast<uint32_t>(chars[at + k] & 0x3Fu) : 0u; };
    if (b0 < 0x80u) {
        width = 1;
        return b0;
    }
    if (b0 < 0xE0u) {
        width = 2;
        return ((b0 & 0x1Fu) << 6) | cont(1);
    }
    if (b0 < 0xF0u) {
        width = 3;
        return ((b0 & 0x0Fu) << 12) | (cont(1) << 6) | cont(2);
    }
    width = 4;
    return ((b0 & 0x07u) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
}

/// Whether chars[begin, end) matches the m tokens.
__device__ __forceinline__ bool like_match(const uint8_t* chars, long long begin, long long end,
                                           const uint32_t* tokens, long long m) {
    long long s = begin, p = 0;
    long long star_after = -1, mark = 0;  // after the last `%`: its next token, the resume position
    while (s < end) {
        int width;
        const uint32_t c = decode(chars, s, end, width);
        const uint32_t t = p < m ? tokens[p] : 0u;
        if (p < m && t == ANY_MANY) {
            star_after = p + 1;
            mark = s;
            ++p;
        } else if (p < m && (t == ANY_ONE || t == c)) {
            ++p;
            s += width;
        } else if (star_after >= 0) {
            // Let the last `%` take one more character and retry from there.
            int w;
            decode(chars, mark, end, w);
            mark += w;
            p = star_after;
            s = mark;
        } else {
            return false;
        }
    }
    while (p < m && tokens[p] == ANY_MANY) ++p;
    return p == m;
}

template <typename O>
__device__ void like(const O* offsets, const uint8_t* chars, uint64_t rows, const uint32_t* tokens, uint64_t m,
                     uint32_t* out, unsigned long long* falses) {
    const uint64_t rounded = (rows + 31) / 32 * 32;
    unsigned long long false_count = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        bool hit = false;
        if (row < rows) {
            hit = like_match(chars, static_cast<long long>(offsets[row]), static_cast<long long>(offsets[row + 1]),
                             tokens, static_cast<long long>(m));
        }
        ballot_word(row, rows, hit, out, false_count);
    }
    flush_count(falses, false_count);
}

#define RAGGED_LIKE(O, ONAME)                                                               \
    extern "C" __global__ void __launch_bounds__(256) like_##ONAME(                        \
        const O* offsets, const uint8_t* chars, uint64_t rows, const uint32_t* tokens, uint64_t m, \
        uint32_t* out, unsigned long long* falses) {                                        \
        like<O>(offsets, chars, rows, tokens, m, out, falses);                              \
    }
RAGGED_LIKE(int32_t, i32)
RAGGED_LIKE(int64_t, i64)
