// select: stream compaction — the valid values whose mask bit is set (select_mask) or
// that satisfy a predicate against a scalar (select_if), in input order, optionally
// with their rows (the `_indices` entry points).
//
// Mapping: single pass, one block of 384 threads per tile of 384 * ITEMS values. The block loads its
// tile (cub::BlockLoad, warp-transposed), computes a 0/1 flag per value (validity and
// mask bits read as one window per thread, common/ragged.cuh valid_bits), and an
// exclusive cub::BlockScan of the flags with decoupled look-back over earlier tiles
// (cub::TilePrefixCallbackOp) gives each selected value its output position; selected
// values (and their rows, when asked) are first compacted in shared memory, then
// written out by the whole block in consecutive (coalesced) stores. The last tile
// publishes the total count.
// The output buffers are allocated for n values by the host (the count is unknown
// until the pass ends) and viewed as `count` values afterwards.
// Pseudo-code: flag[i] = valid(i) && keep(i); pos = exclusive_scan(flag);
//              if flag[i]: out[pos[i]] = x[i], rows[pos[i]] = i
// Complexity: O(n) work, input read once, selected values (and rows) written once.
#include "common/primitives.cuh"
#include "common/scan.cuh"

using namespace ragged;

/// Threads per block (src/primitives/select.rs knows it).
constexpr int SELECT_THREADS = 384;

/// Values per thread: 17, or 8 for 8-byte values (the compaction buffer must fit in
/// 48 KiB of shared memory). With cub's Hopper look-back delays (76/1150 ns), the best
/// shape experiments/scan_tuning.cu found on an H100: 0.79 x copy at 50 % selectivity
/// against 0.70 for 256 x 16 with the default delays and 0.76 for cub::DeviceSelect.
template <typename T> constexpr int select_items() { return sizeof(T) >= 8 ? 8 : 17; }

/// `bits(first) -> uint32_t`: bit k says whether row first + k passes the bitmap tests
/// (validity, mask); `keep(x) -> bool`: the value test. ROWS: also write the rows.
template <typename T, bool ROWS, typename Bits, typename Keep>
__device__ void select_tile(const T* values, uint64_t n, T* out, uint64_t* rows_out, void* state_mem,
                            uint64_t state_bytes, unsigned long long* count_out, Bits bits, Keep keep) {
    constexpr int SELECT_ITEMS = select_items<T>();
    constexpr int SELECT_TILE = SELECT_THREADS * SELECT_ITEMS;
    typedef cub::ScanTileState<long long> TileState;
    typedef cub::TilePrefixCallbackOp<long long, SumOp, TileState, cub::detail::fixed_delay_constructor_t<76, 1150>>
        Prefix;
    typedef cub::BlockLoad<T, SELECT_THREADS, SELECT_ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> Loader;
    // Positions inside a tile fit 32 bits; only the tile's start needs 64 (look-back).
    typedef cub::BlockScan<int, SELECT_THREADS, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    __shared__ union {
        typename Loader::TempStorage load;
        struct {
            typename Scanner::TempStorage scan;
            typename Prefix::TempStorage prefix;
        } scan;
        struct {
            T values[SELECT_TILE];
            uint16_t rows[ROWS ? SELECT_TILE : 1];
        } compact;
    } temp;
    __shared__ long long tile_start;
    __shared__ int tile_count;
    const int tiles = static_cast<int>((n + SELECT_TILE - 1) / SELECT_TILE);
    TileState state = scan_state<long long>(state_mem, state_bytes, tiles);
    const int tile = blockIdx.x;
    const uint64_t base = static_cast<uint64_t>(tile) * SELECT_TILE;
    const uint64_t remaining = n - base;
    T raw[SELECT_ITEMS];
    if (remaining >= SELECT_TILE) Loader(temp.load).Load(values + base, raw);
    else Loader(temp.load).Load(values + base, raw, static_cast<int>(remaining), T(0));
    __syncthreads();
    const uint32_t passing = bits(base + threadIdx.x * SELECT_ITEMS);
    int flags[SELECT_ITEMS];
#pragma unroll
    for (int k = 0; k < SELECT_ITEMS; ++k) flags[k] = ((passing >> k) & 1u) && keep(raw[k]) ? 1 : 0;
    int positions[SELECT_ITEMS];
    int aggregate;
    Scanner(temp.scan.scan).ExclusiveSum(flags, positions, aggregate);
    if (tile == 0) {
        if (threadIdx.x == 0) {
            if (tiles > 1) state.SetInclusive(0, static_cast<long long>(aggregate));
            tile_start = 0;
        }
    } else if (threadIdx.x < 32) {
        // Warp 0 publishes this tile's aggregate and looks back for its prefix.
        Prefix prefix(state, temp.scan.prefix, SumOp(), tile);
        const long long exclusive = prefix(static_cast<long long>(aggregate));
        if (threadIdx.x == 0) tile_start = exclusive;
    }
    if (threadIdx.x == 0) tile_count = aggregate;
    __syncthreads();
    if (tile == tiles - 1 && threadIdx.x == 0) count_out[0] = static_cast<unsigned long long>(tile_start + tile_count);
    // Positions are global; compact within the tile in shared memory first.
    const long long local_start = tile_start;
#pragma unroll
    for (int k = 0; k < SELECT_ITEMS; ++k) {
        if (flags[k]) {
            const int local = positions[k];
            temp.compact.values[local] = raw[k];
            if (ROWS) temp.compact.rows[local] = static_cast<uint16_t>(threadIdx.x * SELECT_ITEMS + k);
        }
    }
    __syncthreads();
    const int count = tile_count;
    T* dst = out + local_start;
    for (int j = threadIdx.x; j < count; j += SELECT_THREADS) {
        dst[j] = temp.compact.values[j];
        if (ROWS) rows_out[local_start + j] = base + temp.compact.rows[j];
    }
}

#define RAGGED_SELECT_VARIANT(T, NAME, SUFFIX, ROWS)                                        \
    extern "C" __global__ void __launch_bounds__(SELECT_THREADS) select_if##SUFFIX##_##NAME(    \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n, uint32_t cmp, \
        T value, T* out, uint64_t* rows_out, void* state, uint64_t state_bytes,             \
        unsigned long long* count_out) {                                                    \
        select_tile<T, ROWS>(                                                               \
            values, n, out, rows_out, state, state_bytes, count_out,                        \
            [=](uint64_t first) { return valid_bits<select_items<T>()>(validity, bit_offset, first, n); }, \
            [=](T x) { return compare(x, cmp, value); });                                   \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SELECT_THREADS) select_mask##SUFFIX##_##NAME(  \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n,          \
        const uint8_t* mask_bits, uint64_t mask_offset, const uint8_t* mask_validity,       \
        uint64_t mask_valid_offset, T* out, uint64_t* rows_out, void* state,                \
        uint64_t state_bytes, unsigned long long* count_out) {                              \
        select_tile<T, ROWS>(                                                               \
            values, n, out, rows_out, state, state_bytes, count_out,                        \
            [=](uint64_t first) {                                                           \
                constexpr int ITEMS = select_items<T>();                                    \
                return valid_bits<ITEMS>(validity, bit_offset, first, n) &                  \
                       valid_bits<ITEMS>(mask_validity, mask_valid_offset, first, n) &      \
                       valid_bits<ITEMS>(mask_bits, mask_offset, first, n);                 \
            },                                                                              \
            [](T) { return true; });                                                        \
    }
#define RAGGED_SELECT(T, NAME)                                                              \
    RAGGED_SELECT_VARIANT(T, NAME, , false)                                                 \
    RAGGED_SELECT_VARIANT(T, NAME, _indices, true)
RAGGED_FOR_EACH_NATIVE(RAGGED_SELECT)

// The tile state of the flag scan.
RAGGED_SCAN_STATE(long long, flags)
