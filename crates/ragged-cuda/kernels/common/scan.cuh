// scan.cuh: the single-pass tile scan every scan-shaped kernel is built from.
//
// One thread block per tile of THREADS * ITEMS elements (a ScanTuning), tile index =
// blockIdx.x.
// The block loads its tile (cub::BlockLoad, warp-transposed: coalesced), maps each
// element to the accumulator (`load(row, x)`; rows past the end get the identity),
// scans it with cub::BlockScan, and takes the prefix of all earlier tiles by
// decoupled look-back (cub::TilePrefixCallbackOp over cub::ScanTileState): each tile
// publishes its aggregate, then its inclusive prefix, and later tiles combine the
// published values of their predecessors instead of waiting for a second pass. Each
// scanned element is then handed to `store(row, value)`.
// The tile state lives in a device buffer the host sizes with scan_state_bytes and
// initializes with RAGGED_SCAN_STATE_INIT before the scan.
// Complexity: O(n) work, one read and one write of the data, O(tiles) state.
#pragma once
#include "common/ragged.cuh"
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

namespace ragged {

/// The shape of a tile scan: THREADS per block, ITEMS per thread, and the decoupled
/// look-back delays of cub's fixed_delay_constructor_t (SPIN_NS between polls of a
/// predecessor still in flight, START_NS before the first poll).
template <int THREADS_, int ITEMS_, int SPIN_NS = 350, int START_NS = 450> struct ScanTuning {
    static constexpr int THREADS = THREADS_;
    static constexpr int ITEMS = ITEMS_;
    static constexpr int TILE = THREADS_ * ITEMS_;
    /// Nanoseconds between polls of the tile states.
    static constexpr int SPIN = SPIN_NS;
    typedef cub::detail::fixed_delay_constructor_t<SPIN_NS, START_NS> Delay;
};

/// Threads per block of the library's scan kernels (src/primitives/scan.rs knows it).
constexpr int SCAN_THREADS = 128;

/// The shape of the library's scans: 128 threads, ITEMS per thread, look-back delays of
/// cub's Hopper tuning. Chosen with experiments/scan_tuning.cu on an H100: 128 x 24
/// with these delays reached 0.90 x copy for i32 -> i64 sums and 0.84 for f32, against
/// 0.83 / 0.75 for 256 x 16 with cub's default delays and 0.80 / 0.81 for
/// cub::DeviceScan (PERFORMANCE.md). 28 values per thread did as well in the experiment
/// but measured lower in the library's kernels (f32 0.78, sizes_to_offsets 0.77).
template <int ITEMS> using ScanShape = ScanTuning<SCAN_THREADS, ITEMS, 648, 1245>;

struct SumOp {
    template <typename T> __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a + b; }
};
struct MinOp {
    template <typename T> __device__ __forceinline__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct MaxOp {
    template <typename T> __device__ __forceinline__ T operator()(const T& a, const T& b) const { return b > a ? b : a; }
};

template <typename Acc> __device__ __forceinline__ cub::ScanTileState<Acc> scan_state(void* mem, uint64_t bytes, int tiles) {
    cub::ScanTileState<Acc> state;
    state.Init(tiles, mem, static_cast<size_t>(bytes));
    return state;
}

/// Scan one tile (this block's) of a scan shaped by `Tuning` (a ScanTuning):
/// `in` is a pointer to In or any random-access iterator yielding In (e.g. one that
/// pairs two arrays), `load(row, in) -> Acc` maps inputs, `convert(row, Acc) -> Out` maps results (and
/// may report errors), outputs are stored coalesced (cub::BlockStore,
/// warp-transposed). The last tile calls `on_total(total)` from thread 0 with the
/// inclusive total of the whole input. Launch with Tuning::THREADS threads per block
/// and one block per tile of Tuning::TILE elements.
template <typename Tuning, typename In, typename Acc, typename Out, typename Op, typename Load,
          typename Convert, typename OnTotal, typename InIt>
__device__ __forceinline__ void scan_tile(InIt in, uint64_t n, Out* out, void* state_mem,
                                          uint64_t state_bytes, bool exclusive, Acc identity,
                                          Op op, Load load, Convert convert, OnTotal on_total) {
    constexpr int THREADS = Tuning::THREADS;
    constexpr int ITEMS = Tuning::ITEMS;
    constexpr int TILE = Tuning::TILE;
    typedef cub::ScanTileState<Acc> TileState;
    typedef cub::TilePrefixCallbackOp<Acc, Op, TileState, typename Tuning::Delay> Prefix;
    typedef cub::BlockLoad<In, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> Loader;
    typedef cub::BlockStore<Out, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE> Storer;
    typedef cub::BlockScan<Acc, THREADS, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    __shared__ union {
        typename Loader::TempStorage load;
        typename Storer::TempStorage store;
        struct {
            typename Scanner::TempStorage scan;
            typename Prefix::TempStorage prefix;
        } scan;
    } temp;
    const int tiles = static_cast<int>((n + TILE - 1) / TILE);
    TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
    const int tile = blockIdx.x;
    const uint64_t base = static_cast<uint64_t>(tile) * TILE;
    const uint64_t first = base + static_cast<uint64_t>(threadIdx.x) * ITEMS;
    const uint64_t remaining = n - base;
    const bool full = remaining >= static_cast<uint64_t>(TILE);
    In raw[ITEMS];
    Acc items[ITEMS];
    if (full) {
        Loader(temp.load).Load(in + base, raw);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = load(first + k, raw[k]);
    } else {
        Loader(temp.load).Load(in + base, raw, static_cast<int>(remaining), In{});
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) items[k] = first + k < n ? load(first + k, raw[k]) : identity;
    }
    __syncthreads();
    Acc total = identity;
    if (tile == 0) {
        Acc aggregate;
        if (exclusive) Scanner(temp.scan.scan).ExclusiveScan(items, items, identity, op, aggregate);
        else Scanner(temp.scan.scan).InclusiveScan(items, items, op, aggregate);
        if (threadIdx.x == 0 && tiles > 1) state.SetInclusive(0, aggregate);
        total = aggregate;
    } else {
        Prefix prefix(state, temp.scan.prefix, op, tile);
        if (exclusive) Scanner(temp.scan.scan).ExclusiveScan(items, items, op, prefix);
        else Scanner(temp.scan.scan).InclusiveScan(items, items, op, prefix);
        __syncthreads();
        total = prefix.GetInclusivePrefix();
    }
    if (tile == tiles - 1 && threadIdx.x == 0) on_total(total);
    Out results[ITEMS];
    if (full) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) results[k] = convert(first + k, items[k]);
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) results[k] = first + k < n ? convert(first + k, items[k]) : Out(0);
    }
    __syncthreads();
    if (full) Storer(temp.store).Store(out + base, results);
    else Storer(temp.store).Store(out + base, results, static_cast<int>(remaining));
}

}  // namespace ragged

// The kernel that initializes the tile state of accumulator ACC (named NAME) in a
// buffer the host sized as (tiles + 32) * 48 + 1024 bytes (an upper bound of
// cub::ScanTileState<ACC>::AllocationSize for every accumulator up to 16 bytes).
#define RAGGED_SCAN_STATE(ACC, NAME)                                                        \
    extern "C" __global__ void scan_state_init_##NAME(void* mem, uint64_t bytes, int tiles) { \
        cub::ScanTileState<ACC> state = ragged::scan_state<ACC>(mem, bytes, tiles);        \
        state.InitializeStatus(tiles);                                                      \
    }
