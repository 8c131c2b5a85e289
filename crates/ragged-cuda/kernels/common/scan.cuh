// scan.cuh: the single-pass tile scan every scan-shaped kernel is built from.
//
// One thread block per tile of SCAN_BLOCK * ITEMS elements, tile index = blockIdx.x.
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

constexpr int SCAN_BLOCK = 256;

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

/// Scan one tile (this block's): `load(row, in) -> Acc` maps inputs, `convert(row,
/// Acc) -> Out` maps results (and may report errors), outputs are stored coalesced
/// (cub::BlockStore, warp-transposed). The last tile calls `on_total(total)` from
/// thread 0 with the inclusive total of the whole input.
template <typename In, typename Acc, typename Out, int ITEMS, typename Op, typename Load,
          typename Convert, typename OnTotal>
__device__ __forceinline__ void scan_tile(const In* in, uint64_t n, Out* out, void* state_mem,
                                          uint64_t state_bytes, bool exclusive, Acc identity,
                                          Op op, Load load, Convert convert, OnTotal on_total) {
    constexpr int TILE = SCAN_BLOCK * ITEMS;
    typedef cub::ScanTileState<Acc> TileState;
    typedef cub::TilePrefixCallbackOp<Acc, Op, TileState> Prefix;
    typedef cub::BlockLoad<In, SCAN_BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> Loader;
    typedef cub::BlockStore<Out, SCAN_BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE> Storer;
    typedef cub::BlockScan<Acc, SCAN_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
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
    const uint64_t remaining = n - base;
    const bool full = remaining >= static_cast<uint64_t>(TILE);
    In raw[ITEMS];
    if (full) Loader(temp.load).Load(in + base, raw);
    else Loader(temp.load).Load(in + base, raw, static_cast<int>(remaining), In(0));
    __syncthreads();
    Acc items[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const uint64_t row = base + threadIdx.x * ITEMS + k;
        items[k] = row < n ? load(row, raw[k]) : identity;
    }
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
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const uint64_t row = base + threadIdx.x * ITEMS + k;
        results[k] = row < n ? convert(row, items[k]) : Out(0);
    }
    __syncthreads();
    if (full) Storer(temp.store).Store(out + base, results);
    else Storer(temp.store).Store(out + base, results, static_cast<int>(remaining));
}

/// The tiles of a scan of n elements with ITEMS per thread.
template <int ITEMS> __host__ __device__ constexpr uint64_t scan_tiles(uint64_t n) {
    return (n + SCAN_BLOCK * ITEMS - 1) / (SCAN_BLOCK * ITEMS);
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
