// two_pass.cuh: the shared two-pass helper for variable-length strings outputs
// (DESIGN.md §3, "Variable-length outputs"). An op supplies a functor F with
//     __device__ bool operator()(uint64_t row, ragged::Writer& w) const;
// which writes row `row`'s bytes through w and returns whether the row is valid (the
// bytes of a null row must be none). The helper runs it twice:
//   1. two_pass_sizes: every row's size as an int32 (a row of 2^31 bytes or more is
//      reported through the error word, code 1), the validity packed by warp ballots
//      with its unset bits counted into counts[0], and the sizes' total into counts[1];
//   2. the host reads the error word and both counts in one round trip, picks the
//      offset width from the total and queues the scan of the sizes into offsets
//      (primitives/scan), with nothing more to read back;
//   3. two_pass_fill: every row written at its offset, staged per block in shared
//      memory and stored with coalesced 16-byte stores when the tile's bytes fit.
// Mapping: one thread per row; the sizes pass grid-strides over rows rounded up to
// whole warps, the fill pass over tiles of blockDim.x rows.
// RAGGED_TWO_PASS(F, NAME) instantiates the entry points
//   NAME_sizes(F, uint64_t rows, int32_t* sizes, uint32_t* validity, unsigned long long* counts, uint64_t* error_word)
//   NAME_fill_i32(F, uint64_t rows, const int32_t* offsets, uint8_t* chars)
//   NAME_fill_i64(F, uint64_t rows, const long long* offsets, uint8_t* chars)
#pragma once
#include "common/strings.cuh"

namespace ragged {

/// Whether the fill passes call F for rows of no bytes too: false unless F declares
/// `static constexpr bool FILL_EMPTY_ROWS = true;` (a functor that records something
/// besides its bytes for every row, as split_record's part offsets).
template <typename F, typename = void> struct FillsEmptyRows {
    static constexpr bool value = false;
};
template <typename F> struct FillsEmptyRows<F, decltype(void(F::FILL_EMPTY_ROWS))> {
    static constexpr bool value = F::FILL_EMPTY_ROWS;
};

/// A functor's row plan: what it works out once per row for both the row's size and
/// its bytes, which one_pass.cuh keeps in registers from the sizing to the writing.
/// A functor may declare
///     struct Plan { ... };
///     __device__ bool plan(uint64_t row, Plan& p, long long& size) const;  // valid?
///     __device__ void write(const Plan& p, Writer& w) const;  // the row's size bytes
/// (its operator() then being plan + write, for the two-pass helper). Without them the
/// plan is empty and the functor runs once to size the row and once to write it.
template <typename F, typename = void> struct RowPlan {
    struct type {};
    static __device__ __forceinline__ bool plan(const F& f, uint64_t row, type&, long long& size) {
        Writer w{nullptr, 0, 0};
        const bool valid = f(row, w);
        size = w.pos;
        return valid;
    }
    static __device__ __forceinline__ void write(const F& f, uint64_t row, const type&, Writer& w) { f(row, w); }
};
template <typename F> struct RowPlan<F, decltype(void(sizeof(typename F::Plan)))> {
    typedef typename F::Plan type;
    static __device__ __forceinline__ bool plan(const F& f, uint64_t row, type& p, long long& size) {
        return f.plan(row, p, size);
    }
    static __device__ __forceinline__ void write(const F& f, uint64_t, const type& p, Writer& w) { f.write(p, w); }
};

/// Row `row`'s output size and plan (RowPlan), and in `valid` whether the row is
/// valid; a row of 2^31 bytes or more is reported through the error word (code 1) and
/// sized 0, as is a null row. Shared by the sizes pass and one_pass.cuh.
template <typename F>
__device__ __forceinline__ int32_t size_row(const F& f, uint64_t row, uint64_t* error_word, bool& valid,
                                            typename RowPlan<F>::type& plan) {
    long long size = 0;
    valid = RowPlan<F>::plan(f, row, plan, size);
    if (size > 0x7fffffffll) {
        report_error(error_word, row, 1);
        size = 0;
    }
    return valid ? static_cast<int32_t>(size) : 0;
}

template <typename F>
__device__ void two_pass_sizes(const F& f, uint64_t rows, int32_t* sizes, uint32_t* validity,
                               unsigned long long* counts, uint64_t* error_word) {
    const uint64_t rounded = (rows + 31) / 32 * 32;
    unsigned long long null_count = 0;
    unsigned long long bytes = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        bool valid = false;
        if (row < rows) {
            typename RowPlan<F>::type plan;
            const int32_t size = size_row(f, row, error_word, valid, plan);
            sizes[row] = size;
            bytes += static_cast<unsigned long long>(size);
        }
        ballot_word(row, rows, valid, validity, null_count);
    }
    flush_count(counts, null_count);
    // The output's bytes: one atomic per warp.
#pragma unroll
    for (int s = 16; s > 0; s >>= 1) bytes += __shfl_xor_sync(0xffffffffu, bytes, s);
    flush_count(counts + 1, bytes);
}

/// Bytes of shared memory a block stages its tile's output in (see two_pass_fill).
constexpr long long TWO_PASS_STAGE = 16 * 1024;

/// Write a staged tile: bytes [0, n) of `stage` go to dst[0, n), where stage[k] sits at
/// the same offset from a 16-byte boundary as dst[k] (stage[shift] holds dst[0], with
/// shift = dst mod 16), so whole 16-byte chunks move with one aligned load and store
/// and only the two partial end chunks go byte by byte.
__device__ __forceinline__ void flush_stage(const uint8_t* stage, uint8_t* dst, long long n, int shift) {
    const long long span = n + shift;
    const long long chunks = (span + 15) / 16;
    uint8_t* aligned = dst - shift;
    for (long long c = threadIdx.x; c < chunks; c += blockDim.x) {
        const long long a = c * 16;
        if (a >= shift && a + 16 <= span) {
            *reinterpret_cast<uint4*>(aligned + a) = *reinterpret_cast<const uint4*>(stage + a);
        } else {
            const long long lo = a > shift ? a : shift;
            const long long hi = a + 16 < span ? a + 16 : span;
            for (long long k = lo; k < hi; ++k) aligned[k] = stage[k];
        }
    }
}

/// Zero the first `bytes` (a multiple of 16) of a 16-byte aligned stage, 16 bytes per
/// store, the block's `threads` threads taking every threads-th chunk: the stage of a
/// kernel that ORs its rows into it (redact_staged, replace_tiles' or_replaced_rows),
/// before the barrier that precedes those writes. Block-wide; no barrier.
__device__ __forceinline__ void zero_stage(uint8_t* stage, int bytes, int threads) {
    for (int c = static_cast<int>(threadIdx.x); c < bytes / 16; c += threads)
        reinterpret_cast<uint4*>(stage)[c] = make_uint4(0, 0, 0, 0);
}

/// zero_stage of a stage whose 16-byte chunks the block's THREADS threads divide evenly
/// (BYTES a multiple of 16 THREADS): BYTES / (16 THREADS) stores per thread, unrolled,
/// with no loop (redact_staged: about 10 fewer warp instructions per 32 rows).
template <int BYTES, int THREADS> __device__ __forceinline__ void zero_stage_even(uint8_t* stage) {
    static_assert(BYTES % (16 * THREADS) == 0, "the stage's chunks divide evenly between the threads");
#pragma unroll
    for (int j = 0; j < BYTES / (16 * THREADS); ++j)
        reinterpret_cast<uint4*>(stage)[threadIdx.x + j * THREADS] = make_uint4(0, 0, 0, 0);
}

/// flush_stage_shifted (below) with each aligned 16-byte chunk of dst assembled from
/// five 4-byte words of the stage (four wavefronts each, lanes 16 bytes apart) by one
/// loop for every shift. split_columns, which flushes two stages per tile, measured
/// 3-4 % slower at 60 M rows with flush_stage_shifted's loop per shift, and
/// redact_staged about 1 % slower (PERFORMANCE v0.44), so both keep this one; so does
/// every kernel on sm_80, where the loop per shift made three one-pass kernels spill.
/// I: the index type, long long, or int for a stage's size known to stay under
/// 2^31 - 32 (redact_staged: fewer instructions per chunk).
template <typename I>
__device__ __forceinline__ void flush_stage_words(const uint8_t* stage, uint8_t* dst, I n) {
    const int shift = static_cast<int>(reinterpret_cast<unsigned long long>(dst) & 15u);
    const I span = n + shift;
    const I chunks = (span + 15) / 16;
    uint8_t* aligned = dst - shift;
    for (I c = threadIdx.x; c < chunks; c += blockDim.x) {
        const I a = c * 16;
        if (a >= shift && a + 16 <= span) {
            // dst chunk [a, a + 16) holds stage bytes [a - shift, a - shift + 16).
            const int o = static_cast<int>(a - shift);
            const uint32_t* w = reinterpret_cast<const uint32_t*>(stage + (o & ~3));
            const int r = 8 * (o & 3);
            const uint32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4];
            uint4 v;
            v.x = __funnelshift_r(w0, w1, r);
            v.y = __funnelshift_r(w1, w2, r);
            v.z = __funnelshift_r(w2, w3, r);
            v.w = __funnelshift_r(w3, w4, r);
            *reinterpret_cast<uint4*>(aligned + a) = v;
        } else {
            const I lo = a > shift ? a : shift;
            const I hi = a + 16 < span ? a + 16 : span;
            for (I k = lo; k < hi; ++k) aligned[k] = stage[k - shift];
        }
    }
}

/// The whole 16-byte chunks [first, last) of a flush_stage_shifted (first >= 1): dst
/// chunk c from stage bytes [16 c - shift, + 16), which lie in the stage's aligned
/// chunks c - 1 and c at offset 4 J + s / 8 (J and s the same in every thread): two
/// aligned 16-byte loads and four funnel shifts per chunk.
template <int J>
__device__ __forceinline__ void flush_whole_chunks(const uint4* stage, uint4* aligned, long long first, long long last,
                                                   uint32_t s) {
    for (long long c = first + threadIdx.x; c < last; c += blockDim.x) {
        const uint4 lo = stage[c - 1], hi = stage[c];
        const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        aligned[c] = make_uint4(__funnelshift_r(w[J], w[J + 1], s), __funnelshift_r(w[J + 1], w[J + 2], s),
                                __funnelshift_r(w[J + 2], w[J + 3], s), __funnelshift_r(w[J + 3], w[J + 4], s));
    }
}

/// Write a tile's bytes staged from stage[0] (16-byte aligned, with 16 readable bytes
/// past n): bytes [0, n) go to dst[0, n) whatever dst's alignment, each aligned 16-byte
/// chunk of dst assembled from two aligned 16-byte chunks of the stage by funnel shifts
/// and stored at once, the partial chunks at either end byte by byte (one_pass, which
/// stages before it knows where its bytes go). The words a chunk takes are at the same
/// place in every thread, so the loop is chosen once (flush_whole_chunks): 16-byte
/// loads of consecutive chunks meet no bank conflicts, where five 4-byte loads 16 bytes
/// apart took four wavefronts each (sm_90+; sm_80 takes flush_stage_words).
__device__ __forceinline__ void flush_stage_shifted(const uint8_t* stage, uint8_t* dst, long long n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    flush_stage_words(stage, dst, n);
#else
    const int shift = static_cast<int>(reinterpret_cast<unsigned long long>(dst) & 15u);
    const long long span = n + shift;
    uint8_t* aligned = dst - shift;
    const uint4* chunks = reinterpret_cast<const uint4*>(stage);
    uint4* out = reinterpret_cast<uint4*>(aligned);
    // Whole dst chunks: [first, last); a partial one before (chunk 0 when shift > 0) and
    // after (chunk last when span is not a multiple of 16).
    const long long first = shift > 0 ? 1 : 0, last = span / 16;
    if (shift == 0) {
        for (long long c = threadIdx.x; c < last; c += blockDim.x) out[c] = chunks[c];
    } else {
        const int r = 16 - shift;  // the chunk's first byte in stage chunk c - 1
        const uint32_t s = 8u * static_cast<uint32_t>(r & 3);
        switch (r >> 2) {  // the same in every thread
            case 0: flush_whole_chunks<0>(chunks, out, first, last, s); break;
            case 1: flush_whole_chunks<1>(chunks, out, first, last, s); break;
            case 2: flush_whole_chunks<2>(chunks, out, first, last, s); break;
            default: flush_whole_chunks<3>(chunks, out, first, last, s); break;
        }
    }
    // The partial chunks: dst bytes [shift, min(16, span)) of chunk 0, and [16 last,
    // span) when that is another chunk.
    const unsigned edge = blockDim.x > 32 ? 32u : 0u;  // another warp than chunk 0's, when there is one
    if (threadIdx.x == 0 && shift > 0) {
        const long long hi = span < 16 ? span : 16;
        for (long long k = shift; k < hi; ++k) aligned[k] = stage[k - shift];
    }
    if (threadIdx.x == edge && span % 16 != 0 && !(last == 0 && shift > 0))
        for (long long k = 16 * last; k < span; ++k) aligned[k] = stage[k - shift];
#endif
}

/// The fill pass, a tile of blockDim.x rows per block and round. When the tile's output
/// fits TWO_PASS_STAGE bytes (the usual case: rows of up to 64 bytes on average), each
/// thread writes its row into shared memory and the block then stores the tile's bytes
/// with coalesced 16-byte stores; one thread per row writing straight to global memory
/// would scatter single bytes over 32 rows per warp store. Larger tiles are written
/// directly.
template <typename F, typename O>
__device__ void two_pass_fill(const F& f, uint64_t rows, const O* offsets, uint8_t* chars) {
    __shared__ __align__(16) uint8_t stage[TWO_PASS_STAGE];
    const uint64_t step = static_cast<uint64_t>(gridDim.x) * blockDim.x;
    for (uint64_t tile = static_cast<uint64_t>(blockIdx.x) * blockDim.x; tile < rows; tile += step) {
        const uint64_t last = tile + blockDim.x < rows ? tile + blockDim.x : rows;
        const long long base = static_cast<long long>(offsets[tile]);
        const long long n = static_cast<long long>(offsets[last]) - base;
        const int shift = static_cast<int>(reinterpret_cast<unsigned long long>(chars + base) & 15u);
        const bool staged = n + shift <= TWO_PASS_STAGE;  // uniform over the block
        const uint64_t row = tile + threadIdx.x;
        if (row < rows) {
            const long long begin = static_cast<long long>(offsets[row]);
            if (static_cast<long long>(offsets[row + 1]) != begin || FillsEmptyRows<F>::value) {
                Writer w{staged ? stage + shift + (begin - base) : chars + begin, 0, begin};
                f(row, w);
            }
        }
        if (staged) {
            __syncthreads();
            flush_stage(stage, chars + base, n, shift);
            __syncthreads();
        }
    }
}

}  // namespace ragged

#define RAGGED_TWO_PASS(F, NAME)                                                            \
    extern "C" __global__ void __launch_bounds__(256)                                       \
        NAME##_sizes(F f, uint64_t rows, int32_t* sizes, uint32_t* validity, unsigned long long* counts, \
                     uint64_t* error_word) {                                                \
        ragged::two_pass_sizes(f, rows, sizes, validity, counts, error_word);              \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256)                                       \
        NAME##_fill_i32(F f, uint64_t rows, const int32_t* offsets, uint8_t* chars) {       \
        ragged::two_pass_fill(f, rows, offsets, chars);                                     \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256)                                       \
        NAME##_fill_i64(F f, uint64_t rows, const long long* offsets, uint8_t* chars) {     \
        ragged::two_pass_fill(f, rows, offsets, chars);                                     \
    }
