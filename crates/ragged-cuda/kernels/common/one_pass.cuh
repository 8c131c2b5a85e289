// one_pass.cuh: the two-pass helper's sizes, scan and fill in one kernel, for the ops
// whose output bytes the host can bound before the launch (DESIGN.md §3,
// "Variable-length outputs"; ARCHITECTURE, "one pass").
//
// An op's functor F is the two-pass helper's (common/two_pass.cuh): it writes row
// `row`'s bytes through a Writer and returns whether the row is valid. The host
// allocates `capacity` bytes of chars (the op's bound on the output) and launches one
// block of ONE_PASS_THREADS threads per tile of ONE_PASS_ROWS rows. Each block:
//   1. sizes its rows (the functor with a counting Writer, or its plan: RowPlan in
//      two_pass.cuh), packs their validity by warp ballots and counts the nulls into
//      counts[0]; a row of 2^31 bytes or more is reported through the error word (code
//      1) and sized 0;
//   2. scans the sizes within the tile (cub::BlockScan) and publishes the tile's total
//      at once (the look-back state, cub::ScanTileState<unsigned long long>, that
//      primitives/scan initializes as acc_u64);
//   3. writes its rows into shared memory at their places in the tile's output, when
//      the tile's bytes fit TWO_PASS_STAGE;
//   4. only then takes the bytes of all earlier tiles by decoupled look-back
//      (cub::TilePrefixCallbackOp, in the first warp): the earlier tiles have long
//      published their totals, so the look-back seldom waits, and no sleep precedes
//      it (OnePassTuning);
//   5. writes its rows' offsets (the last tile also the final offset and the total
//      into counts[1]) and stores the staged bytes with aligned 16-byte stores
//      (flush_stage_shifted), or writes its rows directly when they were not staged.
// A tile whose bytes end past `capacity` writes no chars: the host sees a total above
// its bound and runs the two-pass helper instead (a wrong bound costs time, never
// memory safety).
// Against the two-pass helper this reads every input once from DRAM instead of twice
// (the second functor call finds the tile's rows in L1/L2) and never writes or reads
// the sizes array. Publishing before writing the stage instead of after (as the
// library's scans do) measured redact 2.27 -> 2.20 ms at 60 M rows on an H100
// (PERFORMANCE.md, v0.12).
// RAGGED_ONE_PASS(F, NAME) instantiates
//   NAME_one_pass_i32(F, uint64_t rows, uint64_t capacity, int32_t* offsets, uint8_t* chars,
//                     uint32_t* validity, unsigned long long* counts, uint64_t* error_word,
//                     void* state, uint64_t state_bytes)
//   NAME_one_pass_i64(... the same with long long* offsets)
#pragma once
#include "common/scan.cuh"
#include "common/two_pass.cuh"

namespace ragged {

/// Threads per block of the one-pass kernels.
constexpr int ONE_PASS_THREADS = 256;
/// Rows each thread sizes and writes (rows tid, tid + 256, ... of its tile).
constexpr int ONE_PASS_ITEMS = 2;
/// Rows per tile (src/strings/two_pass.rs knows it).
constexpr int ONE_PASS_ROWS = ONE_PASS_THREADS * ONE_PASS_ITEMS;

/// The look-back delays of the one-pass kernels: 100 ns between polls of a tile still
/// in flight and none before the first poll (the library's scans wait 1245 ns there,
/// for tiles that publish just before their successors look back).
typedef ScanTuning<ONE_PASS_THREADS, ONE_PASS_ITEMS, 100, 0> OnePassTuning;

template <typename F, typename O>
__device__ void one_pass(const F& f, uint64_t rows, uint64_t capacity, O* offsets, uint8_t* chars,
                         uint32_t* validity, unsigned long long* counts, uint64_t* error_word,
                         void* state_mem, uint64_t state_bytes) {
    typedef unsigned long long Acc;
    typedef cub::ScanTileState<Acc> TileState;
    typedef cub::TilePrefixCallbackOp<Acc, SumOp, TileState, typename OnePassTuning::Delay> Prefix;
    typedef cub::BlockScan<Acc, ONE_PASS_THREADS, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    __shared__ struct {
        typename Scanner::TempStorage scan;
        typename Prefix::TempStorage prefix;
    } temp;
    // The tile's rows' sizes, then their places in the tile's output.
    __shared__ Acc starts[ONE_PASS_ROWS];
    __shared__ Acc tile_base;
    // 16 bytes more than staged, which flush_stage_shifted may read past the end.
    __shared__ __align__(16) uint8_t stage[TWO_PASS_STAGE + 16];

    const int tiles = static_cast<int>((rows + ONE_PASS_ROWS - 1) / ONE_PASS_ROWS);
    const int tile = blockIdx.x;
    const unsigned tid = threadIdx.x;
    const uint64_t first = static_cast<uint64_t>(tile) * ONE_PASS_ROWS;

    // 1. Sizes, plans and validity, rows in warp-contiguous order (row = first + k *
    // 256 + tid).
    int32_t sizes[ONE_PASS_ITEMS];
    typename RowPlan<F>::type plans[ONE_PASS_ITEMS];
    unsigned long long null_count = 0;
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k) {
        const uint64_t row = first + k * ONE_PASS_THREADS + tid;
        bool valid = false;
        int32_t size = 0;
        if (row < rows) size = size_row(f, row, error_word, valid, plans[k]);
        sizes[k] = size;
        starts[k * ONE_PASS_THREADS + tid] = static_cast<Acc>(size);
        // Uniform per warp: a warp whose first row is past the end has no word.
        if (row - (tid & 31u) < rows) ballot_word(row, rows, valid, validity, null_count);
    }
    flush_count(counts, null_count);
    __syncthreads();

    // 2. The tile's own exclusive scan, its total published at once.
    Acc items[ONE_PASS_ITEMS];
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k) items[k] = starts[tid * ONE_PASS_ITEMS + k];
    Acc aggregate;
    Scanner(temp.scan).ExclusiveSum(items, items, aggregate);
    TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
    if (tid == 0 && tiles > 1) {
        if (tile == 0) state.SetInclusive(0, aggregate);
        else state.SetPartial(tile, aggregate);
    }
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k) starts[tid * ONE_PASS_ITEMS + k] = items[k];
    __syncthreads();

    // 3. The rows into the stage, at their places in the tile's output. A functor that
    // records where its rows went (FILL_EMPTY_ROWS, through Writer::start) needs their
    // final places, known after the look-back: it writes them directly.
    const bool staged = !FillsEmptyRows<F>::value && aggregate <= static_cast<Acc>(TWO_PASS_STAGE);  // uniform
    if (staged) {
#pragma unroll
        for (int k = 0; k < ONE_PASS_ITEMS; ++k) {
            const uint64_t row = first + k * ONE_PASS_THREADS + tid;
            if (sizes[k] == 0 && !(FillsEmptyRows<F>::value && row < rows)) continue;
            Writer w{stage + starts[k * ONE_PASS_THREADS + tid], 0, 0};
            RowPlan<F>::write(f, row, plans[k], w);
        }
    }

    // 4. The earlier tiles' bytes, by the first warp (TilePrefixCallbackOp's contract).
    if (tile == 0) {
        if (tid == 0) tile_base = 0;
    } else if (tid < 32) {
        Prefix prefix(state, temp.prefix, SumOp{}, tile);
        const Acc before = prefix(aggregate);
        if (tid == 0) tile_base = before;
    }
    __syncthreads();

    // 5. Offsets, coalesced; then the bytes.
    const Acc base = tile_base;
    const Acc end = base + aggregate;
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k) {
        const uint64_t row = first + k * ONE_PASS_THREADS + tid;
        if (row < rows) offsets[row] = static_cast<O>(base + starts[k * ONE_PASS_THREADS + tid]);
    }
    if (tile == tiles - 1 && tid == 0) {
        offsets[rows] = static_cast<O>(end);
        counts[1] = end;
    }
    if (end > capacity) return;  // uniform: the host falls back to the two-pass helper
    if (staged) {
        flush_stage_shifted(stage, chars + base, static_cast<long long>(aggregate));
        return;
    }
#pragma unroll
    for (int k = 0; k < ONE_PASS_ITEMS; ++k) {
        const uint64_t row = first + k * ONE_PASS_THREADS + tid;
        if (sizes[k] == 0 && !(FillsEmptyRows<F>::value && row < rows)) continue;
        const Acc at = base + starts[k * ONE_PASS_THREADS + tid];
        Writer w{chars + at, 0, static_cast<long long>(at)};
        RowPlan<F>::write(f, row, plans[k], w);
    }
}

}  // namespace ragged

#define RAGGED_ONE_PASS(F, NAME)                                                            \
    extern "C" __global__ void __launch_bounds__(ragged::ONE_PASS_THREADS) NAME##_one_pass_i32( \
        F f, uint64_t rows, uint64_t capacity, int32_t* offsets, uint8_t* chars, uint32_t* validity, \
        unsigned long long* counts, uint64_t* error_word, void* state, uint64_t state_bytes) { \
        ragged::one_pass(f, rows, capacity, offsets, chars, validity, counts, error_word, state, state_bytes); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(ragged::ONE_PASS_THREADS) NAME##_one_pass_i64( \
        F f, uint64_t rows, uint64_t capacity, long long* offsets, uint8_t* chars, uint32_t* validity, \
        unsigned long long* counts, uint64_t* error_word, void* state, uint64_t state_bytes) { \
        ragged::one_pass(f, rows, capacity, offsets, chars, validity, counts, error_word, state, state_bytes); \
    }
