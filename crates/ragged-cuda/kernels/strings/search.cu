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
// Mapping: one thread per row, grid-stride over rows rounded up to whole warps (every
// lane takes part in the ballots). A warp first stages the bytes of its 32 rows in
// shared memory (16-byte vector loads, coalesced; up to STAGE_BYTES), so that the
// per-row searches read shared memory instead of issuing scattered byte loads; rows
// too long to stage are searched in global memory. For a scalar pattern, contains,
// find, rfind and count_matches (patterns that cannot overlap themselves) search the
// staged window character-parallel instead (search_window): lanes test consecutive
// positions and fold matches into per-row slots, so lanes do not wait on the longest
// row of the warp.
// Pseudo-code: out[r] = op(chars[offsets[r] .. offsets[r + 1]], pattern row r or 0)
// Complexity: O(bytes × pattern length) work in the worst case, O(bytes) typically
// (the first pattern byte rejects most positions).
#include "common/ragged.cuh"

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

/// Whether the m-byte pattern has a proper border (a prefix that is also a suffix:
/// "aa", "aba"), i.e. whether two of its occurrences can overlap.
__device__ __forceinline__ bool self_overlapping(const uint8_t* needle, long long m) {
    for (long long k = 1; k < m; ++k)
        if (bytes_equal(needle, needle + m - k, k)) return true;
    return false;
}

/// The character-parallel search of a warp's staged rows for a scalar pattern: the
/// lanes test window positions lane, lane + 32, … (consecutive bytes, no divergence
/// by row length); a match at window position q belongs to the row r with
/// bounds[r] <= q < bounds[r + 1] (a binary search of the 33 staged bounds) when it
/// ends inside that row, and is folded into the row's slot of `hits` with a shared
/// atomic: contains and count_matches count matches (only patterns that cannot
/// overlap themselves come here, so every match counts), find keeps the least
/// position in the row, rfind the greatest plus one. `window` holds the staged bytes
/// (window[0] is the first row's first byte), `bounds[0..=rows_here]` the rows'
/// starts and the window's end, relative to window[0].
template <int OP>
__device__ __forceinline__ void search_window(const uint8_t* window, const long long* bounds, int rows_here,
                                              const uint8_t* needle, long long m, unsigned* hits,
                                              unsigned lane) {
    const long long length = bounds[rows_here];
    const uint8_t first = needle[0];
    for (long long q = lane; q + m <= length; q += 32) {
        if (window[q] != first || !bytes_equal(window + q + 1, needle + 1, m - 1)) continue;
        // The last row starting at or before q (empty rows start where the next does).
        int lo = 0, hi = rows_here;  // bounds[lo] <= q < bounds[hi]
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            if (bounds[mid] <= q) lo = mid;
            else hi = mid;
        }
        if (q + m > bounds[lo + 1]) continue;  // the match runs into the next row
        const unsigned at = static_cast<unsigned>(q - bounds[lo]);
        if (OP == FIND) atomicMin(&hits[lo], at);
        else if (OP == RFIND) atomicMax(&hits[lo], at + 1u);
        else atomicAdd(&hits[lo], 1u);
    }
}

template <typename O, typename P, int OP>
__device__ void search(const O* offsets, const uint8_t* chars, uint64_t rows, const P* pattern_offsets,
                       const uint8_t* pattern_chars, uint32_t scalar, void* out, const uint8_t* bits,
                       uint64_t bit_offset, const uint8_t* pattern_bits, uint64_t pattern_bit_offset,
                       uint32_t* out_validity, unsigned long long* falses, unsigned long long* nulls,
                       uint64_t* error_word) {
    constexpr bool PREDICATE = OP == CONTAINS || OP == STARTS_WITH || OP == ENDS_WITH;
    // The character-parallel path serves scalar patterns of these ops (see
    // search_window); starts_with / ends_with read a few bytes a row and stay per row.
    constexpr bool PARALLEL_OP = OP == CONTAINS || OP == FIND || OP == RFIND || OP == COUNT_MATCHES;
    __shared__ __align__(16) uint8_t stages[SEARCH_BLOCK / 32][STAGE_BYTES];
    __shared__ long long stage_bounds[SEARCH_BLOCK / 32][33];
    __shared__ unsigned stage_hits[SEARCH_BLOCK / 32][32];
    const unsigned lane = threadIdx.x & 31u;
    uint8_t* stage = stages[threadIdx.x >> 5];
    long long* bounds = stage_bounds[threadIdx.x >> 5];
    unsigned* hits = stage_hits[threadIdx.x >> 5];
    // A scalar pattern is the same for every round: whether it can take the parallel path.
    bool parallel_pattern = false;
    if (PARALLEL_OP && scalar) {
        const long long pb = static_cast<long long>(pattern_offsets[0]);
        const long long m = static_cast<long long>(pattern_offsets[1]) - pb;
        parallel_pattern = m > 0 && m <= STAGE_BYTES &&
                           !(OP == COUNT_MATCHES && self_overlapping(pattern_chars + pb, m));
    }
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
        // Uniform too: the character-parallel path for a staged window.
        const bool parallel = staged && parallel_pattern;
        const int rows_here = static_cast<int>(last - first);
        if (parallel) {
            if (static_cast<int>(lane) < rows_here) bounds[lane] = static_cast<long long>(offsets[row]) - w0;
            if (lane == 0) bounds[rows_here] = w1 - w0;
            hits[lane] = OP == FIND ? ~0u : 0u;
        }
        __syncwarp();
        if (parallel) {
            const long long pb = static_cast<long long>(pattern_offsets[0]);
            search_window<OP>(stage + (w0 - base), bounds, rows_here, pattern_chars + pb,
                              static_cast<long long>(pattern_offsets[1]) - pb, hits, lane);
            __syncwarp();
        }
        long long answer = 0;
        bool valid = false;
        if (row < rows) {
            const uint64_t p = scalar ? 0 : row;
            const long long pb = static_cast<long long>(pattern_offsets[p]);
            const long long m = static_cast<long long>(pattern_offsets[p + 1]) - pb;
            const long long begin = static_cast<long long>(offsets[row]);
            const long long end = static_cast<long long>(offsets[row + 1]);
            if (parallel) {
                const unsigned h = hits[lane];
                const uint8_t* row_bytes = stage + (begin - base);
                if (OP == FIND) answer = h == ~0u ? -1 : chars_between(row_bytes, 0, h);
                else if (OP == RFIND) answer = h == 0u ? -1 : chars_between(row_bytes, 0, h - 1u);
                else if (OP == CONTAINS) answer = h != 0u;
                else answer = h;
            } else if (staged) {
                answer = search_row<OP>(stage, begin - base, end - base, pattern_chars + pb, m);
            } else {
                answer = search_row<OP>(chars, begin, end, pattern_chars + pb, m);
            }
            if (!PREDICATE) {
                O value = static_cast<O>(answer);
                if (static_cast<long long>(value) != answer) {
                    report_error(error_word, row, 1);
                    value = O(0);
                }
                static_cast<O*>(out)[row] = value;
            }
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

#define RAGGED_SEARCH(O, ONAME, P, PNAME)                                                   \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, contains, CONTAINS)                                \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, starts_with, STARTS_WITH)                          \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, ends_with, ENDS_WITH)                              \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, find, FIND)                                        \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, rfind, RFIND)                                      \
    RAGGED_SEARCH_OP(O, ONAME, P, PNAME, count_matches, COUNT_MATCHES)
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
