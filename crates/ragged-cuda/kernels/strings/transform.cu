// transform: the strings ops built on the two-pass helper (common/two_pass.cuh), one
// functor each; every row is computed by one thread, once to size it and once to
// write it.
//
// copy_if_else: row i of `left` where mask[i] is valid and true, else row i of
//   `right`; a chosen null row is null.
// concatenate: the `count` inputs of row i with `separator` between consecutive ones;
//   a null input makes the row null (nulls = 0), is left out with its separator
//   (nulls = 1), or is replaced by `replacement` (nulls = 2).
// redact: "L First" — the first character of the second space-separated part of the
//   name, a space, the first part — where the visibility contains "public", "X X"
//   elsewhere; a public row whose name is null or has no space is null (the
//   composition contains → split → slice → concatenate → copy_if_else, fused).
// replace also runs by tiles of rows in one kernel (replace_tiles, below) when the host
// can bound its output.
// Complexity: O(bytes read + bytes written) per pass.
#include "common/one_pass.cuh"
#include "common/tiles.cuh"

using namespace ragged;

struct CopyIfElse {
    BoolInput mask;
    StringInput left;
    StringInput right;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        // Each side read by name: a reference to the chosen one puts both on the stack.
        const bool take_left = mask.is_true(row);
        if (!(take_left ? left.valid(row) : right.valid(row))) return false;
        w.str(take_left ? left.get(row) : right.get(row));
        return true;
    }
};
RAGGED_TWO_PASS(CopyIfElse, copy_if_else)
RAGGED_ONE_PASS(CopyIfElse, copy_if_else)

struct Concatenate {
    const StringInput* inputs;
    uint32_t count;
    uint32_t nulls;
    StringInput separator;
    StringInput replacement;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        bool first = true;
        for (uint32_t k = 0; k < count; ++k) {
            const StringInput& in = inputs[k];
            string_view value;
            if (in.valid(row)) {
                value = in.get(row);
            } else if (nulls == 0) {
                return false;
            } else if (nulls == 1) {
                continue;
            } else {
                value = replacement.get(0);
            }
            if (!first) w.str(separator.get(0));
            w.str(value);
            first = false;
        }
        return true;
    }
};
RAGGED_TWO_PASS(Concatenate, concatenate)
RAGGED_ONE_PASS(Concatenate, concatenate)

/// Whether bytes [0, n) of d hold "public" (I: an index type that holds n).
template <typename I> __device__ __forceinline__ bool has_public(const uint8_t* d, I n) {
    for (I p = 0; p + 6 <= n; ++p)
        if (d[p] == 'p' && d[p + 1] == 'u' && d[p + 2] == 'b' && d[p + 3] == 'l' && d[p + 4] == 'i' && d[p + 5] == 'c')
            return true;
    return false;
}

/// Whether the row v holds "public": a row of up to 8 bytes from its bytes loaded all
/// at once, a longer one by has_public.
__device__ __forceinline__ bool is_public(string_view v) {
    if (v.size > 8) return v.size <= 0x7fffffffll ? has_public(v.data, static_cast<int>(v.size)) : has_public(v.data, v.size);
    uint32_t b[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) b[k] = k < v.size ? v.data[k] : 0u;
    bool found = false;
#pragma unroll
    for (int q = 0; q < 3; ++q)
        found |= (q + 6 <= v.size) & (b[q] == 'p') & (b[q + 1] == 'u') & (b[q + 2] == 'b') & (b[q + 3] == 'l') &
                 (b[q + 4] == 'i') & (b[q + 5] == 'c');
    return found;
}

/// The first position of a space in bytes [0, n) of d, or -1, and in `after` the byte
/// after it (0 past the end): eight bytes at a time, each eight loaded before any is
/// compared (I: an index type that holds n + 8).
template <typename I> __device__ __forceinline__ long long first_space(const uint8_t* d, I n, uint32_t& after) {
    after = 0;
    for (I g = 0; g < n; g += 8) {
        uint32_t b[9];
#pragma unroll
        for (int k = 0; k < 9; ++k) b[k] = g + k < n ? d[g + k] : 0u;
        long long space = -1;
#pragma unroll
        for (int k = 7; k >= 0; --k)
            if (g + k < n && b[k] == ' ') {
                space = static_cast<long long>(g + k);
                after = b[k + 1];
            }
        if (space >= 0) return space;
    }
    return -1;
}

// Each row is planned once (RowPlan, common/two_pass.cuh): the one-pass kernel keeps
// the plan from sizing the row to writing it. Both rows' offsets are loaded before
// either is used, and the searches load their bytes in groups: the kernel waits for a
// few loads per row instead of a chain of one per byte.
struct Redact {
    StringInput names;
    StringInput visibility;

    /// What a valid row writes: "X X" (name == nullptr), or its `initial` bytes (the
    /// first character after the first space), a space and the `space` bytes at name.
    struct Plan {
        const uint8_t* name;
        long long space;
        int initial;
    };

    __device__ bool plan(uint64_t row, Plan& p, long long& size) const {
        const string_view v = visibility.get(row);
        const string_view name = names.get(row);
        p.name = nullptr;
        size = 3;
        if (!(visibility.valid(row) && is_public(v))) return true;
        size = 0;
        if (!names.valid(row)) return false;
        uint32_t after;
        const long long space = name.size <= 0x7fffffffll - 8 ? first_space(name.data, static_cast<int>(name.size), after)
                                                              : first_space(name.data, name.size, after);
        if (space < 0) return false;
        p.name = name.data;
        p.space = space;
        p.initial = space + 1 < name.size && after != ' ' ? (after < 0xC0u ? 1 : (after < 0xE0u ? 2 : (after < 0xF0u ? 3 : 4))) : 0;
        size = space + 1 + p.initial;
        return true;
    }

    __device__ void write(const Plan& p, Writer& w) const {
        if (p.name == nullptr) {
            w.byte('X');
            w.byte(' ');
            w.byte('X');
            return;
        }
        // Called by the fill passes only (the writer writes), for a row under 2^31 bytes:
        // 32-bit indices, the first name copied eight bytes at a time, each eight loaded
        // before any is stored (Writer::bytes_grouped's 64-bit loop measured 2 % slower).
        uint8_t* d = w.out + w.pos;
        const int n = static_cast<int>(p.space);
        for (int i = 0; i < p.initial; ++i) d[i] = p.name[n + 1 + i];
        d[p.initial] = ' ';
        uint8_t* o = d + p.initial + 1;
        for (int i = 0; i < n; i += 8) {
            uint8_t b[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) b[k] = i + k < n ? p.name[i + k] : 0;
#pragma unroll
            for (int k = 0; k < 8; ++k)
                if (i + k < n) o[i + k] = b[k];
        }
        w.pos += p.initial + 1 + n;
    }

    __device__ bool operator()(uint64_t row, Writer& w) const {
        Plan p;
        long long size;
        if (!plan(row, p, size)) return false;
        write(p, w);
        return true;
    }
};
RAGGED_TWO_PASS(Redact, redact)
RAGGED_ONE_PASS(Redact, redact)

// ---- redact_staged: redact in one pass by warps of staged rows ---------------------

/// Rows per warp of redact_staged: lane l plans rows 2l and 2l + 1 of its warp's,
/// which are rows 2 tid and 2 tid + 1 of the tile (cub's blocked arrangement).
constexpr int REDACT_WARP_ROWS = 32 * ONE_PASS_ITEMS;
/// Bytes of a warp's stage of its rows' names, and of their visibility: rows averaging
/// up to about 31 and 15 bytes fit; a warp whose rows do not fit plans them in global
/// memory (redact_plan_unstaged).
constexpr int REDACT_NAMES_STAGE = 2048;
constexpr int REDACT_VISIBILITY_STAGE = 1024;
/// Bytes of the tile's output stage (512 rows of "L First" up to about 16 bytes).
constexpr int REDACT_OUT_STAGE = 8192;

/// A staged names piece's spaces as 16 bits (bit j: its byte j is ' ').
__device__ __forceinline__ uint16_t piece_spaces(const uint4& v) {
    return static_cast<uint16_t>(equal_bytes16(v, 0x20202020u));
}

/// `p`, hidden from the compiler's address arithmetic: an index into it costs one 32-bit
/// multiply-add (IMAD.WIDE.U32), where the compiler otherwise folded the pointer's
/// parts into each load's address and redid their 64-bit sum for every load
/// (redact_staged's offsets and staged pieces: 477 -> 455 warp instructions per 32
/// rows, PERFORMANCE v0.46). The pointer no longer carries its global address space,
/// so its loads go through __ldg (the inputs are read-only here). sm_90 only: on sm_80
/// the kept pointers made redact_staged spill 5 LDL / 5 STL, against 1 / 1 without.
template <typename T> __device__ __forceinline__ const T* opaque_pointer(const T* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm("" : "+l"(p));
#endif
    return p;
}

/// A warp's byte range of one input, staged from `from`, the 16-byte aligned address at
/// or below its first byte, in `chunks` pieces of 16 bytes: its bytes lie at [head,
/// stop) from `from` (positions in 32 bits). Every piece is read whole, also the
/// bytes before the range and after it in its first and last piece: every device
/// allocation starts 16-byte aligned and spans a multiple of 16 bytes
/// (src/memory.rs, Pool::allocate), so a 16-byte aligned piece that holds a byte of
/// chars lies inside chars' allocation. Without the byte loads and bounds checks a
/// column's ends took before, and with the validity written after the rows
/// (redact_staged), 1.145-1.159 -> 1.108-1.110 ms at 60 M rows on the H200
/// (PERFORMANCE v0.47).
struct WarpRange {
    const uint8_t* from;
    int head, stop;
    int chunks;  // -1: nothing staged (a scalar visibility)

    /// The range of bytes [w0, w1) of chars.
    __device__ __forceinline__ static WarpRange of(const uint8_t* chars, int32_t w0, int32_t w1) {
        WarpRange r;
        r.head = static_cast<int>((reinterpret_cast<unsigned long long>(chars) + static_cast<uint32_t>(w0)) & 15u);
        r.from = opaque_pointer(chars + (w0 - r.head));
        r.stop = r.head + (w1 - w0);
        r.chunks = (r.stop + 15) >> 4;
        return r;
    }

    /// Piece c: one vector load; zeros for the piece after the last (c == chunks).
    __device__ __forceinline__ uint4 piece(int c) const {
        uint4 v = make_uint4(0, 0, 0, 0);
        if (c < chunks) v = __ldg(reinterpret_cast<const uint4*>(from + static_cast<uint32_t>(16 * c)));
        return v;
    }
};

/// Stage a warp's names (byte p of name_range.from at names[p], with their spaces as
/// bits: spaces[c] bit j for stage byte 16 c + j) and visibility (likewise from
/// visibility_range.from, unless its chunks are -1), each followed
/// by one zero piece; the ranges fit their stages (the caller checked). The first 64
/// pieces of names and 32 of visibility (rows averaging up to 16 bytes of each) are
/// loaded before any is stored, so that a lane's three loads are in flight at once
/// (6-9 % faster at 60 M rows than a load-then-store loop per input, PERFORMANCE
/// v0.41); the rest follow one at a time. Warp-wide; the caller synchronizes the warp
/// before reading the stages.
__device__ __forceinline__ void stage_warp_rows(const WarpRange& name_range, uint8_t* names, uint16_t* spaces,
                                                const WarpRange& visibility_range, uint8_t* visibility) {
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const int name_chunks = name_range.chunks, visibility_chunks = visibility_range.chunks;
    const uint4 a = name_range.piece(lane);
    uint4 b = make_uint4(0, 0, 0, 0), x = b;
    if (lane + 32 <= name_chunks) b = name_range.piece(lane + 32);
    if (lane <= visibility_chunks) x = visibility_range.piece(lane);
    if (lane <= name_chunks) {
        *reinterpret_cast<uint4*>(names + 16 * lane) = a;
        spaces[lane] = piece_spaces(a);
    }
    if (lane + 32 <= name_chunks) {
        *reinterpret_cast<uint4*>(names + 16 * (lane + 32)) = b;
        spaces[lane + 32] = piece_spaces(b);
    }
    if (lane <= visibility_chunks) *reinterpret_cast<uint4*>(visibility + 16 * lane) = x;
    for (int c = lane + 64; c <= name_chunks; c += 32) {
        const uint4 v = name_range.piece(c);
        *reinterpret_cast<uint4*>(names + 16 * c) = v;
        spaces[c] = piece_spaces(v);
    }
    for (int c = lane + 32; c <= visibility_chunks; c += 32)
        *reinterpret_cast<uint4*>(visibility + 16 * c) = visibility_range.piece(c);
}

/// The first space in the staged row at positions [b, e), or -1, from the stage's
/// space bits (stage_warp_rows; one word past the row's readable): 32 positions at a
/// time.
__device__ __forceinline__ int staged_first_space(const uint32_t* spaces, int b, int e) {
    int at = b;
    uint32_t bits = __funnelshift_r(spaces[at >> 5], spaces[(at >> 5) + 1], static_cast<uint32_t>(at & 31));
    while (bits == 0 && at + 32 < e) {
        at += 32;
        bits = __funnelshift_r(spaces[at >> 5], spaces[(at >> 5) + 1], static_cast<uint32_t>(at & 31));
    }
    const int found = at + __ffs(static_cast<int>(bits)) - 1;
    return bits != 0 && found < e ? found : -1;
}

/// "public" as pattern_words gives it, from constants (pattern_words reads its bytes
/// from memory).
__device__ __forceinline__ PatternWords public_words() {
    return PatternWords{0x6c627570u /* "publ" */, ~0u, 0x6369u /* "ic" */, 0xffffu, 6};
}

/// Whether "public" (pw: public_words, 6 bytes) is among the staged bytes [b, e) of a warp's
/// visibility stage (readable 12 bytes past b): a row of up to 8 bytes (up to three
/// places) from the two words of its bytes, each place's first four bytes taken by a
/// funnel shift and its last two by a byte permute that repeats them (compared with
/// "icic"), without a loop; a longer row by contains_by_places.
__device__ __forceinline__ bool staged_public(const uint8_t* visibility, int b, int e, const PatternWords& pw) {
    if (e - b > 8) return contains_by_places<2>(visibility, b, e, pw);
    const uint32_t* w = reinterpret_cast<const uint32_t*>(visibility) + (b >> 2);
    const uint32_t shift = 8u * static_cast<uint32_t>(b & 3);
    // Bytes [b, b + 8) as two words.
    const uint32_t r0 = __funnelshift_r(w[0], w[1], shift), r1 = __funnelshift_r(w[1], w[2], shift);
    const uint32_t tail = pw.second | pw.second << 16;  // "icic"
    const int last = e - b - pw.m;  // places b .. b + last
    bool found = false;
#pragma unroll
    for (int j = 0; j < 3; ++j) {
        const uint32_t x = j == 0 ? r0 : __funnelshift_r(r0, r1, 8 * j);  // bytes j .. j + 3
        const uint32_t y = __byte_perm(r1, 0, j | (j + 1) << 4 | j << 8 | (j + 1) << 12);  // j + 4, j + 5 twice
        found |= (j <= last) & (x == pw.first) & (y == tail);
    }
    return found;
}

/// A row whose visibility does not hold "public": "X X" at dst.
__device__ __forceinline__ void write_hidden(uint8_t* dst) {
    dst[0] = 'X';
    dst[1] = ' ';
    dst[2] = 'X';
}

/// A staged row's plan: what redact_staged writes for it.
struct StagedPlan {
    /// The name's first byte in the warp's names stage, or -1 for "X X".
    int begin;
    /// The first space's position after begin (the first name's bytes).
    int space;
    /// The initial's bytes (0 to 4), after the space.
    int initial;
};

/// Write the row of `plan` (valid, of size > 0) at dst: "X X", or the initial, a
/// space and the first name from the names stage (redact_staged's rows when the
/// tile's output does not fit the stage and goes straight to the chars).
__device__ __forceinline__ void write_staged(uint8_t* dst, const uint8_t* names, const StagedPlan& plan) {
    if (plan.begin < 0) {
        write_hidden(dst);
        return;
    }
    const uint8_t* name = names + plan.begin;
    for (int i = 0; i < plan.initial; ++i) dst[i] = name[plan.space + 1 + i];
    dst[plan.initial] = ' ';
    copy_shared(dst + plan.initial + 1, name, static_cast<uint32_t>(plan.space));
}

/// The mask of a 32-bit word's n low bits (n <= 0: none; n >= 32: all).
__device__ __forceinline__ uint32_t low_bits(int n) {
    return __funnelshift_lc(~0u, 0u, static_cast<uint32_t>(n > 0 ? n : 0));
}

/// OR byte b into byte j of the 4-byte words at `words`.
__device__ __forceinline__ void or_byte(uint32_t* words, uint32_t j, uint32_t b) {
    atomicOr(words + (j >> 2), b << (8u * (j & 3u)));
}

/// Write the row of `plan` (valid, of `size` > 0 bytes) at byte o of redact_staged's
/// output stage (`out`, zeroed before the tile's rows are written): "X X", or the
/// initial, a space and the first name from the names stage (16 readable bytes before
/// it and 16 after its rows' end). Each 4-byte word of the stage that the row touches
/// is ORed with the row's bytes in it, so that rows sharing a word need no order: the
/// name's bytes taken from the names stage by one funnel shift per word (the stage
/// bytes at an offset that puts the name after the head), masked to the name's places,
/// and the head's bytes (the initial and the space, or "X X") ORed in. The first four
/// words (rows of up to 13 bytes at any alignment) take the same instructions in every
/// lane; longer rows loop over the rest.
__device__ __forceinline__ void or_staged_row(uint32_t* out, uint32_t o, const uint8_t* names, const StagedPlan& plan,
                                              int size) {
    const uint32_t* w = reinterpret_cast<const uint32_t*>(names);
    const int a = static_cast<int>(o & 3u);
    // The head (h bytes) and the name (s bytes from names + b).
    uint64_t head = 0x582058u;  // "X X"
    int h = 3, b = a + 3, s = 0;
    if (plan.begin >= 0) {
        b = plan.begin;
        s = plan.space;
        const int p = b + s + 1;  // the initial's first byte
        const uint32_t initial = __funnelshift_r(w[p >> 2], w[(p >> 2) + 1], 8u * (p & 3)) & low_bits(8 * plan.initial);
        head = initial | (0x20ull << (8 * plan.initial));
        h = plan.initial + 1;
    }
    // The row's bytes are stage words o / 4 ..: the head at bytes [a, a + h) of them,
    // the name at [a + h, a + h + s), which are names bytes from q = b - a - h (at least
    // -8: the names stage's readable bytes before it).
    const int lo = a + h, hi = a + h + s, end = a + size;
    const int lo_bits = 8 * lo, hi_bits = 8 * hi;
    const int q = b - lo;
    const int qw = q >> 2;  // rounds down
    const uint32_t shift = 8u * static_cast<uint32_t>(q & 3);
    const uint64_t placed = head << (8 * a);
    uint32_t* const dst = out + (o >> 2);
    uint32_t left = w[qw];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t right = w[qw + i + 1];
        // The head ends within the first two words (lo <= 3 + 5 bytes).
        uint32_t word = __funnelshift_r(left, right, shift) &
                        (low_bits(hi_bits - 32 * i) ^ (i < 2 ? low_bits(lo_bits - 32 * i) : 0u));
        if (i < 2) word |= static_cast<uint32_t>(placed >> (32 * i));
        // Past the row's end the masks and the head leave the word 0 (the stage's 16
        // bytes of padding hold the last row's): ORed all the same, without a branch.
        atomicOr(dst + i, word);
        left = right;
    }
    for (int i = 4; 4 * i < end; ++i) {
        const uint32_t right = w[qw + i + 1];
        atomicOr(dst + i,
                 __funnelshift_r(left, right, shift) & (low_bits(hi_bits - 32 * i) ^ low_bits(lo_bits - 32 * i)));
        left = right;
    }
}

/// Row `row`'s plan and size as Redact::plan gives them, for redact_staged's rows
/// that are not staged (a warp's rows too long for its stages): byte by byte, with
/// fewer registers than Redact::plan's grouped loads, so that the staged path keeps
/// its own.
/// Returns whether the row is valid; a size of 2^31 bytes or more is reported through
/// the error word (code 1) and the row sized 0.
__device__ __forceinline__ bool redact_plan_unstaged(const Redact& f, uint64_t row, uint64_t* error_word,
                                                     Redact::Plan& p, int32_t& size) {
    p.name = nullptr;
    size = 3;
    const string_view v = f.visibility.get(row);
    if (!(f.visibility.valid(row) && v.find(string_view{reinterpret_cast<const uint8_t*>("public"), 6}) >= 0))
        return true;
    size = 0;
    if (!f.names.valid(row)) return false;
    const string_view name = f.names.get(row);
    const long long space = name.find_byte(' ');
    if (space < 0) return false;
    p.name = name.data;
    p.space = space;
    p.initial = space + 1 < name.size && name[space + 1] != ' ' ? name.char_bytes_at(space + 1) : 0;
    const long long bytes = space + 1 + p.initial;
    if (bytes > 0x7fffffffll) {
        report_error(error_word, row, 1);
        return true;
    }
    size = static_cast<int32_t>(bytes);
    return true;
}

/// Row `row`'s bytes (valid, of size > 0), for redact_staged's rows that are not
/// staged: planned again by redact_plan_unstaged and written byte by byte, byte j by
/// put(j, byte).
template <typename Put>
__device__ __forceinline__ void redact_write_unstaged(const Redact& f, uint64_t row, uint64_t* error_word,
                                                      const Put& put) {
    Redact::Plan p;
    int32_t size;
    redact_plan_unstaged(f, row, error_word, p, size);
    if (p.name == nullptr) {
        put(0, 'X');
        put(1, ' ');
        put(2, 'X');
        return;
    }
    const int n = static_cast<int>(p.space);
    for (int i = 0; i < p.initial; ++i) put(i, p.name[n + 1 + i]);
    put(p.initial, ' ');
    for (int i = 0; i < n; ++i) put(p.initial + 1 + i, p.name[i]);
}

/// Plan the lane's rows mine and mine + 1 of a warp's 64 staged ones (redact_staged,
/// i32 offsets; the visibility may be a scalar): their sizes, validity bits and plans.
/// Returns false, having planned nothing, when the warp's rows do not fit its stages
/// (uniform per warp).
__device__ __forceinline__ bool plan_staged_rows(const Redact& f, uint64_t rows, uint64_t first, int tile_rows,
                                                 int local, uint8_t* names, uint32_t* spaces, uint8_t* visibility,
                                                 StagedPlan (&plans)[ONE_PASS_ITEMS],
                                                 int32_t (&sizes)[ONE_PASS_ITEMS], uint32_t& valid) {
    constexpr unsigned FULL = 0xffffffffu;
    const StringInput& names_in = f.names;
    const StringInput& visibility_in = f.visibility;
    const int32_t* name_offsets = static_cast<const int32_t*>(names_in.offsets);
    const int32_t* visibility_offsets = static_cast<const int32_t*>(visibility_in.offsets);
    const bool scalar = visibility_in.scalar;  // its one row serves every row
    // The lane's rows' starts and the end of its second row, in each input (rows past
    // the end are empty): three loads each, at 32-bit positions in the tile.
    const int32_t* tile_names = opaque_pointer(name_offsets + first);
    const int32_t* tile_visibility = opaque_pointer(visibility_offsets + first);
    int32_t n[3], v[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        const uint32_t at = static_cast<uint32_t>(local + k < tile_rows ? local + k : tile_rows);
        n[k] = __ldg(tile_names + at);
        v[k] = scalar ? 0 : __ldg(tile_visibility + at);
    }
    // The lane's rows in the column, as bits. On sm_90 the empty asm keeps them in a
    // register across the staging, where the compiler otherwise recomputed them in 64
    // bits; on sm_80 that register made the kernel spill.
    uint32_t present = static_cast<uint32_t>(local < tile_rows) | static_cast<uint32_t>(local + 1 < tile_rows) << 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("" : "+r"(present));
#endif
    const int32_t n0 = __shfl_sync(FULL, n[0], 0), n1 = __shfl_sync(FULL, n[2], 31);
    const int32_t v0 = __shfl_sync(FULL, v[0], 0), v1 = __shfl_sync(FULL, v[2], 31);
    const WarpRange name_range = WarpRange::of(names_in.chars, n0, n1);
    WarpRange visibility_range = WarpRange::of(visibility_in.chars, v0, v1);
    if (scalar) visibility_range.chunks = -1;
    if (name_range.stop > REDACT_NAMES_STAGE || visibility_range.stop > REDACT_VISIBILITY_STAGE) return false;
    stage_warp_rows(name_range, names, reinterpret_cast<uint16_t*>(spaces), visibility_range, visibility);
    // Positions in the stages.
    int nb[3], vb[3];
#pragma unroll
    for (int j = 0; j < 3; ++j) {
        nb[j] = n[j] - n0 + name_range.head;
        vb[j] = v[j] - v0 + visibility_range.head;
    }
    __syncwarp();
    // A scalar visibility: "public" in it or not, for every row.
    const bool scalar_open = scalar && visibility_in.valid(0) &&
                             visibility_in.get(0).find(string_view{reinterpret_cast<const uint8_t*>("public"), 6}) >= 0;
    const PatternWords pw = public_words();
    // The lane's rows' validity in each input.
    const uint32_t name_valid =
        names_in.bits == nullptr ? present : valid_bits<2>(names_in.bits, names_in.bit_offset, first + local, rows);
    const uint32_t visibility_valid =
        scalar ? 0u
               : (visibility_in.bits == nullptr
                      ? present
                      : valid_bits<2>(visibility_in.bits, visibility_in.bit_offset, first + local, rows));
    // Each row planned without branches: its visibility, then its name's plan in every
    // lane (a warp's rows are about half public, so it runs that for some lane anyway),
    // then the one chosen.
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        const bool here = (present >> k) & 1u;
        // Both sides of the & evaluated, without a branch.
        const bool open = scalar ? scalar_open
                                 : static_cast<bool>((visibility_valid >> k) & 1u) &
                                       staged_public(visibility, vb[k], vb[k + 1], pw);
        const int b = nb[k], e = nb[k + 1];
        const int at = staged_first_space(spaces, b, e);
        const bool more = at >= 0 && at + 1 < e;  // a byte after the space
        const uint32_t after = more ? names[at + 1] : 0u;
        const int initial =
            more && after != ' ' ? (after < 0xC0u ? 1 : (after < 0xE0u ? 2 : (after < 0xF0u ? 3 : 4))) : 0;
        const bool named = here && open && ((name_valid >> k) & 1u) && at >= 0;
        const bool hidden = here && !open;  // "X X"
        plans[k] = StagedPlan{named ? b : -1, at - b, initial};
        sizes[k] = named ? at - b + 1 + initial : (hidden ? 3 : 0);
        valid |= static_cast<uint32_t>(named || hidden) << k;
    }
    return true;
}

/// redact in one pass for names with i32 offsets and a visibility column with i32
/// offsets or a scalar (the host's choice, src/strings/transform.rs; other inputs take
/// RAGGED_ONE_PASS's redact_one_pass): one_pass.cuh's order, contract and tiles,
/// planned from rows staged per warp. Each warp stages the names and visibility bytes
/// of its 64 consecutive rows in shared memory by 16-byte loads, a lane's first three
/// in flight at once (stage_warp_rows), with a bit per names byte for the spaces, and
/// each lane plans its two rows from there without branches — "public" compared at a
/// short row's three places at once (staged_public), the first space from the bits 32
/// positions at a time — and ORs them into the tile's zeroed output stage
/// word by word (or_staged_row). Rows are counted from the tile's first and bytes from
/// each warp's aligned start, in 32 bits. A warp whose rows do not fit its stages plans
/// them in global memory (redact_plan_unstaged) and writes them by planning them
/// again. The tile scan looks back 64 tile states per round trip (TileScan's WIDE).
/// Against the generic one-pass kernel: 40 registers (6 blocks per SM) against 48, and
/// 1.11-1.16 ms against 1.91 at 60 M rows on the H200 (PERFORMANCE v0.40, v0.41, v0.43,
/// v0.45-v0.47); every offset width in one kernel took 48 registers and lost the first
/// half of that gain.
template <typename O>
__device__ __forceinline__ void redact_staged(const Redact& f, uint64_t rows, uint64_t capacity, O* offsets,
                                                uint8_t* chars, uint32_t* validity, unsigned long long* counts,
                                                uint64_t* error_word, void* state_mem, uint64_t state_bytes) {
    typedef unsigned long long Acc;
    // The tile's scan in 32 bits: a row's size is at most its name's bytes + 4 (the
    // initial's length comes from its lead byte) or 3, and the names' i32 offsets
    // cover under 2^31 bytes, so a tile's total stays below 2^32.
    typedef TileScan<uint32_t, OnePassTuning, true> Scan;
    constexpr unsigned FULL = 0xffffffffu;
    constexpr int WARPS = ONE_PASS_THREADS / 32;
    __shared__ typename Scan::Storage temp;
    // Each warp's names from byte 16 (or_staged_row reads up to 8 bytes before them),
    // with 32 bytes after the stage's 16 of padding that or_staged_row may read.
    __shared__ __align__(16) uint8_t name_stages[WARPS][REDACT_NAMES_STAGE + 64];
    // Each warp's spaces among its names stage as bits (stage_warp_rows), with the
    // zero piece's and one word more, which staged_first_space reads.
    __shared__ uint32_t space_stages[WARPS][REDACT_NAMES_STAGE / 32 + 2];
    __shared__ __align__(16) uint8_t visibility_stages[WARPS][REDACT_VISIBILITY_STAGE + 16];
    // 16 bytes more than staged, which flush_stage_words may read past the end.
    __shared__ __align__(16) uint8_t stage[REDACT_OUT_STAGE + 16];

    const int tiles = static_cast<int>((rows + ONE_PASS_ROWS - 1) / ONE_PASS_ROWS);
    const int tile = blockIdx.x;
    const unsigned tid = threadIdx.x, lane = tid & 31u;
    const uint64_t first = static_cast<uint64_t>(tile) * ONE_PASS_ROWS;
    // The tile's rows (1 to ONE_PASS_ROWS), and this lane's: local and local + 1 of them,
    // mine and mine + 1 of the column.
    const int tile_rows = rows - first < static_cast<uint64_t>(ONE_PASS_ROWS) ? static_cast<int>(rows - first)
                                                                               : ONE_PASS_ROWS;
    const int local = ONE_PASS_ITEMS * static_cast<int>(tid);
    const uint64_t mine = first + local;
    uint8_t* names = name_stages[tid >> 5] + 16;

    // 1. Plans, sizes and validity bits.
    StagedPlan plans[ONE_PASS_ITEMS];
    int32_t sizes[ONE_PASS_ITEMS] = {0, 0};
    uint32_t valid = 0;
    uint8_t* visibility = visibility_stages[tid >> 5];
    uint32_t* spaces = space_stages[tid >> 5];
    const bool staged =  // uniform per warp
        plan_staged_rows(f, rows, first, tile_rows, local, names, spaces, visibility, plans, sizes, valid);
    if (!staged) {  // uniform per warp
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            if (local + k >= tile_rows) continue;
            Redact::Plan plan;
            int32_t size;
            const bool row_valid = redact_plan_unstaged(f, mine + k, error_word, plan, size);
            sizes[k] = row_valid ? size : 0;
            valid |= static_cast<uint32_t>(row_valid) << k;
        }
    }

    // The output stage zeroed (the scan's barrier orders this before the rows are ORed
    // into it, or_staged_row).
    zero_stage_even<REDACT_OUT_STAGE, ONE_PASS_THREADS>(stage);

    // 2. The tile's own exclusive scan, its total published at once.
    uint32_t items[ONE_PASS_ITEMS];
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k) items[k] = static_cast<uint32_t>(sizes[k]);
    uint32_t aggregate;
    Scan scan{temp, state_mem, state_bytes, tiles};
    scan.publish(items, aggregate);

    // 3. The rows into the stage, at their places in the tile's output.
    const bool staged_out = aggregate <= static_cast<uint32_t>(REDACT_OUT_STAGE);  // uniform
    if (staged_out) {
        uint32_t* const words = reinterpret_cast<uint32_t*>(stage);
#pragma unroll
        for (int k = 0; k < ONE_PASS_ITEMS; ++k) {
            if (sizes[k] == 0) continue;
            if (staged) {
                or_staged_row(words, items[k], names, plans[k], sizes[k]);
            } else {
                const uint32_t o = items[k];
                redact_write_unstaged(f, mine + k, error_word,
                                      [&](uint32_t j, uint32_t b) { or_byte(words, o + j, b); });
            }
        }
    }

    // The validity of the warp's rows: rows 32j .. 32j + 31 of its 64 from lanes 16j ..
    // 16j + 15, two bits each (the tile's first row is a multiple of 32). Written after
    // the rows, so that the tile's total is published sooner and the look-back comes
    // later (1 % at 60 M rows, PERFORMANCE v0.47).
    uint32_t null_count = 0;
    {
        uint32_t word = valid << (2 * (lane & 15u));
        word |= __shfl_xor_sync(FULL, word, 1);
        word |= __shfl_xor_sync(FULL, word, 2);
        word |= __shfl_xor_sync(FULL, word, 4);
        word |= __shfl_xor_sync(FULL, word, 8);
        const int word_row = REDACT_WARP_ROWS * static_cast<int>(tid >> 5) + 32 * static_cast<int>(lane >> 4);
        if ((lane & 15u) == 0 && word_row < tile_rows) {
            validity[first / 32 + word_row / 32] = word;
            const int present = tile_rows - word_row < 32 ? tile_rows - word_row : 32;
            null_count = static_cast<uint32_t>(present) - __popc(word);
        }
        null_count += __shfl_xor_sync(FULL, null_count, 16);
    }
    flush_count(counts, null_count);

    // 4. The earlier tiles' bytes (block-wide, ends with a barrier).
    const Acc base = scan.look_back(aggregate);

    // 5. Offsets; then the bytes.
    const Acc end = base + aggregate;
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k)
        if (local + k < tile_rows) offsets[mine + k] = static_cast<O>(base + items[k]);
    if (tile == tiles - 1 && tid == 0) {
        offsets[rows] = static_cast<O>(end);
        counts[1] = end;
    }
    if (end > capacity) return;  // uniform: the host falls back to the two-pass helper
    if (staged_out) {
        flush_stage_words(stage, chars + base, static_cast<int>(aggregate));
        return;
    }
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k) {
        if (sizes[k] == 0) continue;
        const Acc at = base + items[k];
        if (staged) {
            write_staged(chars + at, names, plans[k]);
        } else {
            uint8_t* const dst = chars + at;
            redact_write_unstaged(f, mine + k, error_word, [&](uint32_t j, uint32_t b) { dst[j] = b; });
        }
    }
}

extern "C" __global__ void __launch_bounds__(ONE_PASS_THREADS, 6)
    redact_staged_one_pass_i32(Redact f, uint64_t rows, uint64_t capacity, int32_t* offsets, uint8_t* chars,
                               uint32_t* validity, unsigned long long* counts, uint64_t* error_word, void* state,
                               uint64_t state_bytes) {
    redact_staged(f, rows, capacity, offsets, chars, validity, counts, error_word, state, state_bytes);
}

extern "C" __global__ void __launch_bounds__(ONE_PASS_THREADS, 6)
    redact_staged_one_pass_i64(Redact f, uint64_t rows, uint64_t capacity, long long* offsets, uint8_t* chars,
                               uint32_t* validity, unsigned long long* counts, uint64_t* error_word, void* state,
                               uint64_t state_bytes) {
    redact_staged(f, rows, capacity, offsets, chars, validity, counts, error_word, state, state_bytes);
}

// ---- per-row rewrites: upper / lower, strip, pad, repeat, replace --------------------

// upper / lower: ASCII by arithmetic; another character by a binary search of the
// sorted (from, to) table of the characters that change (ragged_core::ops::case_table).

/// The image of ASCII byte b under upper (a-z -> A-Z) or lower (A-Z -> a-z).
__device__ __forceinline__ uint8_t ascii_case(uint8_t b, bool upper) {
    const bool change = upper ? (b >= 'a' && b <= 'z') : (b >= 'A' && b <= 'Z');
    return change ? b ^ 0x20u : b;
}

/// ascii_case of the four bytes of w, all below 0x80: a byte in the range to change
/// gets bit 7 from adding 0x80 - first (no carry leaves a byte below 0x80) and not
/// from adding 0x80 - (last + 1); that bit, moved to bit 5, flips the case.
__device__ __forceinline__ uint32_t ascii_case_word(uint32_t w, bool upper) {
    const uint32_t from_first = upper ? 0x1f1f1f1fu : 0x3f3f3f3fu;  // 0x80 - 'a', 0x80 - 'A'
    const uint32_t past_last = upper ? 0x05050505u : 0x25252525u;   // 0x80 - '{', 0x80 - '['
    return w ^ (((w + from_first) & ~(w + past_last) & 0x80808080u) >> 2);
}

/// The image of non-ASCII code point c: to[i] where from[i] == c, else c.
__device__ __forceinline__ uint32_t case_lookup(const uint32_t* from, const uint32_t* to, uint32_t entries,
                                                uint32_t c) {
    uint32_t lo = 0, hi = entries;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2;
        if (from[mid] < c) lo = mid + 1; else hi = mid;
    }
    return lo < entries && from[lo] == c ? to[lo] : c;
}

struct CaseMap {
    StringInput col;
    const uint32_t* from;
    const uint32_t* to;
    uint32_t entries;
    uint32_t upper;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        if (!col.valid(row)) return false;
        const string_view s = col.get(row);
        for (long long i = 0; i < s.size;) {
            const uint8_t b = s[i];
            if (b < 0x80u) {
                w.byte(ascii_case(b, upper != 0));
                ++i;
                continue;
            }
            const int len = s.char_bytes_at(i);
            const uint32_t c = decode_utf8(s.data + i, len);
            const uint32_t m = case_lookup(from, to, entries, c);
            if (m != c) {
                uint8_t bytes[4];
                w.bytes(bytes, encode_utf8(m, bytes));
            } else {
                w.bytes(s.data + i, len);
            }
            i += len;
        }
        return true;
    }
};
RAGGED_TWO_PASS(CaseMap, case_map)
RAGGED_ONE_PASS(CaseMap, case_map)

// case_map_same_length_<O>: upper / lower of a column whose characters all keep their
// byte length (every ASCII column, most others), byte for byte over the chars, so the
// output shares the input's offsets (the host's choice; no sizes, no scan). Only a
// column whose rows cover its chars exactly (offsets[0] = 0, offsets[rows] = bytes:
// every byte then lies in a valid UTF-8 row) is mapped; otherwise *refused gets bit 1
// and nothing is written. A thread takes 16-byte chunks, CASE_CHUNKS of them per
// round (coalesced, loads first): a chunk of ASCII bytes is mapped four bytes at a
// time (ascii_case_word); another maps, byte by byte, each character that starts in
// it (its last bytes may lie in the next chunk, whose thread skips them) and sets bit
// 0 of *refused when a character would change its length — the host then runs the
// two-pass case_map instead, and this output is dropped.
// Pseudo-code: out[i] = case(in[i]) per character, offsets unchanged
// Complexity: O(bytes); each byte read and written once.
constexpr int CASE_CHUNKS = 4;

template <typename O>
__device__ void case_map_same_length(const O* offsets, uint64_t rows, const uint8_t* in, uint64_t bytes,
                                     uint8_t* out, const uint32_t* from, const uint32_t* to, uint32_t entries,
                                     bool upper, uint32_t* refused) {
    if (static_cast<long long>(offsets[0]) != 0 || static_cast<uint64_t>(offsets[rows]) != bytes) {
        if (global_thread() == 0) atomicOr(refused, 2u);
        return;
    }
    const bool aligned = ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) & 15u) == 0;
    const uint64_t chunks = (bytes + 15) / 16;
    const uint64_t round = static_cast<uint64_t>(blockDim.x) * CASE_CHUNKS;
    for (uint64_t first = blockIdx.x * round; first < chunks; first += gridDim.x * round) {
        uint4 v[CASE_CHUNKS];
        bool ascii[CASE_CHUNKS];
#pragma unroll
        for (int u = 0; u < CASE_CHUNKS; ++u) {
            const uint64_t k = first + u * blockDim.x + threadIdx.x;
            ascii[u] = false;
            if (aligned && (k + 1) * 16 <= bytes) {
                v[u] = __ldg(reinterpret_cast<const uint4*>(in) + k);
                ascii[u] = ((v[u].x | v[u].y | v[u].z | v[u].w) & 0x80808080u) == 0;
            }
        }
#pragma unroll
        for (int u = 0; u < CASE_CHUNKS; ++u) {
            const uint64_t k = first + u * blockDim.x + threadIdx.x;
            if (k >= chunks) continue;
            if (ascii[u]) {
                const uint4 w = v[u];
                reinterpret_cast<uint4*>(out)[k] = make_uint4(ascii_case_word(w.x, upper), ascii_case_word(w.y, upper),
                                                              ascii_case_word(w.z, upper), ascii_case_word(w.w, upper));
                continue;
            }
            const uint64_t end = (k + 1) * 16 < bytes ? (k + 1) * 16 : bytes;
            for (uint64_t i = k * 16; i < end;) {
                const uint8_t b = in[i];
                if (b < 0x80u) {
                    out[i++] = ascii_case(b, upper);
                    continue;
                }
                if ((b & 0xC0u) == 0x80u) {  // the tail of a character the previous chunk's thread writes
                    ++i;
                    continue;
                }
                const int len = b < 0xE0u ? 2 : (b < 0xF0u ? 3 : 4);
                const uint32_t c = decode_utf8(in + i, len);
                uint8_t mapped[4];
                if (encode_utf8(case_lookup(from, to, entries, c), mapped) != len) {
                    atomicOr(refused, 1u);
                    return;
                }
                for (int j = 0; j < len; ++j) out[i + j] = mapped[j];
                i += len;
            }
        }
    }
}

#define RAGGED_CASE_MAP_SAME_LENGTH(O, ONAME)                                                        \
    extern "C" __global__ void case_map_same_length_##ONAME(                                          \
        const O* offsets, uint64_t rows, const uint8_t* in, uint64_t bytes, uint8_t* out,             \
        const uint32_t* from, const uint32_t* to, uint32_t entries, uint32_t upper, uint32_t* refused) { \
        case_map_same_length(offsets, rows, in, bytes, out, from, to, entries, upper != 0, refused);  \
    }
RAGGED_CASE_MAP_SAME_LENGTH(int32_t, i32)
RAGGED_CASE_MAP_SAME_LENGTH(int64_t, i64)

// strip: sides 1 = left, 2 = right, 3 = both; a character is stripped when it is one
// of the characters of `set` (row 0). When they are all ASCII (ascii = 1; ASCII
// whitespace for the default set), low and high hold them as bits 0..63 and 64..127
// and the row's bytes are tested directly: an ASCII byte is a whole character, never
// inside one.
struct Strip {
    StringInput col;
    StringInput set;
    uint32_t sides;
    uint32_t ascii;
    unsigned long long low;
    unsigned long long high;

    /// Whether the character of `len` bytes at p is one of `set`'s.
    __device__ bool strips(const uint8_t* p, int len) const {
        const string_view chars = set.get(0);
        for (long long i = 0; i < chars.size; i += chars.char_bytes_at(i)) {
            if (chars.char_bytes_at(i) != len) continue;
            int k = 0;
            while (k < len && chars[i + k] == p[k]) ++k;
            if (k == len) return true;
        }
        return false;
    }

    /// Whether byte c is an ASCII character of the set (ascii = 1).
    __device__ __forceinline__ bool in_mask(uint8_t c) const {
        return c < 64u ? ((low >> c) & 1u) : (c < 128u && ((high >> (c - 64u)) & 1u));
    }

    __device__ bool operator()(uint64_t row, Writer& w) const {
        if (!col.valid(row)) return false;
        const string_view s = col.get(row);
        long long a = 0, b = s.size;
        if (ascii) {
            if (sides & 1u)
                while (a < b && in_mask(s[a])) ++a;
            if (sides & 2u)
                while (b > a && in_mask(s[b - 1])) --b;
        } else {
            if (sides & 1u) {
                while (a < b) {
                    const int len = s.char_bytes_at(a);
                    if (!strips(s.data + a, len)) break;
                    a += len;
                }
            }
            if (sides & 2u) {
                while (b > a) {
                    long long start = b - 1;
                    while (start > a && (s[start] & 0xC0u) == 0x80u) --start;
                    if (!strips(s.data + start, static_cast<int>(b - start))) break;
                    b = start;
                }
            }
        }
        w.bytes(s.data + a, b - a);
        return true;
    }
};
RAGGED_TWO_PASS(Strip, strip)
RAGGED_ONE_PASS(Strip, strip)

// pad: to `width` characters with the fill character's bytes; side 0 = left, 1 =
// right, 2 = both (the extra one on the right).
struct Pad {
    StringInput col;
    StringInput fill;
    unsigned long long width;
    uint32_t side;
    uint32_t unused;

    /// A valid row: its bytes and the fill characters before and after them.
    struct Plan {
        string_view s;
        unsigned long long left, right;
    };

    __device__ bool plan(uint64_t row, Plan& p, long long& size) const {
        size = 0;
        if (!col.valid(row)) return false;
        p.s = col.get(row);
        const unsigned long long n = static_cast<unsigned long long>(p.s.chars());
        const unsigned long long missing = n < width ? width - n : 0;
        p.left = side == 0 ? missing : (side == 1 ? 0 : missing / 2);
        p.right = missing - p.left;
        size = static_cast<long long>(missing * static_cast<unsigned long long>(fill.get(0).size)) + p.s.size;
        return true;
    }

    /// `count` fill characters (one byte each in the usual case).
    __device__ __forceinline__ void fill_chars(unsigned long long count, Writer& w) const {
        const string_view f = fill.get(0);
        if (f.size == 1) {
            const uint8_t c = f.data[0];
            for (unsigned long long k = 0; k < count; ++k) w.byte(c);
        } else {
            for (unsigned long long k = 0; k < count; ++k) w.str(f);
        }
    }

    __device__ void write(const Plan& p, Writer& w) const {
        fill_chars(p.left, w);
        w.str(p.s);
        fill_chars(p.right, w);
    }

    __device__ bool operator()(uint64_t row, Writer& w) const {
        Plan p;
        long long size;
        if (!plan(row, p, size)) return false;
        if (w.out == nullptr) w.pos += size;
        else write(p, w);
        return true;
    }
};
RAGGED_TWO_PASS(Pad, pad)
RAGGED_ONE_PASS(Pad, pad)

// repeat: the row `times` times; the sizes pass multiplies (saturating), so that a
// huge count costs nothing before the size check.
struct Repeat {
    StringInput col;
    unsigned long long times;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        if (!col.valid(row)) return false;
        const string_view s = col.get(row);
        if (w.out == nullptr) {
            const unsigned long long size = static_cast<unsigned long long>(s.size);
            const bool huge = size != 0 && times > 0x7fffffffull / size;
            w.pos += huge ? 0x80000000ll : static_cast<long long>(size * times);
            return true;
        }
        for (unsigned long long k = 0; k < times; ++k) w.str(s);
        return true;
    }
};
RAGGED_TWO_PASS(Repeat, repeat)
RAGGED_ONE_PASS(Repeat, repeat)

// replace: the non-overlapping occurrences of `pattern` (row 0, not empty) from the
// left, at most max_count of them, replaced by `replacement` (row 0).
struct Replace {
    StringInput col;
    StringInput pattern;
    StringInput replacement;
    unsigned long long max_count;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        if (!col.valid(row)) return false;
        const string_view s = col.get(row);
        const string_view p = pattern.get(0);
        const string_view r = replacement.get(0);
        long long copied = 0;
        unsigned long long count = 0;
        while (count < max_count) {
            const long long at = s.find(p, copied);
            if (at < 0) break;
            w.bytes(s.data + copied, at - copied);
            w.str(r);
            copied = at + p.size;
            ++count;
        }
        w.bytes(s.data + copied, s.size - copied);
        return true;
    }
};
RAGGED_TWO_PASS(Replace, replace)
RAGGED_ONE_PASS(Replace, replace)

/// Write the rows of a replace tile (rows [first, first + n), `found[i]` occurrences
/// in row slot i) at out + at[r]: the output stage (to_stage) or the chars. Rows and
/// stage both in shared memory: the pieces between the occurrences copied by words
/// (copy_shared); else through a Writer.
template <typename I>
__device__ __forceinline__ void write_replaced(const StringInput& col, const TileRows<I>& staged, uint64_t first,
                                               int n, string_view p, string_view rep,
                                               const uint32_t (&found)[TILE_ITEMS], const uint32_t* at,
                                               uint8_t* out, bool to_stage) {
    const unsigned tid = threadIdx.x;
    const long long m = p.size;
    if (staged.staged && to_stage) {
#pragma unroll 1
        for (int i = 0; i < TILE_ITEMS; ++i) {
            const int r = i * TILE_THREADS + tid;
            if (r >= n || !col.valid(first + r)) continue;
            const string_view s = staged.get(r);
            const uint8_t* const bytes = staged.staged_bytes(r);
            uint8_t* const dst = out + at[r];
            uint32_t written = 0, copied = 0;
            for (uint32_t k = 0; k < found[i]; ++k) {
                const uint32_t q = static_cast<uint32_t>(find_in_row(s, staged.match, staged.begin(r), p, copied));
                copy_shared(dst + written, bytes + copied, q - copied);
                written += q - copied;
                for (long long j = 0; j < rep.size; ++j) dst[written + j] = rep.data[j];
                written += static_cast<uint32_t>(rep.size);
                copied = q + static_cast<uint32_t>(m);
            }
            copy_shared(dst + written, bytes + copied, static_cast<uint32_t>(s.size) - copied);
        }
        return;
    }
#pragma unroll 1
    for (int i = 0; i < TILE_ITEMS; ++i) {
        const int r = i * TILE_THREADS + tid;
        if (r >= n || !col.valid(first + r)) continue;
        const string_view s = staged.get(r);
        Writer w{out + at[r], 0, 0};
        long long copied = 0;
        for (uint32_t k = 0; k < found[i]; ++k) {
            const long long q = find_in_row(s, staged.match, staged.begin(r), p, copied);
            w.bytes(s.data + copied, q - copied);
            w.str(rep);
            copied = q + m;
        }
        w.bytes(s.data + copied, s.size - copied);
    }
}

/// The longest replacement or_replaced_rows writes from a register.
constexpr long long REPLACE_OR_MAX = 4;

/// The byte-permute selectors of or_replaced_rows for a replacement of `size` (<= 4)
/// bytes: entry 4 k + i selects output word i of four input bytes whose matches are
/// the bits of k (0 to 15) from the input word (selectors 0-3) and the replacement
/// word (4-7): each input byte in order, a matching one as the replacement's bytes.
/// The bytes after the output select byte 7 of the replacement, a zero when it has
/// fewer than four bytes. Threads 0-15 fill entries 4 k .. 4 k + 3 for k = tid; the
/// caller synchronizes the block before they are read.
__device__ __forceinline__ void fill_replace_selectors(uint32_t* selectors, uint32_t size) {
    const unsigned k = threadIdx.x;
    if (k >= 16) return;
    // Output byte o's selector at bits 4 o .. 4 o + 3.
    unsigned long long nibbles = 0x7777777777777777ull;
    uint32_t o = 0;
    for (uint32_t j = 0; j < 4; ++j) {
        const bool hit = (k >> j) & 1u;
        for (uint32_t r = 0; r < (hit ? size : 1u); ++r, ++o)
            nibbles = (nibbles & ~(0xfull << (4 * o))) | static_cast<unsigned long long>(hit ? 4 + r : j) << (4 * o);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) selectors[4 * k + i] = static_cast<uint32_t>(nibbles >> (16 * i)) & 0xffffu;
}

/// Write the rows of a staged replace tile into the output stage (`out`, zeroed before
/// the tile's scan), for a one-byte pattern (`match`: its matches as bits, every one an
/// occurrence) and a replacement of R <= REPLACE_OR_MAX bytes (`rep`, as a word; W:
/// the output words four input bytes can make, max(R, 1)). Each row is read four bytes
/// at a time (one funnel shift of the staged words) with their four match bits k; the
/// bytes they become are made by W byte permutes of the input word and `rep`
/// (`selectors`, fill_replace_selectors, entry k), shifted to their place and ORed into
/// the stage's W + 1 words there. Every lane does the same steps whatever its row's
/// occurrences, and rows sharing a stage word need no order. A row's occurrences after
/// its first found[i] (max_count) stay as they are. Against write_replaced's pieces
/// between occurrences (copy_shared, 0.32 of a warp's lanes active): 751 warp
/// instructions per 32 rows against 1 053, and 1.95 ms against 2.46 at 60 M rows on
/// the H200 (PERFORMANCE v0.42). ORing the bytes of four with an occurrence one at a
/// time (two atomics each) measured 2.8 ms there.
template <int W, typename I>
__device__ __forceinline__ void or_replaced_rows(const StringInput& col, const TileRows<I>& staged, uint64_t first,
                                                 int n, uint32_t rep, int rep_size, const uint32_t* selectors,
                                                 const uint32_t (&found)[TILE_ITEMS], const uint32_t* at,
                                                 uint32_t* out) {
    const unsigned tid = threadIdx.x;
    const uint32_t* const words = reinterpret_cast<const uint32_t*>(staged.tile.bytes);
    const uint32_t* const match = staged.match;
#pragma unroll 1
    for (int i = 0; i < TILE_ITEMS; ++i) {
        const int r = i * TILE_THREADS + tid;
        if (r >= n || !col.valid(first + r)) continue;
        const int b = staged.tile.starts[r], size = staged.tile.starts[r + 1] - b;
        const uint32_t shift = 8u * static_cast<uint32_t>(b & 3);
        uint32_t p = at[r], left = found[i];
        uint32_t lo = words[b >> 2];
        for (int q = 0; q < size; q += 4) {
            const int t = b + q;
            const uint32_t hi = words[(t >> 2) + 1];
            // The row's next v bytes (the bytes after them zero) and their matches.
            const int v = size - q < 4 ? size - q : 4;
            const uint32_t x = __funnelshift_r(lo, hi, shift) & low_bits(8 * v);
            lo = hi;
            uint32_t k = __funnelshift_r(match[t >> 5], match[(t >> 5) + 1], static_cast<uint32_t>(t & 31)) &
                         ((1u << v) - 1u);
            if (static_cast<uint32_t>(__popc(k)) > left) k &= (1u << __fns(k, 0, static_cast<int>(left) + 1)) - 1u;
            left -= __popc(k);
            const int length = v + (rep_size - 1) * __popc(k);
            uint32_t made[W + 1];
#pragma unroll
            for (int w = 0; w < W; ++w) {
                made[w] = __byte_perm(x, rep, selectors[4 * k + w]);
                // Four replacement bytes leave no zero byte to select after the output.
                if (W == 4) made[w] &= low_bits(8 * length - 32 * w);
            }
            made[W] = 0;
            // Bytes the row does not have (after its v) are zero here and ORed into the
            // stage all the same: the next row's places, unchanged.
            const uint32_t s = 8u * (p & 3u);
            uint32_t* const dst = out + (p >> 2);
            atomicOr(dst, made[0] << s);
#pragma unroll
            for (int w = 1; w <= W; ++w) atomicOr(dst + w, __funnelshift_l(made[w - 1], made[w], s));
            p += static_cast<uint32_t>(length);
        }
    }
}

// replace_tiles_<I>_<O>: replace by tiles of rows (common/tiles.cuh) in one kernel, for
// an output the host bounds within `capacity` bytes: each row's occurrences (non-
// overlapping from the left, at most max_count) found from the pattern's match bits,
// the rows' sizes scanned and the tile's total published (TileScan), the rows written
// into the shared stage (from a staged tile: ORed by byte permutes for a one-byte
// pattern and a replacement of up to four bytes, or_replaced_rows; else by words
// between the occurrences, copy_shared), then the earlier tiles' total taken by
// look-back and the stage stored 16 bytes at a time, realigned (flush_stage_shifted).
// Input offsets I. The output's validity is the input's (the host keeps it).
// counts[0]: the output's bytes (the last tile); a tile ending past `capacity` writes
// no chars (the host then runs the functor).
template <typename I, typename O>
__device__ void replace_tiles(StringInput col, uint64_t rows, uint32_t tile_rows, string_view p, string_view rep,
                              unsigned long long max_count, O* offsets, uint8_t* chars, unsigned long long capacity,
                              unsigned long long* counts, void* state_mem, uint64_t state_bytes) {
    typedef unsigned long long Acc;
    __shared__ TileShared shared;
    // `at`: the tile's rows' output sizes, then their positions in the tile's output.
    uint32_t* const at = shared.at;
    uint8_t* const stage = shared.stage;
    const TileSpan span(rows, tile_rows, blockIdx.x);
    const int tiles = span.tiles, t = span.t, n = span.n;
    const uint64_t first = span.first;
    const unsigned tid = threadIdx.x;
    const long long m = p.size;
    // A one-byte pattern and a replacement of up to REPLACE_OR_MAX bytes: a staged
    // tile's rows are ORed into the stage (or_replaced_rows) through these selectors,
    // which each block fills before the staging's barriers.
    __shared__ uint32_t selectors[64];
    if (m == 1 && rep.size <= REPLACE_OR_MAX) fill_replace_selectors(selectors, static_cast<uint32_t>(rep.size));
    const TileRows<I> staged(col, shared.tile, shared.match, first, n, p);

    // Each row's occurrences.
    uint32_t found[TILE_ITEMS];
#pragma unroll 1
    for (int i = 0; i < TILE_ITEMS; ++i) {
        const int r = i * TILE_THREADS + tid;
        unsigned long long c = 0;
        long long size = 0;
        if (r < n && col.valid(first + r)) {
            const string_view s = staged.get(r);
            if (m == 1 && staged.match != nullptr) {
                c = count_bits(staged.match, staged.begin(r), staged.begin(r) + static_cast<int>(s.size));
                c = c < max_count ? c : max_count;
            } else {
                for (long long q = find_in_row(s, staged.match, staged.begin(r), p, 0); q >= 0 && c < max_count;
                     q = find_in_row(s, staged.match, staged.begin(r), p, q + m))
                    ++c;
            }
            size = s.size + static_cast<long long>(c) * (rep.size - m);
        }
        found[i] = static_cast<uint32_t>(c);
        at[r] = static_cast<uint32_t>(size);
    }
    // or_replaced_rows' stage, zeroed here: the scan's barrier orders this before the
    // rows are ORed into it. Uniform.
    const bool or_rows = staged.match != nullptr && m == 1 && rep.size <= REPLACE_OR_MAX;
    if (or_rows) zero_stage(stage, TWO_PASS_STAGE, TILE_THREADS);
    __syncthreads();

    __shared__ TileScan<uint32_t>::Storage scan_temp;
    TileScan<uint32_t> scan{scan_temp, state_mem, state_bytes, tiles};
    uint32_t aggregate;
    publish_tile_sizes(scan, at, aggregate);

    // The rows into the stage at their places in the tile's output, before the look-back
    // (whatever the output's alignment: flush_stage_shifted realigns them).
    const bool to_stage = static_cast<long long>(aggregate) <= TWO_PASS_STAGE;  // uniform
    if (to_stage && or_rows) {
        const uint32_t word = pattern_word(rep.data, static_cast<int>(rep.size));
        const int size = static_cast<int>(rep.size);
        uint32_t* const words = reinterpret_cast<uint32_t*>(stage);
        switch (size) {  // uniform
            case 0:
            case 1: or_replaced_rows<1>(col, staged, first, n, word, size, selectors, found, at, words); break;
            case 2: or_replaced_rows<2>(col, staged, first, n, word, size, selectors, found, at, words); break;
            case 3: or_replaced_rows<3>(col, staged, first, n, word, size, selectors, found, at, words); break;
            default: or_replaced_rows<4>(col, staged, first, n, word, size, selectors, found, at, words); break;
        }
    } else if (to_stage)
        write_replaced(col, staged, first, n, p, rep, found, at, stage, true);
    const Acc base = scan.look_back(aggregate);
    const Acc end = base + aggregate;
#pragma unroll
    for (int i = 0; i < TILE_ITEMS; ++i) {
        const int r = i * TILE_THREADS + tid;
        if (r < n) offsets[first + r] = static_cast<O>(base + at[r]);
    }
    if (t == tiles - 1 && tid == 0) {
        offsets[rows] = static_cast<O>(end);
        counts[0] = end;
    }
    if (end > capacity) return;  // uniform: the host runs the functor instead
    if (to_stage) flush_stage_shifted(stage, chars + base, static_cast<long long>(aggregate));
    else write_replaced(col, staged, first, n, p, rep, found, at, chars + base, false);
}

#define RAGGED_REPLACE_TILES(I, INAME, O, ONAME)                                            \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS) replace_tiles_##INAME##_##ONAME( \
        StringInput col, uint64_t rows, uint32_t tile_rows, const uint8_t* p, long long m,  \
        const uint8_t* rep, long long rep_size, unsigned long long max_count, O* offsets, uint8_t* chars, \
        unsigned long long capacity, unsigned long long* counts, void* state, uint64_t state_bytes) { \
        replace_tiles<I, O>(col, rows, tile_rows, string_view{p, m}, string_view{rep, rep_size}, max_count, \
                            offsets, chars, capacity, counts, state, state_bytes);          \
    }
RAGGED_REPLACE_TILES(int32_t, i32, int32_t, i32)
RAGGED_REPLACE_TILES(int32_t, i32, long long, i64)
RAGGED_REPLACE_TILES(int64_t, i64, int32_t, i32)
RAGGED_REPLACE_TILES(int64_t, i64, long long, i64)

// ---- rows of several rows: join's pieces, append ----------------------------------

// join_pieces: the separator then the row, for each valid row (null rows write
// nothing); the host keeps the bytes after the first separator as the one joined row.
struct JoinPieces {
    StringInput col;
    StringInput separator;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        if (!col.valid(row)) return false;
        w.str(separator.get(0));
        w.str(col.get(row));
        return true;
    }
};
RAGGED_TWO_PASS(JoinPieces, join_pieces)
RAGGED_ONE_PASS(JoinPieces, join_pieces)

// append: row `row` of the output is row row - starts[k] of input k, where
// starts[k] <= row < starts[k + 1] (count + 1 starts).
struct Append {
    const StringInput* inputs;
    const unsigned long long* starts;
    uint32_t count;
    uint32_t unused;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        uint32_t lo = 0, hi = count;  // the last k with starts[k] <= row
        while (hi - lo > 1) {
            const uint32_t mid = (lo + hi) / 2;
            if (starts[mid] <= row) lo = mid; else hi = mid;
        }
        const uint64_t local = row - starts[lo];
        if (!inputs[lo].valid(local)) return false;
        w.str(inputs[lo].get(local));
        return true;
    }
};
RAGGED_TWO_PASS(Append, append)
RAGGED_ONE_PASS(Append, append)
