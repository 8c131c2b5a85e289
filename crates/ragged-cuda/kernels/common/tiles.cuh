// tiles.cuh: one block per tile of rows of a strings column, for the kernels that
// build a variable-length output in one pass from a staged tile (split's columns,
// split_record's parts, replace):
// - TileRows: the tile's rows staged in shared memory (stage_row_tile) with a literal
//   pattern's matches as bits (tile_match_word), or read from global memory when they
//   do not fit;
// - find_in_row / rfind_in_row: a pattern's matches in a row, from the bits when the
//   tile is staged;
// - TileScan: the tile's output sizes scanned into positions and its total published
//   at once; the earlier tiles' total taken later by decoupled look-back
//   (cub::TilePrefixCallbackOp, or look_back_wide, over the tile state the host
//   initializes as acc_u64), after the block has written its rows into the stage (as
//   one_pass does);
// - scan_tile_pairs: the same scan with the look-back at once, for a kernel that needs
//   its base to write its rows (split_record).
// A kernel launches TILE_THREADS threads per block, one block per tile (tile =
// blockIdx.x, tiles in order for the look-back), tiles of tile_rows <= TILE_ROWS rows
// (src/strings/mod.rs, tile_rows), each thread taking rows tid, tid + TILE_THREADS, ...
#pragma once
#include "common/scan.cuh"
#include "common/two_pass.cuh"

namespace ragged {

/// Threads per block of the tile kernels.
constexpr int TILE_THREADS = 256;
/// Rows each thread takes (rows tid, tid + TILE_THREADS, ... of its tile).
constexpr int TILE_ITEMS = TILE_ROWS / TILE_THREADS;

/// The first match of d (m > 0) at or after byte `from` of `row`, or -1: from the
/// tile's match bits (row at tile position `begin`) when `match` is not null, else
/// by searching the row's bytes.
__device__ __forceinline__ long long find_in_row(string_view row, const uint32_t* match, int begin, string_view d,
                                                 long long from) {
    if (match == nullptr) return row.find(d, from);
    const int p = first_bit(match, begin + static_cast<int>(from), begin + static_cast<int>(row.size - d.size) + 1);
    return p < 0 ? -1 : p - begin;
}

/// The last match of d (m > 0) ending at or before byte `before` of `row`, or -1 (as
/// find_in_row).
__device__ __forceinline__ long long rfind_in_row(string_view row, const uint32_t* match, int begin, string_view d,
                                                  long long before) {
    if (match == nullptr) return row.rfind(d, before);
    const int p = last_bit(match, begin, begin + static_cast<int>(before - d.size) + 1);
    return p < 0 ? -1 : p - begin;
}

/// Copy n bytes from a staged tile's bytes (src) to the output stage (dst), both in
/// shared memory, at any alignment: the bytes before dst's first 4-byte boundary one
/// by one, then whole 32-bit words (each assembled from the two aligned source words
/// it straddles by a funnel shift), then the last bytes one by one. Reads the aligned
/// words that hold src[0, n) and at most one more, which stays within RowTile::bytes
/// (its 48 bytes of padding). A thread copying a row this way issues about a quarter of
/// the byte loop's shared-memory instructions.
__device__ __forceinline__ void copy_shared(uint8_t* dst, const uint8_t* src, uint32_t n) {
    uint32_t i = 0;
    const uint32_t head = (4u - static_cast<uint32_t>(reinterpret_cast<uintptr_t>(dst) & 3u)) & 3u;
    for (; i < head && i < n; ++i) dst[i] = src[i];
    if (i + 4 <= n) {
        const uint32_t misalign = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(src + i) & 3u);
        const uint32_t* from = reinterpret_cast<const uint32_t*>(src + i - misalign);
        uint32_t* to = reinterpret_cast<uint32_t*>(dst + i);
        const uint32_t r = 8u * misalign;
        uint32_t lo = from[0];
        for (; i + 4 <= n; i += 4) {
            const uint32_t hi = *++from;
            *to++ = __funnelshift_r(lo, hi, r);
            lo = hi;
        }
    }
    for (; i < n; ++i) dst[i] = src[i];
}

/// Tile t of the tiles of tile_rows rows over `rows` rows: rows [first, first + n).
struct TileSpan {
    int tiles;
    int t;
    uint64_t first;
    int n;

    __device__ __forceinline__ TileSpan(uint64_t rows, uint32_t tile_rows, uint64_t t_)
        : tiles(static_cast<int>((rows + tile_rows - 1) / tile_rows)), t(static_cast<int>(t_)),
          first(t_ * tile_rows), n(static_cast<int>(rows - first < tile_rows ? rows - first : tile_rows)) {}
};

/// The shared memory of a one-block-per-tile kernel that writes strings: the staged
/// rows, the pattern's match bits, the rows' output sizes (then their positions in the
/// tile's output) and the stage the output is written through.
struct TileShared {
    RowTile tile;
    uint32_t match[TILE_BYTES / 32 + 1];
    uint32_t at[TILE_ROWS];
    /// 16 bytes more than staged, which flush_stage_shifted may read past the end.
    __align__(16) uint8_t stage[TWO_PASS_STAGE + 16];
};

/// Rows [first, first + n) of a column, staged in shared memory (stage_row_tile) with
/// the matches of a literal delimiter as bits when their bytes fit, else read from
/// global memory.
template <typename O> struct TileRows {
    const StringInput& col;
    const RowTile& tile;
    /// The delimiter's matches (nullptr when not staged or splitting at whitespace).
    const uint32_t* match;
    uint64_t first;
    bool staged;

    /// Stage the tile and find the delimiter d's matches in it (block-wide; ends with a
    /// __syncthreads).
    __device__ __forceinline__ TileRows(const StringInput& col_, RowTile& tile_, uint32_t* match_bits, uint64_t first_,
                                        int n, string_view d)
        : col(col_), tile(tile_), match(nullptr), first(first_), staged(false) {
        const int span = stage_row_tile(static_cast<const O*>(col_.offsets), col_.chars, first_, n, tile_);
        staged = span >= 0;
        if (!staged || d.size == 0) return;
        const PatternWords pw = pattern_words(d.data, static_cast<int>(d.size));
        for (int c = threadIdx.x; 32 * c < span; c += blockDim.x) {
            uint32_t w[8];
            tile_words(tile_.bytes, c, w);
            match_bits[c] = tile_match_word(tile_.bytes, c, w, span, d.data, pw);
        }
        __syncthreads();
        match = match_bits;
    }

    /// Row first + r's bytes (r < n).
    __device__ __forceinline__ string_view get(int r) const {
        if (!staged) return col.get(first + r);
        return string_view{staged_bytes(r), tile.starts[r + 1] - tile.starts[r]};
    }

    /// Row first + r's first byte in the staged tile (only when staged): a pointer the
    /// compiler knows to be shared memory, so that copies from it load by LDS rather
    /// than by generic loads (get's pointer may also be global).
    __device__ __forceinline__ const uint8_t* staged_bytes(int r) const { return tile.bytes + tile.starts[r]; }

    /// Row first + r's first byte's tile position (when staged).
    __device__ __forceinline__ int begin(int r) const { return staged ? tile.starts[r] : 0; }
};

/// Tile states each lane of look_back_wide reads per round trip: two (64 a round trip)
/// keep redact_staged at 40 registers; four spilled there and measured no faster than
/// cub's 32 (PERFORMANCE v0.41).
constexpr int LOOK_BACK_LANE_TILES = 2;

/// The exclusive prefix of tile t (> 0) of a decoupled look-back over `state`: the sum
/// of the earlier tiles' totals. The calling warp (the first) reads the states of the
/// 32 LOOK_BACK_LANE_TILES tiles before the ones it has summed, all at once, waits
/// (polling every POLL_NS) until those nearer than the nearest published inclusive
/// prefix are valid, and adds that prefix and the partial totals after it; with no
/// inclusive prefix among them it adds all of their totals and goes further back.
/// cub's TilePrefixCallbackOp reads 32 states per round trip: with hundreds of tiles
/// in flight the nearest inclusive prefix tends to lie further back than that, and
/// each round trip of the walk kept the block waiting at the barrier behind it.
template <int POLL_NS>
__device__ __forceinline__ unsigned long long look_back_wide(cub::ScanTileState<unsigned long long>& state, int t) {
    typedef cub::ScanTileState<unsigned long long> State;
    constexpr unsigned FULL = 0xffffffffu;
    constexpr int K = LOOK_BACK_LANE_TILES;
    const int lane = static_cast<int>(threadIdx.x & 31u);
    unsigned long long prefix = 0;
    for (int end = t;; end -= 32 * K) {
        // Tile end - 1 - k for k = 32 j + lane (the padding's out-of-bounds states
        // before tile 0, for tiles below it), and the nearest boundary — a published
        // inclusive prefix or the padding — at distance `nearest` (32 K: none).
        unsigned long long status[K], value[K];
        int nearest;
        for (;;) {
#pragma unroll
            for (int j = 0; j < K; ++j) {
                const int tile = end - 1 - (32 * j + lane);
                const ulonglong2 word =
                    cub::detail::load_relaxed(state.d_tile_descriptors + State::TILE_STATUS_PADDING + (tile < -1 ? -1 : tile));
                status[j] = word.x;
                value[j] = word.y;
            }
            nearest = 32 * K;
#pragma unroll
            for (int j = K - 1; j >= 0; --j) {
                const unsigned boundary =
                    __ballot_sync(FULL, status[j] == cub::SCAN_TILE_INCLUSIVE || status[j] == cub::SCAN_TILE_OOB);
                if (boundary != 0) nearest = 32 * j + __ffs(static_cast<int>(boundary)) - 1;
            }
            bool waiting = false;
#pragma unroll
            for (int j = 0; j < K; ++j) waiting |= status[j] == cub::SCAN_TILE_INVALID && 32 * j + lane < nearest;
            if (!__any_sync(FULL, waiting)) break;
            __nanosleep(POLL_NS);
        }
        unsigned long long sum = 0;
#pragma unroll
        for (int j = 0; j < K; ++j)
            if (32 * j + lane <= nearest && status[j] != cub::SCAN_TILE_OOB) sum += value[j];
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(FULL, sum, d);
        prefix += sum;
        if (nearest < 32 * K) return prefix;
    }
}

/// A tile's exclusive scan in two steps, so that the block writes its rows into the
/// stage between them (one_pass's order, ARCHITECTURE "one pass"): `publish` scans the
/// tile's items (sizes, or two counts packed in one word as in scan_tile_pairs; the
/// tile kernels' TILE_ROWS, redact_staged's ONE_PASS_ROWS) in place into positions relative to the tile's first and publishes
/// the tile's total at once; `look_back` then takes the earlier tiles' total (first
/// warp, decoupled look-back over the tile state at state_mem, tile = blockIdx.x). By
/// then the earlier tiles have long published theirs, so by default (`Tuning`) the
/// look-back polls every 100 ns with no sleep before the first poll: with cub's 1245 ns
/// first sleep every block waited at the barrier behind it (scan_tile_items keeps
/// those delays). WIDE: look back by look_back_wide (64 tile states per round trip)
/// rather than cub's TilePrefixCallbackOp (32) — redact_staged's choice; the split and
/// replace tile kernels measured no faster with it.
template <typename T, typename Tuning = ScanTuning<TILE_THREADS, TILE_ITEMS, 100, 0>, bool WIDE = false>
struct TileScan {
    typedef unsigned long long Acc;
    typedef cub::ScanTileState<Acc> TileState;
    typedef cub::TilePrefixCallbackOp<Acc, SumOp, TileState, typename Tuning::Delay> Prefix;
    // The block: Tuning::THREADS threads (TILE_THREADS for the tile kernels).
    typedef cub::BlockScan<T, Tuning::THREADS, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    /// The shared memory of both steps (the kernel declares it __shared__).
    struct Storage {
        typename Scanner::TempStorage scan;
        typename Prefix::TempStorage prefix;
        Acc base;
    };

    Storage& temp;
    void* state_mem;
    uint64_t state_bytes;
    int tiles;

    /// Scan `items` (ITEMS consecutive items per thread — TILE_ITEMS for the tile
    /// kernels, ONE_PASS_ITEMS for redact_staged —, 0 past the tile's rows) in place
    /// and publish the tile's total, which `total` receives. Block-wide; no barrier at
    /// the end.
    template <int ITEMS> __device__ __forceinline__ void publish(T (&items)[ITEMS], T& total) {
        Scanner(temp.scan).ExclusiveSum(items, items, total);
        if (threadIdx.x == 0 && tiles > 1) {
            TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
            if (blockIdx.x == 0) state.SetInclusive(0, static_cast<Acc>(total));
            else state.SetPartial(static_cast<int>(blockIdx.x), static_cast<Acc>(total));
        }
    }

    /// The tile's first output position: the earlier tiles' total (`total` as
    /// `publish` returned it). Block-wide; ends with a __syncthreads.
    __device__ __forceinline__ Acc look_back(T total) {
        const int t = static_cast<int>(blockIdx.x);
        if (t == 0) {
            if (threadIdx.x == 0) temp.base = 0;
        } else if (threadIdx.x < 32) {
            TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
            if constexpr (WIDE) {
                const Acc before = look_back_wide<Tuning::SPIN>(state, t);
                if (threadIdx.x == 0) {
                    state.SetInclusive(t, before + static_cast<Acc>(total));
                    temp.base = before;
                }
            } else {
                // TilePrefixCallbackOp's contract: the first warp.
                Prefix prefix(state, temp.prefix, SumOp{}, t);
                const Acc before = prefix(static_cast<Acc>(total));
                if (threadIdx.x == 0) temp.base = before;
            }
        }
        __syncthreads();
        return temp.base;
    }
};

/// TileScan::publish of the tile's sizes in `at`, in place. Block-wide; ends with a
/// __syncthreads, after which `at` holds the positions relative to the tile's first.
__device__ __forceinline__ void publish_tile_sizes(TileScan<uint32_t>& scan, uint32_t* at, uint32_t& total) {
    const unsigned tid = threadIdx.x;
    uint32_t items[TILE_ITEMS];
#pragma unroll
    for (int q = 0; q < TILE_ITEMS; ++q) items[q] = at[tid * TILE_ITEMS + q];
    scan.publish(items, total);
#pragma unroll
    for (int q = 0; q < TILE_ITEMS; ++q) at[tid * TILE_ITEMS + q] = items[q];
    __syncthreads();
}

/// The thread's TILE_ITEMS consecutive pairs of `low` and `high`, packed high << 32 |
/// low (what the pair scans take).
__device__ __forceinline__ void load_pairs(const uint32_t* low, const uint32_t* high,
                                           unsigned long long (&items)[TILE_ITEMS]) {
    const unsigned tid = threadIdx.x;
#pragma unroll
    for (int q = 0; q < TILE_ITEMS; ++q) {
        const int r = tid * TILE_ITEMS + q;
        items[q] = static_cast<unsigned long long>(high[r]) << 32 | low[r];
    }
}

/// The inverse of load_pairs: `items` back into `low` and `high`.
__device__ __forceinline__ void store_pairs(const unsigned long long (&items)[TILE_ITEMS], uint32_t* low,
                                            uint32_t* high) {
    const unsigned tid = threadIdx.x;
#pragma unroll
    for (int q = 0; q < TILE_ITEMS; ++q) {
        const int r = tid * TILE_ITEMS + q;
        low[r] = static_cast<uint32_t>(items[q]);
        high[r] = static_cast<uint32_t>(items[q] >> 32);
    }
}

/// TileScan::publish of pairs of counts (`low`, `high`) packed as in scan_tile_pairs,
/// in place. Block-wide; ends with a __syncthreads.
__device__ __forceinline__ void publish_tile_pairs(TileScan<unsigned long long>& scan, uint32_t* low, uint32_t* high,
                                                   unsigned long long& total) {
    unsigned long long items[TILE_ITEMS];
    load_pairs(low, high, items);
    scan.publish(items, total);
    store_pairs(items, low, high);
    __syncthreads();
}

/// The exclusive scan of a tile's TILE_ROWS items, TILE_ITEMS consecutive ones per
/// thread in `items` (0 past the tile's rows), in place: returns where the tile's
/// first output position will be, the earlier tiles' total by decoupled look-back over
/// the tile state at state_mem (TILE_THREADS threads, tile = blockIdx.x), and sets `total` to
/// the tile's own. T is uint32_t for sizes, or unsigned long long for two counts
/// packed in one word (each half's totals must stay below 2^32). Block-wide; the
/// base lives in shared memory, which the caller reads after a __syncthreads.
template <typename T>
__device__ __forceinline__ const unsigned long long* scan_tile_items(T (&items)[TILE_ITEMS], void* state_mem,
                                                                     uint64_t state_bytes, int tiles, T& total) {
    // TileScan's types with the library scans' look-back delays.
    typedef TileScan<T, ScanTuning<TILE_THREADS, TILE_ITEMS, 648, 1245>> Shape;
    typedef typename Shape::Acc Acc;
    typedef typename Shape::TileState TileState;
    typedef typename Shape::Prefix Prefix;
    typedef typename Shape::Scanner Scanner;
    __shared__ struct {
        typename Scanner::TempStorage scan;
        typename Prefix::TempStorage prefix;
    } temp;
    __shared__ Acc tile_base;
    const int t = blockIdx.x;
    const unsigned tid = threadIdx.x;
    Scanner(temp.scan).ExclusiveSum(items, items, total);
    if (t == 0) {
        if (tid == 0) {
            if (tiles > 1) {
                TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
                state.SetInclusive(0, total);
            }
            tile_base = 0;
        }
    } else if (tid < 32) {
        // The first warp looks back (TilePrefixCallbackOp's contract).
        TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
        Prefix prefix(state, temp.prefix, SumOp{}, t);
        const Acc before = prefix(static_cast<Acc>(total));
        if (tid == 0) tile_base = before;
    }
    return &tile_base;
}

/// The exclusive scan, in place, of pairs of TILE_ROWS counts (`low`, `high`; 0 past
/// the tile's rows) scanned together as one packed word (high << 32 | low, each half's
/// totals below 2^32): returns the tile's first pair packed the same way and sets
/// `total` to the tile's own. Block-wide; ends with a __syncthreads, after which `low`
/// and `high` hold the positions relative to the tile's first.
__device__ __forceinline__ unsigned long long scan_tile_pairs(uint32_t* low, uint32_t* high, void* state_mem,
                                                              uint64_t state_bytes, int tiles,
                                                              unsigned long long& total) {
    unsigned long long items[TILE_ITEMS];
    load_pairs(low, high, items);
    const unsigned long long* base = scan_tile_items(items, state_mem, state_bytes, tiles, total);
    store_pairs(items, low, high);
    __syncthreads();
    return *base;
}

}  // namespace ragged
