// line_ends: the record boundaries of a byte buffer (delimiter matches, written as the
// positions right after them), their number (count_lines), the first match after a
// position (the delimiter ending a range's last record), and the left-to-right
// resolution of candidates for self-overlapping delimiters.
//
// Mapping: single pass over tiles, one block per tile of RUNS sub-tiles of THREADS *
// ITEMS bytes, tile index = block index, like select.cu; a thread takes one run of
// each sub-tile, in turn. The tiles are aligned to 16 bytes of the
// address space (`origin` is the first candidate position rounded down), so each thread
// loads its run of ITEMS consecutive bytes with 16-byte vector loads (byte loads only
// for the chunks that straddle the buffer's ends, so nothing outside the buffer is
// read). A thread examines every position of its run: a candidate position q in
// [lo, hi) is a match when the delimiter's m bytes start there. Delimiters of up to 4
// bytes (`\n`, `\r\n`) are matched in registers in the wide shape: every delimiter
// byte is compared four bytes at a time (a zero-byte test), the flags moved into place
// by funnel shifts and ANDed, with the 4 bytes after the run taken from the next
// lane (short_matches). Otherwise the first byte is compared four bytes at a time
// (equal_bytes); only on a hit are the other m - 1 bytes compared, from the
// tile staged in shared memory with a halo of 64 bytes past the tile (the bytes a
// delimiter starting in the tile can reach). Either way a delimiter crossing a run or
// tile boundary is found exactly once, by the run it starts in. Per-thread matches are a
// bit mask; an exclusive cub::BlockScan of their counts (a thread's RUNS counts packed
// as 16-bit fields of one int, so one scan serves every sub-tile) gives positions
// inside the tile, decoupled look-back (cub::TilePrefixCallbackOp over
// cub::ScanTileState<long long>) the tile's first output slot; each thread writes its
// own matches to its slots (a warp's slots are consecutive, so its stores land in a
// few neighbouring sectors; with 32 bytes per thread and the matches staged in shared
// memory first, line_ends measured 0.60-0.62 x copy on an H100, 0.66-0.70 now).
// The host allocates `capacity` slots from an estimate; matches past it are counted but
// not written, and the host reruns with the exact count (rare).
//
// Pseudo-code (write pass):
//   flag[q] = lo <= q < hi && hay[q .. q + m] == delimiter      (q + m <= len, as hi <= len - m)
//   slot = exclusive_scan(flag);  if flag[q] && slot[q] < capacity: out[slot[q]] = q + add
//   total = sum(flag)                                           (written by the last tile)
// count pass: the same flags, a cub::BlockReduce per tile and one atomicAdd.
// Complexity: O(n) work, the input read once, 8 bytes written per match; O(tiles)
// look-back state. The resolution of self-overlapping candidates is sequential (one
// thread, O(candidates)): correct for the rare `aa`/`abab` delimiters, not fast.
#include "common/ragged.cuh"
#include "common/scan.cuh"
#include <cub/block/block_reduce.cuh>

using namespace ragged;

/// The delimiter, by value (the host passes LinePlan's fixed 64-byte array).
struct Delimiter {
    uint8_t bytes[64];
};

/// The most bytes a delimiter reaches past the position it starts at (MAX_DELIMITER_BYTES).
constexpr int HALO = 64;

/// The bytes of a tile and its halo in shared memory, with the delimiter.
template <int TILE> struct TileBytes {
    uint4 words[(TILE + HALO) / 16];
    uint8_t delimiter[64];
    __device__ __forceinline__ const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(words); }
};

/// The byte at buffer position `at`, 0 outside the buffer.
__device__ __forceinline__ uint8_t load1(const uint8_t* hay, uint64_t len, long long at) {
    return at >= 0 && at < static_cast<long long>(len) ? hay[at] : 0;
}

/// 16 bytes at buffer position `at` (a multiple of 16 of the address space), the bytes
/// outside [0, len) read as 0 and never touched.
__device__ __forceinline__ uint4 load16(const uint8_t* hay, uint64_t len, long long at) {
    if (at >= 0 && at + 16 <= static_cast<long long>(len)) return *reinterpret_cast<const uint4*>(hay + at);
    uint4 v = make_uint4(0, 0, 0, 0);
    uint8_t* b = reinterpret_cast<uint8_t*>(&v);
#pragma unroll
    for (int k = 0; k < 16; ++k) b[k] = load1(hay, len, at + k);
    return v;
}

/// A run's matches, bit k for position run + k (ITEMS <= 64).
typedef unsigned long long RunMask;

/// The bits below `k` (k <= 64).
__device__ __forceinline__ RunMask below(long long k) { return k >= 64 ? ~0ull : (1ull << k) - 1; }

/// Bits k of a run of ITEMS positions starting at `run` with lo <= run + k < hi.
template <int ITEMS> __device__ __forceinline__ RunMask range_bits(long long run, long long lo, long long hi) {
    const long long from = min(max(lo - run, 0ll), static_cast<long long>(ITEMS));
    const long long to = min(max(hi - run, 0ll), static_cast<long long>(ITEMS));
    return below(to) & ~below(from);
}

/// 4 bytes at buffer position `at` (a multiple of 4 of the address space), the bytes
/// outside [0, len) read as 0 and never touched.
__device__ __forceinline__ uint32_t load4(const uint8_t* hay, uint64_t len, long long at) {
    if (at >= 0 && at + 4 <= static_cast<long long>(len)) return *reinterpret_cast<const uint32_t*>(hay + at);
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(load1(hay, len, at + k)) << (8 * k);
    return v;
}

/// The longest delimiter matched in registers (SHORT_MATCH; longer ones are checked
/// against the tile staged in shared memory).
constexpr uint32_t SHORT_DELIMITER = SHORT_MATCH;

/// The delimiter's first 4 bytes as a little-endian word (constant indices into the
/// parameter only, so it stays in parameter memory).
__device__ __forceinline__ uint32_t first_word(const Delimiter& d) {
    return d.bytes[0] | static_cast<uint32_t>(d.bytes[1]) << 8 | static_cast<uint32_t>(d.bytes[2]) << 16 |
           static_cast<uint32_t>(d.bytes[3]) << 24;
}

/// The matches of this thread's run as a bit mask (bit k: position run + k), for a
/// tile of THREADS * ITEMS bytes starting at `tile_base` (ITEMS is 1 or a multiple of
/// 16 up to 64). Runs of 16-byte words match delimiters of up to SHORT_DELIMITER bytes
/// in registers (short_matches; `smem` untouched, no barrier). Otherwise candidates
/// (the delimiter's first byte) are found four bytes at a time in registers
/// (equal_bytes); only candidates are checked further, against the tile staged in
/// `smem` with its halo when the delimiter is longer than one byte, and the function
/// ends with a __syncthreads (the shared bytes may be reused). Called by every thread
/// of the block.
template <int THREADS, int ITEMS>
__device__ __forceinline__ RunMask run_matches(const uint8_t* hay, uint64_t len, long long lo, long long hi,
                                               long long tile_base, const Delimiter& d, uint32_t m,
                                               TileBytes<THREADS * ITEMS>& smem) {
    constexpr int TILE = THREADS * ITEMS;
    constexpr int VECTORS = ITEMS / 16;
    static_assert(ITEMS == 1 || (ITEMS % 16 == 0 && ITEMS <= 64), "runs of 1 byte or 16-byte words");
    const long long run = tile_base + static_cast<long long>(threadIdx.x) * ITEMS;
    const bool inside = run >= lo && run + ITEMS <= hi;
    RunMask candidates = 0;
    if constexpr (ITEMS > 1) {
        if (m <= SHORT_DELIMITER) {
            // Short delimiters in registers: the 4 bytes after the run are the next
            // lane's first word (a shuffle; the warp's last lane reads them).
            uint32_t w[4 * VECTORS];
#pragma unroll
            for (int v = 0; v < VECTORS; ++v) {
                const uint4 x = load16(hay, len, run + 16 * v);
                w[4 * v] = x.x;
                w[4 * v + 1] = x.y;
                w[4 * v + 2] = x.z;
                w[4 * v + 3] = x.w;
            }
            uint32_t next = __shfl_down_sync(0xffffffffu, w[0], 1);
            if ((threadIdx.x & 31u) == 31u) next = m > 1 ? load4(hay, len, run + ITEMS) : 0u;
            candidates = short_matches<4 * VECTORS>(w, next, first_word(d), m);
            return inside ? candidates : candidates & range_bits<ITEMS>(run, lo, hi);
        }
    }
    const bool multi = m > 1;
    uint8_t* shared = reinterpret_cast<uint8_t*>(smem.words);
    const uint8_t first = d.bytes[0];
    if constexpr (ITEMS == 1) {
        const uint8_t byte = load1(hay, len, run);
        if (multi) shared[threadIdx.x] = byte;
        candidates = byte == first ? 1u : 0u;
    } else {
        const uint32_t pattern = 0x01010101u * first;
#pragma unroll
        for (int v = 0; v < VECTORS; ++v) {
            const uint4 x = load16(hay, len, run + 16 * v);
            // Word stores: conflict-free, unlike byte stores at a 32-byte stride.
            if (multi) smem.words[threadIdx.x * VECTORS + v] = x;
            candidates |= static_cast<RunMask>(equal_bytes(x.x, pattern) | equal_bytes(x.y, pattern) << 4 |
                                               equal_bytes(x.z, pattern) << 8 | equal_bytes(x.w, pattern) << 12)
                          << (16 * v);
        }
    }
    // Positions outside [lo, hi) never match (tiles inside the range keep every bit).
    if (!inside) candidates &= range_bits<ITEMS>(run, lo, hi);
    if (multi) {
        for (int k = threadIdx.x; k < HALO; k += THREADS) shared[TILE + k] = load1(hay, len, tile_base + TILE + k);
        // Constant indices only: indexing the by-value parameter with a variable would
        // copy it to local memory in every thread.
#pragma unroll
        for (int k = 0; k < 64; ++k)
            if (threadIdx.x == k % THREADS) smem.delimiter[k] = d.bytes[k];
        __syncthreads();
        RunMask rest = candidates;
        while (rest) {
            const int k = __ffsll(rest) - 1;
            rest &= rest - 1;
            const uint8_t* at = smem.bytes() + threadIdx.x * ITEMS + k;
            for (uint32_t j = 1; j < m; ++j) {
                if (at[j] != smem.delimiter[j]) {
                    candidates &= ~(1ull << k);
                    break;
                }
            }
        }
    }
    __syncthreads();
    return candidates;
}

/// Field r of a packed per-run count (RUNS 16-bit fields; one field when RUNS == 1).
template <int RUNS> __device__ __forceinline__ int run_field(int packed, int r) {
    return RUNS == 1 ? packed : (packed >> (16 * r)) & 0xffff;
}

/// The write pass over one tile of RUNS sub-tiles; see the file comment.
template <int THREADS, int ITEMS, int RUNS>
__device__ __forceinline__ void line_ends_tile(const uint8_t* hay, uint64_t len, long long lo, long long hi,
                                               long long origin, const Delimiter& d, uint32_t m, long long add,
                                               long long* out, unsigned long long capacity, void* state_mem,
                                               uint64_t state_bytes, unsigned long long* total_out) {
    constexpr int SUB = THREADS * ITEMS;
    constexpr int TILE = SUB * RUNS;
    // A sub-tile's count fits 16 bits: the runs' counts are scanned packed in one int.
    static_assert(RUNS == 1 || (RUNS == 2 && SUB < 65536), "one run, or two of under 65536 bytes");
    typedef cub::ScanTileState<long long> TileState;
    typedef cub::TilePrefixCallbackOp<long long, SumOp, TileState> Prefix;
    typedef cub::BlockScan<int, THREADS, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    __shared__ union {
        TileBytes<SUB> bytes;
        struct {
            typename Scanner::TempStorage scan;
            typename Prefix::TempStorage prefix;
        } scan;
    } temp;
    __shared__ long long tile_start;
    __shared__ int tile_count;
    const int tiles = static_cast<int>((hi - origin + TILE - 1) / TILE);
    TileState state = scan_state<long long>(state_mem, state_bytes, tiles);
    const int tile = blockIdx.x;
    const long long tile_base = origin + static_cast<long long>(tile) * TILE;
    RunMask mask[RUNS];
    int packed = 0;
#pragma unroll
    for (int r = 0; r < RUNS; ++r) {
        mask[r] = run_matches<THREADS, ITEMS>(hay, len, lo, hi, tile_base + r * SUB, d, m, temp.bytes);
        packed += static_cast<int>(__popcll(mask[r])) << (16 * r);
    }
    int slots;
    int sums;
    Scanner(temp.scan.scan).ExclusiveSum(packed, slots, sums);
    int aggregate = 0;
#pragma unroll
    for (int r = 0; r < RUNS; ++r) aggregate += run_field<RUNS>(sums, r);
    if (tile == 0) {
        if (threadIdx.x == 0) {
            if (tiles > 1) state.SetInclusive(0, static_cast<long long>(aggregate));
            tile_start = 0;
        }
    } else if (threadIdx.x < 32) {
        // Warp 0 publishes this tile's count and looks back for its first slot.
        Prefix prefix(state, temp.scan.prefix, SumOp(), tile);
        const long long exclusive = prefix(static_cast<long long>(aggregate));
        if (threadIdx.x == 0) tile_start = exclusive;
    }
    if (threadIdx.x == 0) tile_count = aggregate;
    __syncthreads();
    if (tile == tiles - 1 && threadIdx.x == 0) total_out[0] = static_cast<unsigned long long>(tile_start + tile_count);
    // Each thread writes its own matches: the slots of a warp's matches are
    // consecutive, so its stores fall in a few neighbouring sectors. Sub-tile r's
    // slots follow those of the sub-tiles before it.
    long long before = tile_start;
#pragma unroll
    for (int r = 0; r < RUNS; ++r) {
        const long long run = tile_base + r * SUB + static_cast<long long>(threadIdx.x) * ITEMS + add;
        unsigned long long at = static_cast<unsigned long long>(before + run_field<RUNS>(slots, r));
        RunMask rest = mask[r];
        while (rest) {
            const int k = __ffsll(rest) - 1;
            rest &= rest - 1;
            if (at < capacity) out[at] = run + k;
            ++at;
        }
        before += run_field<RUNS>(sums, r);
    }
}

/// The count pass over one tile of RUNS sub-tiles: the matches of the tile added to
/// `total`.
template <int THREADS, int ITEMS, int RUNS>
__device__ __forceinline__ void count_tile(const uint8_t* hay, uint64_t len, long long lo, long long hi,
                                           long long origin, const Delimiter& d, uint32_t m,
                                           unsigned long long* total) {
    constexpr int SUB = THREADS * ITEMS;
    typedef cub::BlockReduce<int, THREADS> Reducer;
    __shared__ union {
        TileBytes<SUB> bytes;
        typename Reducer::TempStorage reduce;
    } temp;
    const long long tile_base = origin + static_cast<long long>(blockIdx.x) * SUB * RUNS;
    int count = 0;
#pragma unroll
    for (int r = 0; r < RUNS; ++r)
        count += static_cast<int>(__popcll(run_matches<THREADS, ITEMS>(hay, len, lo, hi, tile_base + r * SUB, d, m, temp.bytes)));
    const int sum = Reducer(temp.reduce).Sum(count);
    if (threadIdx.x == 0 && sum > 0) atomicAdd(total, static_cast<unsigned long long>(sum));
}

// Two shapes: 256 threads x 64 bytes x 2 runs (32 KiB tiles, the default), and 32
// threads x 1 byte (32-byte tiles) for a small tile hint, so that tests put tile and
// run boundaries at every position of small inputs. src/text/line_ends.rs knows both.
#define RAGGED_LINE_ENDS(THREADS, ITEMS, RUNS, NAME)                                        \
    extern "C" __global__ void __launch_bounds__(THREADS) line_ends_write_##NAME(           \
        const uint8_t* hay, uint64_t len, long long lo, long long hi, long long origin,     \
        Delimiter d, uint32_t m, long long add, long long* out, unsigned long long capacity, \
        void* state, uint64_t state_bytes, unsigned long long* total) {                     \
        line_ends_tile<THREADS, ITEMS, RUNS>(hay, len, lo, hi, origin, d, m, add, out, capacity,  \
                                       state, state_bytes, total);                          \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS) line_ends_count_##NAME(           \
        const uint8_t* hay, uint64_t len, long long lo, long long hi, long long origin,     \
        Delimiter d, uint32_t m, unsigned long long* total) {                               \
        count_tile<THREADS, ITEMS, RUNS>(hay, len, lo, hi, origin, d, m, total);                  \
    }
RAGGED_LINE_ENDS(256, 64, 2, wide)
RAGGED_LINE_ENDS(32, 1, 1, narrow)

/// The first match q in [from, to) (q + m <= len) reported through `word` as index q
/// (atomicMin: the lowest wins). Grid-stride, one position per thread per step; each
/// thread stops at its first match.
extern "C" __global__ void __launch_bounds__(256) line_ends_find_first(const uint8_t* hay, uint64_t len,
                                                                       uint64_t from, uint64_t to,
                                                                       Delimiter d, uint32_t m,
                                                                       uint64_t* word) {
    for (uint64_t q = from + global_thread(); q < to && q + m <= len; q += grid_threads()) {
        bool match = true;
        // Constant indices into the parameter (a variable index would copy it to local
        // memory in every thread).
#pragma unroll
        for (uint32_t j = 0; j < 64; ++j) {
            if (j < m && hay[q + j] != d.bytes[j]) {
                match = false;
                break;
            }
        }
        if (match) {
            report_error(word, q, 1);
            return;
        }
    }
}

/// Left-to-right resolution of the candidates (every occurrence, ascending) of a
/// self-overlapping delimiter, in place, by one thread: a candidate is a match when it
/// starts at or after the end of the previous match; matches at or after
/// `counted_from` are written back as `match + m`. result[0] = matches written,
/// result[1] = the end of the last match (or 0).
extern "C" __global__ void line_ends_resolve(long long* candidates, unsigned long long count,
                                             long long counted_from, uint32_t m,
                                             unsigned long long* result) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    long long last_end = 0;
    unsigned long long written = 0;
    for (unsigned long long i = 0; i < count; ++i) {
        const long long c = candidates[i];
        if (c >= last_end) {
            last_end = c + m;
            // written <= i: the slot was read already.
            if (c >= counted_from) candidates[written++] = c + m;
        }
    }
    result[0] = written;
    result[1] = static_cast<unsigned long long>(last_end);
}

// The tile state of the match scan.
RAGGED_SCAN_STATE(long long, line_ends)
