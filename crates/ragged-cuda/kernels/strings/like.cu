// like: SQL LIKE matching of every row of a strings column against one pattern,
// compiled on the host into tokens (ragged_core::ops::like_tokens): a code point,
// ANY_ONE (`_`) or ANY_MANY (`%`). Matching is by characters, decoded from the row's
// UTF-8 bytes on the fly: the segments between `%` are matched anchored at the two
// ends and leftmost in between (the CPU backend's algorithm).
// The answers are bit-packed by warp ballots; their unset bits are counted into
// `falses`. The output validity is the column's (set by the host).
//
// Mapping: tiles of rows staged in shared memory (16-byte loads; stage_row_tile), one
// thread per row of the tile; grid-stride over tiles. A staged tile whose bytes are all
// ASCII is matched byte by byte (no decoding; a middle segment's candidates are the
// bytes equal to its first token).
// Pseudo-code: out[r] = like(chars[offsets[r] .. offsets[r + 1]], tokens)
// Complexity: O(row × pattern) per row in the worst case, O(row) for short segments.
#include "common/strings.cuh"

using namespace ragged;

constexpr uint32_t ANY_ONE = 0xFFFFFFFEu;
constexpr uint32_t ANY_MANY = 0xFFFFFFFFu;

/// The code point starting at chars[at] (valid UTF-8 ending before `end`) and its width;
/// with ASCII (every byte of the row is below 0x80), the byte itself.
template <bool ASCII, typename I>
__device__ __forceinline__ uint32_t decode(const uint8_t* chars, I at, I end, int& width) {
    const uint32_t b0 = chars[at];
    if constexpr (ASCII) {
        width = 1;
        return b0;
    }
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

/// Whether tokens [t0, t1) (none of them ANY_MANY) match the characters from chars[at]
/// on, none at or after `end`; on a match `at` moves past them.
template <bool ASCII, typename I>
__device__ __forceinline__ bool match_segment(const uint8_t* chars, I& at, I end, const uint32_t* tokens, I t0, I t1) {
    I s = at;
    for (I p = t0; p < t1; ++p) {
        if (s >= end) return false;
        int width;
        const uint32_t c = decode<ASCII, I>(chars, s, end, width);
        const uint32_t t = tokens[p];
        if (t != ANY_ONE && t != c) return false;
        s += width;
    }
    at = s;
    return true;
}

/// The places of the first and last ANY_MANY among the m tokens (first_any = m when
/// there is none), the same for every row: found once per block.
template <typename I> struct LikeShape {
    I first_any;
    I last_any;
};

__device__ __forceinline__ LikeShape<long long> like_shape(const uint32_t* tokens, long long m) {
    LikeShape<long long> shape{m, m};
    for (long long t = m - 1; t >= 0; --t)
        if (tokens[t] == ANY_MANY) {
            shape.first_any = t;
            if (shape.last_any == m) shape.last_any = t;
        }
    return shape;
}

/// Whether chars[begin, end) matches the m tokens (`shape` their like_shape): the
/// segments between `%` tokens (like_tokens collapses their runs) are matched anchored
/// at the start (the first), anchored at the end (the last) and leftmost in between,
/// each after the one before — leftmost is the earliest end, so no other placement can
/// match where it does not. ASCII: every byte of the row is below 0x80, so characters
/// are bytes. I: the index type of the row's bytes and of the tokens (int for a staged
/// tile and a pattern that fits shared memory: half the instructions of 64-bit index
/// arithmetic).
template <bool ASCII, typename I>
__device__ __forceinline__ bool like_match(const uint8_t* chars, I begin, I end, const uint32_t* tokens, I m,
                                           LikeShape<I> shape) {
    const I first_any = shape.first_any;
    I pos = begin;
    if (first_any == m) return match_segment<ASCII, I>(chars, pos, end, tokens, 0, m) && pos == end;
    if (!match_segment<ASCII, I>(chars, pos, end, tokens, 0, first_any)) return false;
    // The last segment: as many characters before the end as it has tokens.
    const I last_any = shape.last_any;
    I hi = end;
    for (I p = last_any + 1; p < m; ++p) {
        if (hi <= pos) return false;
        --hi;
        if constexpr (!ASCII)
            while (hi > pos && (chars[hi] & 0xC0u) == 0x80u) --hi;
    }
    I tail = hi;
    if (!match_segment<ASCII, I>(chars, tail, end, tokens, last_any + 1, m)) return false;
    // The middle segments, each at its leftmost match ending by `hi`.
    for (I t = first_any + 1; t < last_any;) {
        I e = t;
        while (tokens[e] != ANY_MANY) ++e;
        bool found = false;
        const uint32_t lead = tokens[t];
        for (I p = pos; p < hi;) {
            I s = p;
            // ASCII: a byte that is not the segment's first token starts no match.
            if ((!ASCII || lead == ANY_ONE || chars[p] == lead) && match_segment<ASCII, I>(chars, s, hi, tokens, t, e)) {
                pos = s;
                found = true;
                break;
            }
            int width;
            decode<ASCII, I>(chars, p, hi, width);
            p += width;
        }
        if (!found) return false;
        t = e + 1;
    }
    return true;
}

/// Tokens a block copies to shared memory (a longer pattern is read from global memory).
constexpr int LIKE_SHARED_TOKENS = 256;

/// Tiles of `tile_rows` rows (a multiple of 32, at most TILE_ROWS), grid-stride: a
/// tile whose bytes fit is staged in shared memory (stage_row_tile) and matched there,
/// else matched in global memory. The tokens are read from shared memory when they fit
/// LIKE_SHARED_TOKENS, and their shape (like_shape) is found once per block.
template <typename O>
__device__ void like(const O* offsets, const uint8_t* chars, uint64_t rows, const uint32_t* global_tokens,
                     uint64_t m, uint32_t tile_rows, uint32_t* out, unsigned long long* falses) {
    __shared__ RowTile tiled;
    __shared__ uint32_t shared_tokens[LIKE_SHARED_TOKENS];
    const int tid = threadIdx.x;
    const bool in_shared = m <= LIKE_SHARED_TOKENS;  // uniform
    if (in_shared)
        for (int t = tid; t < static_cast<int>(m); t += blockDim.x) shared_tokens[t] = global_tokens[t];
    __syncthreads();
    const uint32_t* tokens = in_shared ? shared_tokens : global_tokens;
    const LikeShape<long long> shape = like_shape(tokens, static_cast<long long>(m));
    // The same places as ints, used for staged rows with the tokens in shared memory
    // (m <= LIKE_SHARED_TOKENS); 64-bit indices otherwise.
    const LikeShape<int> shape32{static_cast<int>(shape.first_any), static_cast<int>(shape.last_any)};
    const uint64_t tiles = (rows + tile_rows - 1) / tile_rows;
    unsigned long long false_count = 0;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t first = tile * tile_rows;
        const int n = static_cast<int>(rows - first < tile_rows ? rows - first : tile_rows);
        const int span = stage_row_tile(offsets, chars, first, n, tiled);
        // Whether the staged bytes (zeros around them) are all ASCII: block-wide.
        bool high = false;
        for (int c = tid; 16 * c < span; c += blockDim.x) {
            const uint4 v = *reinterpret_cast<const uint4*>(tiled.bytes + 16 * c);
            high |= ((v.x | v.y | v.z | v.w) & 0x80808080u) != 0;
        }
        const bool ascii = span >= 0 && !__syncthreads_or(high);
        for (int r = tid; r - (tid & 31) < n; r += blockDim.x) {
            const uint64_t row = first + r;
            bool hit = false;
            if (r < n) {
                const long long mm = static_cast<long long>(m);
                const int m32 = static_cast<int>(m);
                const int b = span >= 0 ? tiled.starts[r] : 0, e = span >= 0 ? tiled.starts[r + 1] : 0;
                if (ascii && in_shared) {
                    hit = like_match<true, int>(tiled.bytes, b, e, tokens, m32, shape32);
                } else if (ascii) {
                    hit = like_match<true, long long>(tiled.bytes, b, e, tokens, mm, shape);
                } else if (span >= 0 && in_shared) {
                    hit = like_match<false, int>(tiled.bytes, b, e, tokens, m32, shape32);
                } else if (span >= 0) {
                    hit = like_match<false, long long>(tiled.bytes, b, e, tokens, mm, shape);
                } else {
                    hit = like_match<false, long long>(chars, static_cast<long long>(offsets[row]),
                                            static_cast<long long>(offsets[row + 1]), tokens, mm, shape);
                }
            }
            ballot_word(row, rows, hit, out, false_count);
        }
        // The next tile overwrites the shared rows.
        __syncthreads();
    }
    flush_count(falses, false_count);
}

#define RAGGED_LIKE(O, ONAME)                                                               \
    extern "C" __global__ void __launch_bounds__(256) like_##ONAME(                        \
        const O* offsets, const uint8_t* chars, uint64_t rows, const uint32_t* tokens, uint64_t m, \
        uint32_t tile_rows, uint32_t* out, unsigned long long* falses) {                    \
        like<O>(offsets, chars, rows, tokens, m, tile_rows, out, falses);                   \
    }
RAGGED_LIKE(int32_t, i32)
RAGGED_LIKE(int64_t, i64)
