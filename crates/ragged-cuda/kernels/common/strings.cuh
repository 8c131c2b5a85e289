// strings.cuh: ragged's device-side string helpers, for the strings kernels and for
// user transforms (CudaBackend::transform_strings).
//
// - string_view: a row's bytes (pointer + length) with byte search and UTF-8 helpers;
// - StringInput: a strings argument as the kernels read it — a column of either offset
//   width, or one row used for every row (a scalar), with its validity;
// - BoolInput: a boolean column (value bits + validity);
// - Writer: where a two-pass row writes its bytes; in the sizes pass it only counts.
#pragma once
#include "common/ragged.cuh"

namespace ragged {

/// A row's UTF-8 bytes.
struct string_view {
    const uint8_t* data;
    long long size;

    __device__ __forceinline__ bool empty() const { return size == 0; }

    /// Byte `i` (no bounds check).
    __device__ __forceinline__ uint8_t operator[](long long i) const { return data[i]; }

    /// Whether `needle` occurs at byte p (p + needle.size <= size).
    __device__ __forceinline__ bool equals_at(long long p, string_view needle) const {
        long long k = 0;
        while (k < needle.size && data[p + k] == needle.data[k]) ++k;
        return k == needle.size;
    }

    /// The first byte position >= from where `needle` occurs, or -1.
    __device__ __forceinline__ long long find(string_view needle, long long from = 0) const {
        if (needle.size == 0) return from <= size ? from : -1;
        for (long long p = from; p + needle.size <= size; ++p)
            if (data[p] == needle.data[0] && equals_at(p, needle)) return p;
        return -1;
    }

    /// The last byte position p with p + needle.size <= before where `needle` occurs,
    /// or -1.
    __device__ __forceinline__ long long rfind(string_view needle, long long before) const {
        if (needle.size == 0) return before;
        for (long long p = before - needle.size; p >= 0; --p)
            if (data[p] == needle.data[0] && equals_at(p, needle)) return p;
        return -1;
    }

    /// The first byte position >= from holding `byte`, or -1.
    __device__ __forceinline__ long long find_byte(uint8_t byte, long long from = 0) const {
        for (long long p = from; p < size; ++p)
            if (data[p] == byte) return p;
        return -1;
    }

    /// The bytes before the row's first 4-byte aligned address (0 to 3).
    __device__ __forceinline__ long long aligned_head() const {
        return static_cast<long long>((4u - (reinterpret_cast<unsigned long long>(data) & 3u)) & 3u);
    }

    /// How many bytes of the row hold `byte`: four at a time over the aligned words
    /// inside the row, byte by byte at its two ends (nothing outside the row is read).
    __device__ __forceinline__ long long count_byte(uint8_t byte) const {
        long long i = 0, count = 0;
        for (const long long head = aligned_head(); i < head && i < size; ++i) count += data[i] == byte;
        const uint32_t pattern = 0x01010101u * byte;
        for (; i + 4 <= size; i += 4)
            count += __popc(equal_flags(*reinterpret_cast<const uint32_t*>(data + i), pattern));
        for (; i < size; ++i) count += data[i] == byte;
        return count;
    }

    /// Whether `needle` occurs.
    __device__ __forceinline__ bool contains(string_view needle) const { return find(needle) >= 0; }

    /// Bytes [a, b).
    __device__ __forceinline__ string_view substr(long long a, long long b) const {
        return string_view{data + a, b - a};
    }

    /// The byte length of the character starting at byte `i` (1 for a continuation
    /// byte, which valid rows never start a character with).
    __device__ __forceinline__ int char_bytes_at(long long i) const {
        const uint8_t b = data[i];
        return b < 0xC0u ? 1 : (b < 0xE0u ? 2 : (b < 0xF0u ? 3 : 4));
    }

    /// The number of characters (bytes that are not 0b10xxxxxx): continuation bytes
    /// counted four at a time over the aligned words inside the row, byte by byte at
    /// its two ends (nothing outside the row is read).
    __device__ __forceinline__ long long chars() const {
        long long continuation = 0;
        long long i = 0;
        const long long head = aligned_head();
        for (; i < head && i < size; ++i) continuation += (data[i] & 0xC0u) == 0x80u;
        for (; i + 4 <= size; i += 4) {
            const uint32_t x = *reinterpret_cast<const uint32_t*>(data + i);
            // Bit 7 of each byte set and bit 6 clear.
            continuation += __popc(x & ~(x << 1) & 0x80808080u);
        }
        for (; i < size; ++i) continuation += (data[i] & 0xC0u) == 0x80u;
        return size - continuation;
    }
};

/// The code point of the UTF-8 character of `len` bytes at p (valid UTF-8).
__device__ __forceinline__ uint32_t decode_utf8(const uint8_t* p, int len) {
    if (len == 1) return p[0];
    if (len == 2) return ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    if (len == 3) return ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    return ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
}

/// The UTF-8 bytes of code point `c` in out[0..4); returns their number.
__device__ __forceinline__ int encode_utf8(uint32_t c, uint8_t* out) {
    if (c < 0x80u) {
        out[0] = static_cast<uint8_t>(c);
        return 1;
    }
    if (c < 0x800u) {
        out[0] = static_cast<uint8_t>(0xC0u | (c >> 6));
        out[1] = static_cast<uint8_t>(0x80u | (c & 0x3Fu));
        return 2;
    }
    if (c < 0x10000u) {
        out[0] = static_cast<uint8_t>(0xE0u | (c >> 12));
        out[1] = static_cast<uint8_t>(0x80u | ((c >> 6) & 0x3Fu));
        out[2] = static_cast<uint8_t>(0x80u | (c & 0x3Fu));
        return 3;
    }
    out[0] = static_cast<uint8_t>(0xF0u | (c >> 18));
    out[1] = static_cast<uint8_t>(0x80u | ((c >> 12) & 0x3Fu));
    out[2] = static_cast<uint8_t>(0x80u | ((c >> 6) & 0x3Fu));
    out[3] = static_cast<uint8_t>(0x80u | (c & 0x3Fu));
    return 4;
}

/// A strings argument: a column (offsets of either width) or a scalar (scalar = 1: row
/// 0 serves every row; a null scalar is a one-row column whose row is null).
struct StringInput {
    const void* offsets;
    const uint8_t* chars;
    const uint8_t* bits;
    uint64_t bit_offset;
    uint32_t wide;
    uint32_t scalar;

    __device__ __forceinline__ uint64_t index(uint64_t row) const { return scalar ? 0 : row; }

    __device__ __forceinline__ long long offset(uint64_t i) const {
        return wide ? static_cast<const long long*>(offsets)[i]
                    : static_cast<long long>(static_cast<const int32_t*>(offsets)[i]);
    }

    /// Whether row `row` is valid.
    __device__ __forceinline__ bool valid(uint64_t row) const { return is_valid(bits, bit_offset, index(row)); }

    /// Row `row`'s bytes, valid or not.
    __device__ __forceinline__ string_view get(uint64_t row) const {
        const uint64_t i = index(row);
        const long long a = offset(i);
        return string_view{chars + a, offset(i + 1) - a};
    }
};

/// A boolean column: value bits and validity, each from a bit offset.
struct BoolInput {
    const uint8_t* values;
    uint64_t value_offset;
    const uint8_t* bits;
    uint64_t bit_offset;

    /// Whether row `row` is valid and true.
    __device__ __forceinline__ bool is_true(uint64_t row) const {
        return is_valid(bits, bit_offset, row) && is_valid(values, value_offset, row);
    }
};

/// Where a row of a two-pass transform goes: with out == nullptr (the sizes pass) the
/// writer only counts bytes; in the fill pass it writes them at out.
struct Writer {
    /// Where the row's bytes go (nullptr: count only).
    uint8_t* out;
    /// The bytes written (or counted) so far.
    long long pos;
    /// The position of the row's first byte in the output's chars (the fill pass; 0 in
    /// the sizes pass, and in one_pass's stage, which only a functor declaring
    /// FILL_EMPTY_ROWS skips), for a functor that also records where its pieces went.
    long long start;

    /// Whether this is the fill pass (the bytes are written, not only counted).
    __device__ __forceinline__ bool filling() const { return out != nullptr; }

    __device__ __forceinline__ void bytes(const uint8_t* p, long long n) {
        if (out != nullptr)
            for (long long i = 0; i < n; ++i) out[pos + i] = p[i];
        pos += n;
    }
    /// bytes(), eight at a time, each eight loaded before any is stored: one load
    /// latency per eight bytes, where the byte loop waits for each load (`out` might
    /// alias p). Faster for short copies in a kernel whose rows wait on their loads;
    /// slower in others (concatenate, pad and replace measured 10-25 % lower with it,
    /// PERFORMANCE.md v0.12). Redact copies the same way with 32-bit indices of its own
    /// (2 % faster, PERFORMANCE.md v0.29); no built-in op calls this one now.
    __device__ __forceinline__ void bytes_grouped(const uint8_t* p, long long n) {
        if (out != nullptr) {
            for (long long i = 0; i < n; i += 8) {
                uint8_t b[8];
#pragma unroll
                for (int k = 0; k < 8; ++k) b[k] = i + k < n ? p[i + k] : 0;
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    if (i + k < n) out[pos + i + k] = b[k];
            }
        }
        pos += n;
    }
    __device__ __forceinline__ void str(string_view s) { bytes(s.data, s.size); }
    __device__ __forceinline__ void byte(uint8_t b) {
        if (out != nullptr) out[pos] = b;
        pos += 1;
    }
};

/// Bytes of a tile of rows staged in shared memory (stage_row_tile; the host sizes
/// tiles of rows to fit, src/strings/mod.rs).
constexpr int TILE_BYTES = 16384;
/// The most rows in a tile (a multiple of 32).
constexpr int TILE_ROWS = 1024;

/// A tile of rows in shared memory: their bytes from a 16-byte aligned address, with
/// zeros around them up to the next 32-byte boundary plus 16 bytes, and each row's
/// first byte's position in `bytes` (starts[n] = the end of the last row).
struct RowTile {
    __align__(16) uint8_t bytes[TILE_BYTES + 48];
    int32_t starts[TILE_ROWS + 1];
    long long ends[2];
};

/// Into `piece` (zero on entry), the 16 bytes of chars from `lo` whose positions lie
/// in [w0, w1), read one by one (a piece at either end of a staged range, which a
/// vector load could read past).
__device__ __forceinline__ void edge_piece(const uint8_t* chars, long long lo, long long w0, long long w1,
                                           uint4& piece) {
    uint8_t* b = reinterpret_cast<uint8_t*>(&piece);
    for (int j = 0; j < 16; ++j)
        if (lo + j >= w0 && lo + j < w1) b[j] = chars[lo + j];
}

/// Stage bytes [w0, w1) of chars as tile bytes [w0 - base, w1 - base) (base: w0 rounded
/// down to a 16-byte aligned address), with zeros around them up to the next 32-byte
/// boundary plus 16 bytes (what the match pass reads): 16-byte loads for the chunks
/// inside the range, byte loads for the two chunks at its ends. Block-wide.
__device__ __forceinline__ void stage_tile(const uint8_t* chars, long long w0, long long w1, long long base,
                                           uint8_t* bytes) {
    const int span = static_cast<int>(w1 - base);
    const int chunks = (span + 15) / 16;
    const int padded = (span + 31) / 32 * 2 + 1;  // chunks the match pass reads
    for (int c = threadIdx.x; c < padded; c += blockDim.x) {
        const long long lo = base + 16ll * c;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (c < chunks) {
            if (lo >= w0 && lo + 16 <= w1) {
                v = *reinterpret_cast<const uint4*>(chars + lo);
            } else {
                edge_piece(chars, lo, w0, w1, v);
            }
        }
        *reinterpret_cast<uint4*>(bytes + 16 * c) = v;
    }
}

/// The byte index, relative to chars, of the 16-byte aligned address at or below
/// chars + at (where a staged tile starts, so that its chunks load as vectors).
__device__ __forceinline__ long long aligned_base(const uint8_t* chars, long long at) {
    const long long misalign = static_cast<long long>(reinterpret_cast<unsigned long long>(chars) & 15u);
    return ((at + misalign) & ~15ll) - misalign;
}

/// stage_row_tile for i32 offsets whose tile starts 16-byte aligned: offsets i .. i + 3
/// of the tile (i = 4 * tid) loaded and their starts stored as one 16-byte vector each,
/// the tile's last offset (n) by thread 0; a thread whose four reach n loads and
/// stores them one by one.
__device__ __forceinline__ int stage_row_tile_i32x4(const int32_t* offsets, const uint8_t* chars, uint64_t first,
                                                    int n, RowTile& tile) {
    const int i = 4 * static_cast<int>(threadIdx.x);
    const bool whole = i + 3 < n;
    int32_t v[4] = {0, 0, 0, 0};
    if (whole) {
        const int4 q = *reinterpret_cast<const int4*>(offsets + first + i);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (i + k < n) v[k] = offsets[first + i + k];
    }
    if (threadIdx.x == 0) {
        tile.ends[0] = n > 0 ? v[0] : offsets[first];
        tile.ends[1] = offsets[first + n];
    }
    __syncthreads();
    const long long w0 = tile.ends[0], w1 = tile.ends[1];
    const long long base = aligned_base(chars, w0);
    if (w1 - base > TILE_BYTES) return -1;  // uniform
    const int32_t b = static_cast<int32_t>(base);  // i32 offsets: base fits
    if (whole) {
        *reinterpret_cast<int4*>(tile.starts + i) = make_int4(v[0] - b, v[1] - b, v[2] - b, v[3] - b);
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (i + k < n) tile.starts[i + k] = v[k] - b;
    }
    if (threadIdx.x == 0) tile.starts[n] = static_cast<int32_t>(w1 - base);
    stage_tile(chars, w0, w1, base, tile.bytes);
    __syncthreads();
    return static_cast<int>(w1 - base);
}

/// Stage rows [first, first + n) (n <= TILE_ROWS) of a strings column in `tile`, when
/// their bytes fit: returns the staged span (bytes from tile.bytes[0] to the end of
/// the last row) or -1 when they do not fit (then only tile.ends is written). Called
/// by every thread of the block (blockDim.x = 256) with the same arguments; ends with
/// a __syncthreads. The caller synchronizes before staging again in `tile`.
template <typename O>
__device__ __forceinline__ int stage_row_tile(const O* offsets, const uint8_t* chars, uint64_t first, int n,
                                              RowTile& tile) {
    static_assert(TILE_ROWS == 4 * 256, "a thread stages four offsets");
    if constexpr (sizeof(O) == 4) {
        // Uniform: the tile's i32 offsets start 16-byte aligned (not in some slices).
        if ((reinterpret_cast<unsigned long long>(offsets + first) & 15u) == 0)
            return stage_row_tile_i32x4(reinterpret_cast<const int32_t*>(offsets), chars, first, n, tile);
    }
    constexpr int PER_THREAD = (TILE_ROWS + 256) / 256;
    const int tid = threadIdx.x;
    long long off[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const int r = tid + k * 256;
        off[k] = r <= n ? static_cast<long long>(offsets[first + r]) : 0;
        if (r == 0) tile.ends[0] = off[k];
        if (r == n) tile.ends[1] = off[k];
    }
    __syncthreads();
    const long long w0 = tile.ends[0], w1 = tile.ends[1];
    const long long base = aligned_base(chars, w0);
    if (w1 - base > TILE_BYTES) return -1;  // uniform
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const int r = tid + k * 256;
        if (r <= n) tile.starts[r] = static_cast<int32_t>(off[k] - base);
    }
    stage_tile(chars, w0, w1, base, tile.bytes);
    __syncthreads();
    return static_cast<int>(w1 - base);
}

// ---- a staged tile's positions as bits ---------------------------------------------

/// Bit p of `bits` (position p of the tile).
__device__ __forceinline__ bool bit_at(const uint32_t* bits, int p) { return (bits[p >> 5] >> (p & 31)) & 1u; }

/// The bits of word `i` of `bits` at positions in [from, to).
__device__ __forceinline__ uint32_t word_in(const uint32_t* bits, int i, int from, int to) {
    const int lo = max(from - 32 * i, 0), hi = min(to - 32 * i, 32);
    const uint32_t upper = hi >= 32 ? ~0u : (1u << hi) - 1u;
    return bits[i] & upper & ~((1u << lo) - 1u);
}

/// Whether any position in [from, to) is set: the first and last words masked, the
/// words between them tested whole.
__device__ __forceinline__ bool any_bit(const uint32_t* bits, int from, int to) {
    if (from >= to) return false;
    const int i = from >> 5, j = (to - 1) >> 5;
    const uint32_t head = bits[i] & (~0u << (from & 31));
    const uint32_t tail = ~0u >> (31 - ((to - 1) & 31));
    if (i == j) return (head & tail) != 0;
    if (head != 0) return true;
    for (int k = i + 1; k < j; ++k)
        if (bits[k] != 0) return true;
    return (bits[j] & tail) != 0;
}

/// The first set position in [from, to), or -1.
__device__ __forceinline__ int first_bit(const uint32_t* bits, int from, int to) {
    if (from >= to) return -1;
    for (int i = from >> 5; i <= (to - 1) >> 5; ++i) {
        const uint32_t w = word_in(bits, i, from, to);
        if (w != 0) return 32 * i + __ffs(w) - 1;
    }
    return -1;
}

/// The last set position in [from, to), or -1.
__device__ __forceinline__ int last_bit(const uint32_t* bits, int from, int to) {
    if (from >= to) return -1;
    for (int i = (to - 1) >> 5; i >= from >> 5; --i) {
        const uint32_t w = word_in(bits, i, from, to);
        if (w != 0) return 32 * i + 31 - __clz(w);
    }
    return -1;
}

/// The set positions in [from, to).
__device__ __forceinline__ int count_bits(const uint32_t* bits, int from, int to) {
    int n = 0;
    if (from < to)
        for (int i = from >> 5; i <= (to - 1) >> 5; ++i) n += __popc(word_in(bits, i, from, to));
    return n;
}

/// The first up to four bytes of the m-byte needle as a little-endian word (what
/// short_matches takes, and the words of pattern_words).
__device__ __forceinline__ uint32_t pattern_word(const uint8_t* needle, int m) {
    uint32_t word = 0;
    for (int j = 0; j < m && j < 4; ++j) word |= static_cast<uint32_t>(needle[j]) << (8 * j);
    return word;
}

/// The tile's bytes [32c, 32c + 32) as eight words (two 16-byte loads).
__device__ __forceinline__ void tile_words(const uint8_t* bytes, int c, uint32_t (&w)[8]) {
    const uint4 lo = *reinterpret_cast<const uint4*>(bytes + 32 * c);
    const uint4 hi = *reinterpret_cast<const uint4*>(bytes + 32 * c + 16);
    w[0] = lo.x, w[1] = lo.y, w[2] = lo.z, w[3] = lo.w, w[4] = hi.x, w[5] = hi.y, w[6] = hi.z, w[7] = hi.w;
}

/// The first up to eight bytes of an m-byte pattern as two little-endian words, each
/// with a mask of the bytes the pattern has (what tile_match_word and head_matches_at
/// compare).
struct PatternWords {
    uint32_t first, first_mask, second, second_mask;
    int m;
};

/// The PatternWords of the m-byte needle.
__device__ __forceinline__ PatternWords pattern_words(const uint8_t* needle, int m) {
    PatternWords p;
    p.first = pattern_word(needle, m);
    p.second = m > 4 ? pattern_word(needle + 4, m - 4) : 0u;
    p.first_mask = m >= 4 ? ~0u : (1u << (8 * m)) - 1u;
    p.second_mask = m >= 8 ? ~0u : (m > 4 ? (1u << (8 * (m - 4))) - 1u : 0u);
    p.m = m;
    return p;
}

/// Whether the pattern's first min(m, 8) bytes occur at position p of a 4-byte
/// aligned buffer: its aligned words around p (bytes [p & ~3, (p & ~3) + 12), which
/// must lie in the buffer) funnel-shifted to p and compared under the masks.
__device__ __forceinline__ bool head_matches_at(const uint8_t* bytes, int p, const PatternWords& pw) {
    const uint32_t* words = reinterpret_cast<const uint32_t*>(bytes);
    const int i = p >> 2, shift = 8 * (p & 3);
    const uint32_t a = words[i], b = words[i + 1];
    uint32_t differ = (__funnelshift_r(a, b, shift) ^ pw.first) & pw.first_mask;
    if (pw.m > 4) differ |= (__funnelshift_r(b, words[i + 2], shift) ^ pw.second) & pw.second_mask;
    return differ == 0;
}

/// Whether the pattern of at most 8 bytes (`pw`, m > 0) occurs in the row at positions
/// [begin, end) of a 4-byte aligned buffer in shared memory (search_rows_contains'
/// warp stage, redact's), G places at a time (2 or 4): the words holding bytes
/// [p, p + G + 7) are loaded once and funnel-shifted to each of the places
/// p .. p + G - 1, rather than three words loaded and the masks rebuilt per place.
/// Pairs suit rows of one or two places for the pattern (PERFORMANCE v0.39). The
/// buffer must hold 16 bytes from each place's aligned word (a zero piece after the
/// rows).
template <int G>
__device__ __forceinline__ bool contains_by_places(const uint8_t* bytes, int begin, int end, const PatternWords& pw) {
    static_assert(G == 2 || G == 4, "two or four places at a time");
    // Words loaded: [p & ~3, (p & ~3) + 4 W) holds [p, p + G + 7).
    constexpr int W = G == 4 ? 4 : 3;
    const int last = end - pw.m;  // places [begin, last]
    bool found = false;
    for (int p = begin; p <= last; p += G) {
        const uint32_t* words = reinterpret_cast<const uint32_t*>(bytes) + (p >> 2);
        const int shift = 8 * (p & 3);
        uint32_t w[W];
#pragma unroll
        for (int k = 0; k < W; ++k) w[k] = words[k];
        // Bytes [p, p + 12) as three words (with pairs only byte p + 8 of the third
        // is used, and it lies in w[2]).
        const uint32_t r0 = __funnelshift_r(w[0], w[1], shift), r1 = __funnelshift_r(w[1], w[2], shift),
                       r2 = W == 4 ? __funnelshift_r(w[2], w[W - 1], shift) : w[2] >> shift;
        // Places p + j up to `last`: at most G, at least one.
        const int more = last - p;
#pragma unroll
        for (int j = 0; j < G; ++j) {
            const uint32_t x = j == 0 ? r0 : __funnelshift_r(r0, r1, 8 * j);
            const uint32_t y = j == 0 ? r1 : __funnelshift_r(r1, r2, 8 * j);
            const uint32_t differ = ((x ^ pw.first) & pw.first_mask) | ((y ^ pw.second) & pw.second_mask);
            found |= differ == 0 && (j == 0 || j <= more);
        }
    }
    return found;
}

/// Bit k set where the 4-byte word at position k of the 32 bytes `w` (with `next`, the
/// 4 bytes after them) equals `pattern` under `mask`: for each word and each of its
/// four byte offsets a funnel shift, a masked XOR and a compare — fewer instructions
/// than short_matches for patterns of two bytes or more (136 against 144 to 240 for
/// 2 to 4 bytes, counted in the sm_90 SASS).
__device__ __forceinline__ uint32_t word_matches(const uint32_t (&w)[8], uint32_t next, uint32_t pattern,
                                                 uint32_t mask) {
    uint32_t found = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const uint32_t hi = i < 7 ? w[i + 1] : next;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const uint32_t x = j == 0 ? w[i] : __funnelshift_r(w[i], hi, 8 * j);
            found |= static_cast<uint32_t>(((x ^ pattern) & mask) == 0) << (4 * i + j);
        }
    }
    return found;
}

/// Bit k of the result set where the m-byte needle (m > 0, `pw` its pattern_words)
/// starts at tile position 32c + k. A match of up to 8 bytes running past the first
/// `span` bytes (into the zero padding) may be set; longer ones are checked against
/// `span`; callers only read positions whose match ends inside a row. `w` holds the
/// tile's bytes [32c, 32c + 32) as words (the tile is zero-padded past `span` up to
/// the next 32-byte boundary plus 16, so the bytes after them can be read). The first four bytes are compared in registers for all 32 positions
/// (short_matches for a one-byte pattern, word_matches otherwise); for a longer
/// pattern each candidate's next four bytes are compared as a word (head_matches_at)
/// and bytes past the eighth one by one.
__device__ __forceinline__ uint32_t tile_match_word(const uint8_t* bytes, int c, const uint32_t (&w)[8], int span,
                                                    const uint8_t* needle, const PatternWords& pw) {
    const uint32_t next = *reinterpret_cast<const uint32_t*>(bytes + 32 * c + 32);
    uint32_t found = pw.m == 1 ? static_cast<uint32_t>(short_matches<8>(w, next, pw.first, 1))
                               : word_matches(w, next, pw.first, pw.first_mask);
    if (pw.m > 4) {
        for (uint32_t rest = found; rest != 0; rest &= rest - 1) {
            const int p = 32 * c + __ffs(rest) - 1;
            bool equal = head_matches_at(bytes, p, pw);
            if (pw.m > 8) {
                equal = equal && p + pw.m <= span;
                for (int j = 8; equal && j < pw.m; ++j) equal = bytes[p + j] == needle[j];
            }
            if (!equal) found &= ~(1u << (p - 32 * c));
        }
    }
    return found;
}

}  // namespace ragged
