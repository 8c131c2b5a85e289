// search: the literal searches of a strings column — contains, starts_with, ends_with
// (booleans, bit-packed), find, rfind (character position, -1 when absent) and
// count_matches (non-overlapping occurrences from the left), in the column's offset
// type.
//
// The pattern is a strings column: one row per searched row, or a single row used for
// every row (scalar = 1; the host uploads a scalar pattern as a one-row column).
// Matching is byte for byte: in valid UTF-8 a match of a valid UTF-8 pattern starts on
// a character boundary, so a match's character position is the number of lead bytes
// (bytes other than 0b10xxxxxx) before it. The empty pattern matches at every
// character boundary (Python): find 0, rfind the length, count_matches length + 1.
// Values are computed for every row, null or not. When the host passes out_validity
// (both the column and the pattern column have a validity bitmap), the kernel writes
// their AND, packed by warp ballots, and counts its unset bits into `nulls`; boolean
// answers are packed the same way, their unset bits counted into `falses`.
// count_matches in i32 reports a row whose answer does not fit (only the empty pattern
// in a row of 2^31 - 1 ASCII characters) through the error word (code 1).
//
// Scalar patterns (search_tiles_<op>_<O>) go by tiles of rows instead: the tile's
// bytes staged in shared memory, the pattern's matches found for every position at
// once as bits (32 positions per thread), each row's answer read off its positions'
// bits (see search_tiles). With i32 offsets that start 16-byte aligned (an unsliced
// column) each block stages its next tile by cp.async while it answers the current
// one (search_tiles_async). contains in short rows goes a warp per 128 rows instead,
// with no block barrier (search_rows_contains): a pattern of 1 to 8 bytes in rows of
// few places for it ("public" / "private") by comparing each place as words
// (search_rows_contains_i32), any pattern in rows averaging up to 24 bytes (names) by
// the step's match bits (search_rows_contains_bits_i32).
// Per-row patterns (search_<op>_<O>_<P>): one thread per row, grid-stride over rows
// rounded up to whole warps (every lane takes part in the ballots). A warp first
// stages the bytes of its 32 rows in shared memory (16-byte vector loads, coalesced;
// up to STAGE_BYTES), so that the per-row searches read shared memory instead of
// issuing scattered byte loads; rows too long to stage are searched in global memory.
// Pseudo-code: out[r] = op(chars[offsets[r] .. offsets[r + 1]], pattern row r or 0)
// Complexity: O(bytes × pattern length) work in the worst case, O(bytes) typically
// (the first pattern byte rejects most positions).
#include "common/strings.cuh"

using namespace ragged;

constexpr int SEARCH_BLOCK = 256;

// Op codes, as the host's kernel names: search_<op>_<O>_<P>.
constexpr int CONTAINS = 0;
constexpr int STARTS_WITH = 1;
constexpr int ENDS_WITH = 2;
constexpr int FIND = 3;
constexpr int RFIND = 4;
constexpr int COUNT_MATCHES = 5;

/// Whether the m bytes at hay equal the m bytes at needle.
__device__ __forceinline__ bool bytes_equal(const uint8_t* hay, const uint8_t* needle, long long m) {
    for (long long k = 0; k < m; ++k)
        if (hay[k] != needle[k]) return false;
    return true;
}

/// Characters in bytes [begin, end): the bytes that are not continuation bytes.
__device__ __forceinline__ long long chars_between(const uint8_t* chars, long long begin, long long end) {
    long long n = 0;
    for (long long b = begin; b < end; ++b) n += (chars[b] & 0xC0u) != 0x80u;
    return n;
}

/// The answer of OP for the row chars[begin, end) and the pattern needle[0, m), as a
/// number (predicates 0 / 1).
template <int OP>
__device__ __forceinline__ long long search_row(const uint8_t* chars, long long begin, long long end,
                                                const uint8_t* needle, long long m) {
    const long long len = end - begin;
    if (OP == STARTS_WITH) return m <= len && bytes_equal(chars + begin, needle, m);
    if (OP == ENDS_WITH) return m <= len && bytes_equal(chars + end - m, needle, m);
    if (m == 0) {
        if (OP == CONTAINS) return 1;
        if (OP == FIND) return 0;
        const long long n = chars_between(chars, begin, end);
        return OP == RFIND ? n : n + 1;
    }
    const uint8_t first = needle[0];
    if (OP == RFIND) {
        for (long long p = end - m; p >= begin; --p)
            if (chars[p] == first && bytes_equal(chars + p + 1, needle + 1, m - 1))
                return chars_between(chars, begin, p);
        return -1;
    }
    long long count = 0;
    for (long long p = begin; p + m <= end;) {
        if (chars[p] == first && bytes_equal(chars + p + 1, needle + 1, m - 1)) {
            if (OP == CONTAINS) return 1;
            if (OP == FIND) return chars_between(chars, begin, p);
            ++count;
            p += m;
        } else {
            ++p;
        }
    }
    return OP == COUNT_MATCHES ? count : (OP == CONTAINS ? 0 : -1);
}

/// Bytes of row data a warp stages in shared memory per round (32 rows).
constexpr long long STAGE_BYTES = 1024;

/// Copy bytes [w0, w1) of chars into `stage` so that byte i lands at stage[i - base],
/// base = w0 rounded down to a 16-byte aligned address: the aligned 16-byte pieces
/// inside [w0, w1) with one vector load per lane, the partial pieces at both ends byte
/// by byte. Never reads outside [w0, w1). The caller checked w1 - base <= STAGE_BYTES.
__device__ __forceinline__ void stage_bytes(const uint8_t* chars, long long w0, long long w1, long long base,
                                            uint8_t* stage, unsigned lane) {
    for (long long c = lane; base + 16 * c < w1; c += 32) {
        const long long lo = base + 16 * c;
        if (lo >= w0 && lo + 16 <= w1) {
            *reinterpret_cast<uint4*>(stage + 16 * c) = *reinterpret_cast<const uint4*>(chars + lo);
        } else {
            for (int j = 0; j < 16; ++j)
                if (lo + j >= w0 && lo + j < w1) stage[16 * c + j] = chars[lo + j];
        }
    }
}

/// Store a position or count answer for `row` in O, or report the row through the
/// error word (code 1) and store 0 when it does not fit.
template <typename O>
__device__ __forceinline__ void store_answer(void* out, uint64_t row, long long answer, uint64_t* error_word) {
    O value = static_cast<O>(answer);
    if (static_cast<long long>(value) != answer) {
        report_error(error_word, row, 1);
        value = O(0);
    }
    static_cast<O*>(out)[row] = value;
}

template <typename O, typename P, int OP>
__device__ void search(const O* offsets, const uint8_t* chars, uint64_t rows, const P* pattern_offsets,
                       const uint8_t* pattern_chars, uint32_t scalar, void* out, const uint8_t* bits,
                       uint64_t bit_offset, const uint8_t* pattern_bits, uint64_t pattern_bit_offset,
                       uint32_t* out_validity, unsigned long long* falses, unsigned long long* nulls,
                       uint64_t* error_word) {
    constexpr bool PREDICATE = OP == CONTAINS || OP == STARTS_WITH || OP == ENDS_WITH;
    __shared__ __align__(16) uint8_t stages[SEARCH_BLOCK / 32][STAGE_BYTES];
    const unsigned lane = threadIdx.x & 31u;
    uint8_t* stage = stages[threadIdx.x >> 5];
    // The byte index, relative to chars, of the 16-byte aligned address at or below i.
    const long long misalign = static_cast<long long>(reinterpret_cast<unsigned long long>(chars) & 15u);
    const uint64_t rounded = (rows + 31) / 32 * 32;
    unsigned long long false_count = 0, null_count = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        // The warp's 32 rows (first < rows: the grid is whole warps, rows rounded up).
        const uint64_t first = row - lane;
        const uint64_t last = first + 32 < rows ? first + 32 : rows;
        const long long w0 = static_cast<long long>(offsets[first]);
        const long long w1 = static_cast<long long>(offsets[last]);
        const long long base = ((w0 + misalign) & ~15ll) - misalign;
        // Uniform across the warp: stage the rows' bytes when they fit.
        const bool staged = w1 - base <= STAGE_BYTES;
        if (staged) stage_bytes(chars, w0, w1, base, stage, lane);
        __syncwarp();
        long long answer = 0;
        bool valid = false;
        if (row < rows) {
            const uint64_t p = scalar ? 0 : row;
            const long long pb = static_cast<long long>(pattern_offsets[p]);
            const long long m = static_cast<long long>(pattern_offsets[p + 1]) - pb;
            const long long begin = static_cast<long long>(offsets[row]);
            const long long end = static_cast<long long>(offsets[row + 1]);
            answer = staged ? search_row<OP>(stage, begin - base, end - base, pattern_chars + pb, m)
                            : search_row<OP>(chars, begin, end, pattern_chars + pb, m);
            if (!PREDICATE) store_answer<O>(out, row, answer, error_word);
            valid = is_valid(bits, bit_offset, row) && is_valid(pattern_bits, pattern_bit_offset, row);
        }
        // Every lane is done with the stage before the next round overwrites it.
        __syncwarp();
        // The branches below are uniform: every lane runs the same rounds.
        if (PREDICATE) ballot_word(row, rows, answer != 0, static_cast<uint32_t*>(out), false_count);
        if (out_validity != nullptr) ballot_word(row, rows, valid, out_validity, null_count);
    }
    if (PREDICATE) flush_count(falses, false_count);
    if (out_validity != nullptr) flush_count(nulls, null_count);
}

// ---- scalar patterns: tiles of rows, matched byte-parallel ------------------------------

/// The answer of OP for the row at tile positions [begin, end), from the tile's match
/// bits (a match of the m-byte pattern starts there, m > 0) and lead bits (a
/// character starts there).
template <int OP>
__device__ __forceinline__ long long tile_answer(const uint32_t* match, const uint32_t* lead, int begin, int end,
                                                 int m) {
    const int len = end - begin;
    if (m == 0) {
        if (OP == RFIND) return count_bits(lead, begin, end);
        if (OP == COUNT_MATCHES) return count_bits(lead, begin, end) + 1;
        return OP == FIND ? 0 : 1;
    }
    if (m > len) return OP == FIND || OP == RFIND ? -1 : 0;
    const int last = end - m + 1;  // matches start in [begin, last)
    if (OP == STARTS_WITH) return bit_at(match, begin);
    if (OP == ENDS_WITH) return bit_at(match, end - m);
    if (OP == CONTAINS) return any_bit(match, begin, last);
    if (OP == COUNT_MATCHES) {
        long long count = 0;
        for (int p = first_bit(match, begin, last); p >= 0; p = first_bit(match, p + m, last)) ++count;
        return count;
    }
    const int p = OP == FIND ? first_bit(match, begin, last) : last_bit(match, begin, last);
    return p < 0 ? -1 : count_bits(lead, begin, p);
}

/// starts_with / ends_with (OP) of a pattern of at most 8 bytes (`pw`) for the row at
/// tile positions [begin, end): the row's first or last m bytes compared as words
/// (head_matches_at), with no match bits.
template <int OP>
__device__ __forceinline__ bool edge_matches(const uint8_t* bytes, int begin, int end, const PatternWords& pw) {
    if (pw.m > end - begin) return false;
    return head_matches_at(bytes, OP == STARTS_WITH ? begin : end - pw.m, pw);
}

/// The most places for the pattern in a row (length - m + 1) for which contains
/// compares them one by one (contains_direct) rather than computing match bits.
constexpr int SHORT_POSITIONS = 4;

/// contains of a pattern of at most 8 bytes (`pw`, m > 0) in the row at tile positions
/// [begin, end): each place compared as words (head_matches_at).
__device__ __forceinline__ bool contains_direct(const uint8_t* bytes, int begin, int end, const PatternWords& pw) {
    bool found = false;
    for (int p = begin; p + pw.m <= end; ++p) found |= head_matches_at(bytes, p, pw);
    return found;
}

/// The answers of the rows [first, first + n) of a staged tile (span >= 0) or of one
/// that did not fit (span < 0: searched in global memory): from the match bits
/// (tile_answer), or, when `edge` (starts_with / ends_with), from each row's first or
/// last bytes (edge_matches), or, when CONTAINS_DIRECT, by contains_direct. Predicates
/// are packed by warp ballots with their unset bits added to false_count; the others
/// stored as O.
template <typename O, int OP, bool CONTAINS_DIRECT>
__device__ __forceinline__ void tile_rows_answers(const O* offsets, const uint8_t* chars, uint64_t rows,
                                                  uint64_t first, int n, int span, const int32_t* starts,
                                                  const uint8_t* bytes, const uint32_t* match, const uint32_t* lead,
                                                  const uint8_t* needle, const PatternWords& pw, bool edge, void* out,
                                                  unsigned long long& false_count, uint64_t* error_word) {
    constexpr bool PREDICATE = OP == CONTAINS || OP == STARTS_WITH || OP == ENDS_WITH;
    constexpr bool EDGE = OP == STARTS_WITH || OP == ENDS_WITH;
    const unsigned tid = threadIdx.x;
    const int m = pw.m;
    for (int r = tid; r - static_cast<int>(tid & 31u) < n; r += SEARCH_BLOCK) {
        const uint64_t row = first + r;
        long long answer = 0;
        if (r < n) {
            if (span >= 0) {
                if (CONTAINS_DIRECT) answer = contains_direct(bytes, starts[r], starts[r + 1], pw);
                else if (EDGE && edge) answer = edge_matches<OP>(bytes, starts[r], starts[r + 1], pw);
                else answer = tile_answer<OP>(match, lead, starts[r], starts[r + 1], m);
            } else {
                const long long begin = static_cast<long long>(offsets[row]);
                const long long end = static_cast<long long>(offsets[row + 1]);
                answer = search_row<OP>(chars, begin, end, needle, m);
            }
            if (!PREDICATE) store_answer<O>(out, row, answer, error_word);
        }
        if (PREDICATE) ballot_word(row, rows, answer != 0, static_cast<uint32_t*>(out), false_count);
    }
}

/// Shared memory of the scalar-pattern searches beside the staged tiles: the match bits
/// and, for find / rfind / count_matches (LEAD), the lead bits of a tile's positions.
template <bool LEAD> struct TileBits {
    uint32_t match[TILE_BYTES / 32 + 1];
    uint32_t lead[LEAD ? TILE_BYTES / 32 + 1 : 1];
};

/// The answers of the rows [first, first + n) of one tile of a scalar-pattern search:
/// staged at `starts` / `bytes` when span >= 0, else searched in global memory. Every
/// thread of the block calls it with the same arguments; it synchronizes inside, and
/// the caller synchronizes before `bits` or the tile are written again.
template <typename O, int OP, bool LEAD>
__device__ __forceinline__ void search_tile(const O* offsets, const uint8_t* chars, uint64_t rows, uint64_t first,
                                            int n, int span, const int32_t* starts, const uint8_t* bytes,
                                            TileBits<LEAD>& bits, const uint8_t* needle, const PatternWords& pw,
                                            void* out, unsigned long long& false_count, uint64_t* error_word) {
    constexpr bool EDGE = OP == STARTS_WITH || OP == ENDS_WITH;
    const unsigned tid = threadIdx.x;
    const int m = pw.m;
    // Uniform: starts_with / ends_with compare each row's edge directly.
    const bool edge = EDGE && m <= 8;
    // contains of a pattern of 1 to 8 bytes in a tile of rows with at most
    // SHORT_POSITIONS places for it each (a column like "public" / "private"):
    // each row's places compared as words (contains_direct), with no match bits.
    bool direct = edge;
    // Uniform; a tile whose bytes average more than m + 3 per row has a longer
    // one without looking.
    if (OP == CONTAINS && m > 0 && m <= 8 && span >= 0 && span <= n * (m - 1 + SHORT_POSITIONS) + 16) {
        bool long_row = false;
        for (int r = tid; r < n; r += SEARCH_BLOCK) long_row |= starts[r + 1] - starts[r] > m - 1 + SHORT_POSITIONS;
        direct = !__syncthreads_or(long_row);
    }
    if (span >= 0 && !direct) {
        for (int c = tid; 32 * c < span; c += SEARCH_BLOCK) {
            uint32_t w[8];
            tile_words(bytes, c, w);
            if (m > 0) bits.match[c] = tile_match_word(bytes, c, w, span, needle, pw);
            if (LEAD) {
                uint32_t continuation = 0;
#pragma unroll
                for (int i = 0; i < 8; ++i) continuation |= equal_bytes(w[i] & 0xC0C0C0C0u, 0x80808080u) << (4 * i);
                bits.lead[c] = ~continuation;
            }
        }
        __syncthreads();
    }
    // Uniform; the row loop compiled once per way of answering (tile_rows_answers).
    if constexpr (OP == CONTAINS) {
        if (direct)
            tile_rows_answers<O, OP, true>(offsets, chars, rows, first, n, span, starts, bytes, bits.match, bits.lead,
                                           needle, pw, false, out, false_count, error_word);
        else
            tile_rows_answers<O, OP, false>(offsets, chars, rows, first, n, span, starts, bytes, bits.match, bits.lead,
                                            needle, pw, false, out, false_count, error_word);
    } else {
        tile_rows_answers<O, OP, false>(offsets, chars, rows, first, n, span, starts, bytes, bits.match, bits.lead,
                                        needle, pw, direct, out, false_count, error_word);
    }
}

/// The scalar-pattern searches over tiles of `tile_rows` rows (a multiple of 32, at
/// most TILE_ROWS), grid-stride, each tile staged and then answered (search_tile). A
/// tile whose bytes fit TILE_BYTES is staged in shared memory; every thread then
/// computes the match bits of 32 positions (tile_match_word) and, for find / rfind /
/// count_matches, the lead bits (a character starts there); each row's answer is then
/// a few bit operations over its positions (tile_answer), with no per-byte loop and no
/// divergence between rows of different lengths. starts_with and ends_with of
/// patterns of at most 8 bytes need no match bits: each row's first or last bytes are
/// compared as words (edge_matches); neither does contains of such a pattern in a tile
/// whose rows have at most SHORT_POSITIONS places for it (contains_direct). A tile
/// that does not fit (a very long row) is searched row per thread in global memory, as
/// search() does. This loop stages each tile and then answers it; search_tiles_async
/// (i32 offsets, 16-byte aligned) stages the next tile while answering this one.
template <typename O, int OP, bool LEAD>
__device__ void search_tiles(const O* offsets, const uint8_t* chars, uint64_t rows, const PatternWords& pw,
                             const uint8_t* needle, uint32_t tile_rows, RowTile& tiled, TileBits<LEAD>& bits,
                             void* out, unsigned long long& false_count, uint64_t* error_word) {
    const uint64_t tiles = (rows + tile_rows - 1) / tile_rows;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t first = tile * tile_rows;
        const int n = static_cast<int>(rows - first < tile_rows ? rows - first : tile_rows);
        const int span = stage_row_tile(offsets, chars, first, n, tiled);
        search_tile<O, OP, LEAD>(offsets, chars, rows, first, n, span, tiled.starts, tiled.bytes, bits, needle, pw,
                                 out, false_count, error_word);
        // The next tile overwrites the shared arrays.
        __syncthreads();
    }
}

// ---- tiles staged ahead by cp.async --------------------------------------------------

/// A tile of rows staged by cp.async: its bytes from a 16-byte aligned address (the
/// first 16-byte piece whole, zeros after the last row up to the next 32-byte
/// boundary plus 16), and the rows' offsets, first as read from the column and then,
/// once they have arrived, relative to bytes[0] (starts[n] = the end of the last row;
/// room for whole 16-byte pieces).
struct AsyncTile {
    __align__(16) uint8_t bytes[TILE_BYTES + 48];
    __align__(16) int32_t starts[TILE_ROWS + 4];
};

/// Start staging rows [first, first + n) of a column of `rows` rows with 16-byte
/// aligned i32 offsets in `tile`, w0 = offsets[first] and w1 = offsets[first + n]
/// being known: the n + 1 offsets, and the bytes when w1 - base fits TILE_BYTES (base:
/// w0 rounded down to a 16-byte aligned address), by cp.async of whole 16-byte pieces;
/// returns w1 - base, or -1 when the bytes do not fit (then only the offsets are
/// copied). Every thread of the block calls it with the same arguments; each thread's
/// copies are in place after its copy_async_wait_prior (once a later group is
/// committed), for the block after a barrier. A piece is copied by cp.async only where
/// all of it lies in the column (offsets[0 ..= rows], chars[0 .. chars_end), chars_end
/// = offsets[rows]); one that does not (in the column's last tile, or a first piece
/// before chars when the chars pointer is not aligned) is copied through registers.
/// The bytes before w0 in the first piece are the column's, or zero.
__device__ __forceinline__ int stage_async(const int32_t* offsets, const uint8_t* chars, uint64_t rows,
                                           long long chars_end, uint64_t first, int n, long long w0, long long w1,
                                           AsyncTile& tile) {
    const int tid = static_cast<int>(threadIdx.x);
    for (int c = tid; 4 * c <= n; c += SEARCH_BLOCK) {
        const uint64_t at = first + 4 * c;
        if (at + 4 <= rows + 1) {
            // The source-size form with all 16 bytes: with copy_async_16 here the
            // compiler gave search_tiles_contains_i32 64 registers and a stack frame
            // (60 and none as measured).
            copy_async_16_fill(tile.starts + 4 * c, offsets + at, 16);
        } else {
            for (int k = 0; at + k <= rows; ++k) tile.starts[4 * c + k] = offsets[at + k];
        }
    }
    const long long base = aligned_base(chars, w0);
    if (w1 - base > TILE_BYTES) return -1;  // uniform
    const int span = static_cast<int>(w1 - base);
    const int chunks = (span + 15) / 16;
    const int padded = (span + 31) / 32 * 2 + 1;  // pieces the match pass reads
    for (int c = tid; c < padded; c += SEARCH_BLOCK) {
        const long long lo = base + 16ll * c;
        uint8_t* dst = tile.bytes + 16 * c;
        if (c >= chunks) {
            *reinterpret_cast<uint4*>(dst) = make_uint4(0, 0, 0, 0);
        } else if (lo >= 0 && lo + 16 <= chars_end) {
            copy_async_16_fill(dst, chars + lo, w1 - lo < 16 ? static_cast<int>(w1 - lo) : 16);
        } else {
            uint4 v = make_uint4(0, 0, 0, 0);
            edge_piece(chars, lo, w0, w1, v);
            *reinterpret_cast<uint4*>(dst) = v;
        }
    }
    return span;
}

/// After this thread's copies of `tile` have arrived: its pieces of offsets made
/// relative to the tile's base (the same pieces stage_async gave it).
__device__ __forceinline__ void rebase_async(const uint8_t* chars, int n, long long w0, AsyncTile& tile) {
    const int32_t b = static_cast<int32_t>(aligned_base(chars, w0));  // i32 offsets: fits
    for (int c = static_cast<int>(threadIdx.x); 4 * c <= n; c += SEARCH_BLOCK) {
        int4 v = *reinterpret_cast<const int4*>(tile.starts + 4 * c);
        v.x -= b, v.y -= b, v.z -= b, v.w -= b;
        *reinterpret_cast<int4*>(tile.starts + 4 * c) = v;
    }
}

/// search_tiles for i32 offsets whose first offset is 16-byte aligned, each block's
/// next tile staged (stage_async) while it answers the current one from the other
/// buffer: the loads of one tile are in flight while the previous one is searched,
/// where search_tiles waits for them. Thread 0 reads each tile's first and last
/// offsets (where its bytes lie) one tile further ahead still, into registers.
template <int OP, bool LEAD>
__device__ void search_tiles_async(const int32_t* offsets, const uint8_t* chars, uint64_t rows,
                                   const PatternWords& pw, const uint8_t* needle, uint32_t tile_rows,
                                   AsyncTile (&tiled)[2], TileBits<LEAD>& bits, void* out,
                                   unsigned long long& false_count, uint64_t* error_word) {
    __shared__ long long ends[2][2];
    const uint64_t tiles = (rows + tile_rows - 1) / tile_rows;
    const uint64_t step = gridDim.x;
    // The rows of tile t: [t * tile_rows, + rows_of(t)).
    const auto rows_of = [&](uint64_t t) {
        const uint64_t first = t * tile_rows;
        return static_cast<int>(rows - first < tile_rows ? rows - first : tile_rows);
    };
    uint64_t tile = blockIdx.x;
    if (tile >= tiles) return;  // uniform
    const long long chars_end = offsets[rows];
    long long ahead0 = 0, ahead1 = 0;  // thread 0: the ends of the tile after the next
    if (threadIdx.x == 0) {
        ends[0][0] = offsets[tile * tile_rows];
        ends[0][1] = offsets[tile * tile_rows + rows_of(tile)];
        const uint64_t next = tile + step;
        if (next < tiles) {
            ahead0 = offsets[next * tile_rows];
            ahead1 = offsets[next * tile_rows + rows_of(next)];
        }
    }
    __syncthreads();
    int span = stage_async(offsets, chars, rows, chars_end, tile * tile_rows, rows_of(tile), ends[0][0], ends[0][1],
                           tiled[0]);
    copy_async_commit();
    for (int cur = 0; tile < tiles; tile += step, cur ^= 1) {
        const uint64_t next = tile + step;
        if (threadIdx.x == 0 && next < tiles) {
            ends[cur ^ 1][0] = ahead0;
            ends[cur ^ 1][1] = ahead1;
            const uint64_t after = next + step;
            if (after < tiles) {
                ahead0 = offsets[after * tile_rows];
                ahead1 = offsets[after * tile_rows + rows_of(after)];
            }
        }
        // The ends are published, and every thread is done with the other buffer and
        // the bits (the previous tile).
        __syncthreads();
        int next_span = -1;
        if (next < tiles)  // uniform
            next_span = stage_async(offsets, chars, rows, chars_end, next * tile_rows, rows_of(next), ends[cur ^ 1][0],
                                    ends[cur ^ 1][1], tiled[cur ^ 1]);
        copy_async_commit();
        copy_async_wait_prior();
        const uint64_t first = tile * tile_rows;
        const int n = rows_of(tile);
        if (span >= 0) rebase_async(chars, n, ends[cur][0], tiled[cur]);
        __syncthreads();
        search_tile<int32_t, OP, LEAD>(offsets, chars, rows, first, n, span, tiled[cur].starts, tiled[cur].bytes,
                                       bits, needle, pw, out, false_count, error_word);
        span = next_span;
    }
}

/// The scalar-pattern searches' entry: the pattern read once, then the tiles staged
/// ahead (search_tiles_async) for i32 offsets that start 16-byte aligned, else staged
/// and answered in turn (search_tiles), in the same shared memory.
template <typename O, int OP>
__device__ void search_tiles_entry(const O* offsets, const uint8_t* chars, uint64_t rows,
                                   const int32_t* pattern_offsets, const uint8_t* pattern_chars, uint32_t tile_rows,
                                   void* out, unsigned long long* falses, uint64_t* error_word) {
    constexpr bool PREDICATE = OP == CONTAINS || OP == STARTS_WITH || OP == ENDS_WITH;
    constexpr bool LEAD = OP == FIND || OP == RFIND || OP == COUNT_MATCHES;
    constexpr bool ASYNC = sizeof(O) == 4;  // the async path is for i32 offsets
    static_assert(sizeof(RowTile) <= 2 * sizeof(AsyncTile), "either loop's tiles fit the storage");
    __shared__ __align__(16) uint8_t storage[ASYNC ? 2 * sizeof(AsyncTile) : sizeof(RowTile)];
    __shared__ TileBits<LEAD> bits;
    const int m = pattern_offsets[1] - pattern_offsets[0];
    const uint8_t* needle = pattern_chars + pattern_offsets[0];
    const PatternWords pw = pattern_words(needle, m);
    unsigned long long false_count = 0;
    // Uniform.
    if (ASYNC && (reinterpret_cast<unsigned long long>(offsets) & 15u) == 0)
        search_tiles_async<OP, LEAD>(reinterpret_cast<const int32_t*>(offsets), chars, rows, pw, needle, tile_rows,
                                     *reinterpret_cast<AsyncTile(*)[2]>(storage), bits, out, false_count,
                                     error_word);
    else
        search_tiles<O, OP, LEAD>(offsets, chars, rows, pw, needle, tile_rows, *reinterpret_cast<RowTile*>(storage),
                                  bits, out, false_count, error_word);
    if (PREDICATE) flush_count(falses, false_count);
}

// ---- contains in short rows: a warp per 128 rows, no block barriers ---------------------

/// Rows a warp answers per step of search_rows_contains (four per lane).
constexpr int WARP_ROWS = 128;
/// Bytes of a warp's stage in search_rows_contains: a step's rows are staged when
/// their bytes (from a 16-byte aligned address) fit, else searched in global memory.
/// Match bits take steps of longer rows (names) than places compared as words.
template <bool BITS> constexpr int warp_stage() { return BITS ? 4096 : 2048; }

/// offsets[i], or chars_end past the column's last offset (rows past the end are empty).
__device__ __forceinline__ int32_t offset_or_end(const int32_t* offsets, uint64_t rows, uint64_t i, int32_t chars_end) {
    return i <= rows ? offsets[i] : chars_end;
}

/// offsets[i .. i + 4] of a step's lane (i a multiple of 4, offsets 16-byte aligned):
/// one vector load where all four lie in the column, else one at a time.
__device__ __forceinline__ int4 lane_offsets(const int32_t* offsets, uint64_t rows, uint64_t i, int32_t chars_end) {
    if (i + 4 <= rows) return *reinterpret_cast<const int4*>(offsets + i);
    return make_int4(offset_or_end(offsets, rows, i, chars_end), offset_or_end(offsets, rows, i + 1, chars_end),
                     offset_or_end(offsets, rows, i + 2, chars_end), offset_or_end(offsets, rows, i + 3, chars_end));
}

/// contains of a scalar pattern in a column of short rows with i32 offsets that start
/// 16-byte aligned (the host picks it, src/strings/search.rs short_rows). Each warp
/// takes steps of WARP_ROWS rows, grid-stride, with no block barrier: lane l's rows are
/// 4l .. 4l + 3 of the step, its five offsets one vector load and a shuffle (the next
/// step's loaded before this one is answered); the step's bytes staged in the warp's
/// shared memory by 16-byte loads; then each row answered
/// - with BITS, from the pattern's matches at every position of the step, found as
///   bits (tile_match_word, 32 positions per lane and word), by any_bit: any pattern
///   length, rows averaging up to about 24 bytes (names);
/// - else by comparing its places as words, G at a time (contains_by_places): patterns
///   of 1 to 8 bytes in rows of few places for them ("public" / "private"), where
///   that costs fewer instructions than the bits.
/// The four answers of 8 lanes are OR-ed by shuffles into one output word, written by
/// the first of them. A step whose bytes exceed the stage is searched in global memory
/// (search_row). Against the tile kernel there is no block barrier. Measured slower
/// (PERFORMANCE v0.33, v0.34): rows interleaved across lanes (lane l taking rows
/// 32k + l, answers by ballots), 8 blocks per SM rather than the 6 that the direct
/// kernel's 39 registers allow, the next step copied by cp.async while this one is
/// answered, and the bits in rows as short as "public" / "private".
template <bool BITS, int G = 4>
__device__ __forceinline__ void search_rows_contains(const int32_t* offsets, const uint8_t* chars, uint64_t rows,
                                                     const int32_t* pattern_offsets, const uint8_t* pattern_chars,
                                                     void* out, unsigned long long* falses) {
    constexpr unsigned FULL = 0xffffffffu;
    constexpr int STAGE = warp_stage<BITS>();
    // Each warp's stage, zero-padded as tile_match_word (BITS) or head_matches_at reads
    // it, and with BITS the match bits of its positions.
    __shared__ __align__(16) uint8_t stages[SEARCH_BLOCK / 32][STAGE + (BITS ? 48 : 16)];
    __shared__ uint32_t matches[SEARCH_BLOCK / 32][BITS ? STAGE / 32 + 1 : 1];
    const unsigned lane = threadIdx.x & 31u;
    uint8_t* stage = stages[threadIdx.x >> 5];
    uint32_t* match = matches[threadIdx.x >> 5];
    const int m = pattern_offsets[1] - pattern_offsets[0];
    const uint8_t* needle = pattern_chars + pattern_offsets[0];
    const PatternWords pw = pattern_words(needle, m);
    const int32_t chars_end = offsets[rows];
    const uint64_t steps = (rows + WARP_ROWS - 1) / WARP_ROWS;
    const uint64_t warps = grid_threads() / 32;
    uint32_t* words = static_cast<uint32_t*>(out);
    unsigned long long false_count = 0;
    uint64_t step = global_thread() / 32;
    // The lane's offsets of the step: its rows' starts and the end of its last row.
    int4 o = make_int4(0, 0, 0, 0);
    int32_t after = 0;
    if (step < steps) {
        o = lane_offsets(offsets, rows, step * WARP_ROWS + 4 * lane, chars_end);
        if (lane == 31) after = offset_or_end(offsets, rows, step * WARP_ROWS + WARP_ROWS, chars_end);
    }
    for (; step < steps; step += warps) {
        const uint64_t first = step * WARP_ROWS;
        const uint64_t mine = first + 4 * lane;
        const int32_t next_start = __shfl_down_sync(FULL, o.x, 1);
        if (lane != 31) after = next_start;
        const int32_t starts[5] = {o.x, o.y, o.z, o.w, after};
        const long long w0 = __shfl_sync(FULL, o.x, 0);
        const long long w1 = __shfl_sync(FULL, after, 31);
        // The next step's offsets, in flight while this one is answered.
        const uint64_t next = step + warps;
        if (next < steps) {
            o = lane_offsets(offsets, rows, next * WARP_ROWS + 4 * lane, chars_end);
            if (lane == 31) after = offset_or_end(offsets, rows, next * WARP_ROWS + WARP_ROWS, chars_end);
        }
        const long long base = aligned_base(chars, w0);
        const bool staged = w1 - base <= STAGE;  // uniform
        const int span = static_cast<int>(staged ? w1 - base : 0);
        if (staged) {
            const int chunks = static_cast<int>((w1 - base + 15) / 16);
            // The pieces of [w0, w1) and zeros after them: up to the next 32-byte
            // boundary plus 16 (what tile_match_word reads), or one piece
            // (contains_by_places reads 16 bytes from a place's aligned word).
            const int padded = BITS ? (span + 31) / 32 * 2 + 1 : chunks + 1;
            for (int c = static_cast<int>(lane); c < padded; c += 32) {
                const long long lo = base + 16ll * c;
                uint4 v = make_uint4(0, 0, 0, 0);
                if (c < chunks) {
                    if (lo >= 0 && lo + 16 <= chars_end) v = *reinterpret_cast<const uint4*>(chars + lo);
                    else edge_piece(chars, lo, w0, w1, v);
                }
                *reinterpret_cast<uint4*>(stage + 16 * c) = v;
            }
        }
        __syncwarp();
        if (BITS && staged) {
            // The pattern's matches at every position of the step, 32 per word.
            for (int c = static_cast<int>(lane); 32 * c < span; c += 32) {
                uint32_t w[8];
                tile_words(stage, c, w);
                match[c] = tile_match_word(stage, c, w, span, needle, pw);
            }
            __syncwarp();
        }
        unsigned found = 0;
        if (staged) {  // uniform
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int begin = static_cast<int>(starts[k] - base), end = static_cast<int>(starts[k + 1] - base);
                const bool hit = BITS ? end - begin >= m && any_bit(match, begin, end - m + 1)
                                      : contains_by_places<G>(stage, begin, end, pw);
                found |= static_cast<unsigned>(hit && mine + k < rows) << k;
            }
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (mine + k < rows)
                    found |= static_cast<unsigned>(search_row<CONTAINS>(chars, starts[k], starts[k + 1], needle, m) != 0)
                             << k;
        }
        // Every lane is done with the stage before the next step overwrites it.
        __syncwarp();
        // Word j of the step (rows first + 32j ..) from lanes 8j .. 8j + 7.
        unsigned word = found << (4 * (lane & 7u));
        word |= __shfl_xor_sync(FULL, word, 1);
        word |= __shfl_xor_sync(FULL, word, 2);
        word |= __shfl_xor_sync(FULL, word, 4);
        const uint64_t word_row = first + 32 * (lane >> 3);
        if ((lane & 7u) == 0 && word_row < rows) {
            words[word_row / 32] = word;
            const uint64_t present = rows - word_row < 32 ? rows - word_row : 32;
            false_count += present - __popc(word);
        }
    }
    // Lanes 0, 8, 16 and 24 hold counts: summed into lane 0, one atomic per warp.
    false_count += __shfl_xor_sync(FULL, false_count, 8);
    false_count += __shfl_xor_sync(FULL, false_count, 16);
    flush_count(falses, false_count);
}

/// search_rows_contains by places compared as words, four at a time (patterns of 1 to
/// 8 bytes).
extern "C" __global__ void __launch_bounds__(SEARCH_BLOCK)
    search_rows_contains_i32(const int32_t* offsets, const uint8_t* chars, uint64_t rows,
                             const int32_t* pattern_offsets, const uint8_t* pattern_chars, void* out,
                             unsigned long long* falses) {
    search_rows_contains<false, 4>(offsets, chars, rows, pattern_offsets, pattern_chars, out, falses);
}

/// search_rows_contains by places compared as words, two at a time (patterns of 1 to
/// 8 bytes in rows of about one or two places for them).
extern "C" __global__ void __launch_bounds__(SEARCH_BLOCK)
    search_rows_contains_pairs_i32(const int32_t* offsets, const uint8_t* chars, uint64_t rows,
                                   const int32_t* pattern_offsets, const uint8_t* pattern_chars, void* out,
                                   unsigned long long* falses) {
    search_rows_contains<false, 2>(offsets, chars, rows, pattern_offsets, pattern_chars, out, falses);
}

/// search_rows_contains by match bits (any pattern length).
extern "C" __global__ void __launch_bounds__(SEARCH_BLOCK)
    search_rows_contains_bits_i32(const int32_t* offsets, const uint8_t* chars, uint64_t rows,
                                  const int32_t* pattern_offsets, const uint8_t* pattern_chars, void* out,
                                  unsigned long long* falses) {
    search_rows_contains<true>(offsets, chars, rows, pattern_offsets, pattern_chars, out, falses);
}

#define RAGGED_SEARCH(O, ONAME, P, PNAME)                                                   \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, contains, CONTAINS)                                \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, starts_with, STARTS_WITH)                          \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, ends_with, ENDS_WITH)                              \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, find, FIND)                                        \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, rfind, RFIND)                                      \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, count_matches, COUNT_MATCHES)
#define RAGGED_SEARCH_TILES(O, ONAME)                                                       \
    RAGGED_SEARCH_TILES_OP(O, ONAME, contains, CONTAINS)                                    \
    RAGGED_SEARCH_TILES_OP(O, ONAME, starts_with, STARTS_WITH)                              \
    RAGGED_SEARCH_TILES_OP(O, ONAME, ends_with, ENDS_WITH)                                  \
    RAGGED_SEARCH_TILES_OP(O, ONAME, find, FIND)                                            \
    RAGGED_SEARCH_TILES_OP(O, ONAME, rfind, RFIND)                                          \
    RAGGED_SEARCH_TILES_OP(O, ONAME, count_matches, COUNT_MATCHES)
#define RAGGED_SEARCH_TILES_OP(O, ONAME, NAME, OP)                                          \
    extern "C" __global__ void __launch_bounds__(SEARCH_BLOCK) search_tiles_##NAME##_##ONAME( \
        const O* offsets, const uint8_t* chars, uint64_t rows, const int32_t* pattern_offsets, \
        const uint8_t* pattern_chars, uint32_t tile_rows, void* out, unsigned long long* falses, \
        uint64_t* error_word) {                                                             \
        search_tiles_entry<O, OP>(offsets, chars, rows, pattern_offsets, pattern_chars, tile_rows, out, \
                                  falses, error_word);                                      \
    }
#define RAGGED_SEARCH_OP(O, ONAME, P, PNAME, NAME, OP)                                      \
    extern "C" __global__ void __launch_bounds__(SEARCH_BLOCK) search_##NAME##_##ONAME##_##PNAME( \
        const O* offsets, const uint8_t* chars, uint64_t rows, const P* pattern_offsets,    \
        const uint8_t* pattern_chars, uint32_t scalar, void* out, const uint8_t* bits,      \
        uint64_t bit_offset, const uint8_t* pattern_bits, uint64_t pattern_bit_offset,      \
        uint32_t* out_validity, unsigned long long* falses, unsigned long long* nulls,      \
        uint64_t* error_word) {                                                             \
        search<O, P, OP>(offsets, chars, rows, pattern_offsets, pattern_chars, scalar, out, bits, bit_offset, \
                         pattern_bits, pattern_bit_offset, out_validity, falses, nulls, error_word); \
    }
RAGGED_SEARCH(int32_t, i32, int32_t, i32)
RAGGED_SEARCH(int32_t, i32, int64_t, i64)
RAGGED_SEARCH(int64_t, i64, int32_t, i32)
RAGGED_SEARCH(int64_t, i64, int64_t, i64)
RAGGED_SEARCH_TILES(int32_t, i32)
RAGGED_SEARCH_TILES(int64_t, i64)
