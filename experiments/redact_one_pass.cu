// Experiment (not built by cargo): the one-pass redact kernel's variants timed side by
// side on generated names ("First Last", 3-10 and 3-12 letters) and visibilities
// (public / private), each checked byte for byte against the library's kernel.
// Variants: the tile's look-back late (after the writes, as the library's scans) or
// early (the tile's total published before the rows are staged, the look-back after),
// the look-back delays, 2 / 4 / 8 rows per thread, and two redact plans (bytes: a load
// per byte; the library's own, "indep": groups of loads issued together). The variants
// without "bytes" or "indep" in their names ran the library's plan of the time (a
// row's first 16 bytes in registers) when v0.12 was measured; they now run its
// grouped-load plan.
// Last, the library's flow around its kernel (stream-ordered allocations from a pool
// that keeps its memory, the init, the kernel, the counts read back, the frees).
// PERFORMANCE.md v0.12 quotes its figures.
//
// Build (x86-64, CUDA 13 nvcc; the binary runs on the GPU machine, which has no
// compiler for Rust but runs this):
//   nvcc -O3 -arch=sm_90 -std=c++17 -I crates/ragged-cuda/kernels \
//        -I <cuda>/include/cccl experiments/redact_one_pass.cu -o redact_one_pass
// Run: ./redact_one_pass ROWS [NAME-FILTER]
#include "strings/transform.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <string>
#include <cstring>

namespace lab {
using namespace ragged;

template <typename F, typename O, int ITEMS, int SPIN = 648, int START = 1245>
__device__ void one_pass_n(const F& f, uint64_t rows, uint64_t capacity, O* offsets, uint8_t* chars,
                           uint32_t* validity, unsigned long long* counts, uint64_t* error_word, void* state_mem,
                           uint64_t state_bytes) {
    constexpr int T = 256;
    constexpr int ROWS = T * ITEMS;
    typedef unsigned long long Acc;
    typedef ScanTuning<T, ITEMS, SPIN, START> Tuning;
    typedef cub::ScanTileState<Acc> TileState;
    typedef cub::TilePrefixCallbackOp<Acc, SumOp, TileState, typename Tuning::Delay> Prefix;
    typedef cub::BlockScan<Acc, T, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    __shared__ struct {
        typename Scanner::TempStorage scan;
        typename Prefix::TempStorage prefix;
    } temp;
    __shared__ Acc starts[ROWS];
    __shared__ Acc tile_end;
    __shared__ __align__(16) uint8_t stage[TWO_PASS_STAGE];
    const int tiles = static_cast<int>((rows + ROWS - 1) / ROWS);
    const int tile = blockIdx.x;
    const unsigned tid = threadIdx.x;
    const uint64_t first = static_cast<uint64_t>(tile) * ROWS;
    int32_t sizes[ITEMS];
    typename RowPlan<F>::type plans[ITEMS];
    unsigned long long null_count = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const uint64_t row = first + k * T + tid;
        bool valid = false;
        int32_t size = 0;
        if (row < rows) size = size_row(f, row, error_word, valid, plans[k]);
        sizes[k] = size;
        starts[k * T + tid] = static_cast<Acc>(size);
        if (row - (tid & 31u) < rows) ballot_word(row, rows, valid, validity, null_count);
    }
    flush_count(counts, null_count);
    __syncthreads();
    Acc items[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) items[k] = starts[tid * ITEMS + k];
    __syncthreads();
    if (tile == 0) {
        Acc aggregate;
        Scanner(temp.scan).ExclusiveSum(items, items, aggregate);
        if (tid == 0) {
            if (tiles > 1) {
                TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
                state.SetInclusive(0, aggregate);
            }
            tile_end = aggregate;
        }
    } else {
        TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
        Prefix prefix(state, temp.prefix, SumOp{}, tile);
        Scanner(temp.scan).ExclusiveScan(items, items, SumOp{}, prefix);
        __syncthreads();
        if (tid == 0) tile_end = prefix.GetInclusivePrefix();
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) starts[tid * ITEMS + k] = items[k];
    __syncthreads();
    const Acc base = starts[0];
    const Acc end = tile_end;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const uint64_t row = first + k * T + tid;
        if (row < rows) offsets[row] = static_cast<O>(starts[k * T + tid]);
    }
    if (tile == tiles - 1 && tid == 0) {
        offsets[rows] = static_cast<O>(end);
        counts[1] = end;
    }
    if (end > capacity) return;
    const int shift = static_cast<int>(reinterpret_cast<unsigned long long>(chars + base) & 15u);
    const bool staged = static_cast<long long>(end - base) + shift <= TWO_PASS_STAGE;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const uint64_t row = first + k * T + tid;
        if (sizes[k] == 0) continue;
        const Acc at = starts[k * T + tid];
        Writer w{staged ? stage + shift + (at - base) : chars + at, 0, static_cast<long long>(at)};
        RowPlan<F>::write(f, row, plans[k], w);
    }
    if (staged) {
        __syncthreads();
        flush_stage(stage, chars + base, static_cast<long long>(end - base), shift);
    }
}


// Early publish: the tile's aggregate is published right after its local scan, the
// rows are written into the stage at tile-relative positions, and only then does warp
// 0 look back; the flush realigns the stage to the output's alignment.
template <typename F, typename O, int ITEMS, int SPIN, int START, int STAGE = TWO_PASS_STAGE>
__device__ void one_pass_early(const F& f, uint64_t rows, uint64_t capacity, O* offsets, uint8_t* chars,
                               uint32_t* validity, unsigned long long* counts, uint64_t* error_word, void* state_mem,
                               uint64_t state_bytes) {
    constexpr int T = 256;
    constexpr int ROWS = T * ITEMS;
    typedef unsigned long long Acc;
    typedef ScanTuning<T, ITEMS, SPIN, START> Tuning;
    typedef cub::ScanTileState<Acc> TileState;
    typedef cub::TilePrefixCallbackOp<Acc, SumOp, TileState, typename Tuning::Delay> Prefix;
    typedef cub::BlockScan<Acc, T, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    __shared__ struct {
        typename Scanner::TempStorage scan;
        typename Prefix::TempStorage prefix;
    } temp;
    __shared__ Acc starts[ROWS];
    __shared__ Acc tile_base;
    __shared__ __align__(16) uint8_t stage[STAGE + 16];
    const int tiles = static_cast<int>((rows + ROWS - 1) / ROWS);
    const int tile = blockIdx.x;
    const unsigned tid = threadIdx.x;
    const uint64_t first = static_cast<uint64_t>(tile) * ROWS;
    int32_t sizes[ITEMS];
    typename RowPlan<F>::type plans[ITEMS];
    unsigned long long null_count = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const uint64_t row = first + k * T + tid;
        bool valid = false;
        int32_t size = 0;
        if (row < rows) size = size_row(f, row, error_word, valid, plans[k]);
        sizes[k] = size;
        starts[k * T + tid] = static_cast<Acc>(size);
        if (row - (tid & 31u) < rows) ballot_word(row, rows, valid, validity, null_count);
    }
    flush_count(counts, null_count);
    __syncthreads();
    Acc items[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) items[k] = starts[tid * ITEMS + k];
    Acc aggregate;
    Scanner(temp.scan).ExclusiveSum(items, items, aggregate);
    TileState state = scan_state<Acc>(state_mem, state_bytes, tiles);
    if (tid == 0 && tiles > 1) {
        if (tile == 0) state.SetInclusive(0, aggregate);
        else state.SetPartial(tile, aggregate);
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) starts[tid * ITEMS + k] = items[k];
    __syncthreads();
    const bool staged = aggregate <= STAGE;
    if (staged) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const uint64_t row = first + k * T + tid;
            if (sizes[k] == 0) continue;
            const Acc at = starts[k * T + tid];
            Writer w{stage + at, 0, 0};
            RowPlan<F>::write(f, row, plans[k], w);
        }
    }
    if (tile == 0) {
        if (tid == 0) tile_base = 0;
    } else if (tid < 32) {
        Prefix prefix(state, temp.prefix, SumOp{}, tile);
        const Acc before = prefix(aggregate);
        if (tid == 0) tile_base = before;
    }
    __syncthreads();
    const Acc base = tile_base;
    const Acc end = base + aggregate;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const uint64_t row = first + k * T + tid;
        if (row < rows) offsets[row] = static_cast<O>(base + starts[k * T + tid]);
    }
    if (tile == tiles - 1 && tid == 0) {
        offsets[rows] = static_cast<O>(end);
        counts[1] = end;
    }
    if (end > capacity) return;
    if (!staged) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const uint64_t row = first + k * T + tid;
            if (sizes[k] == 0) continue;
            const Acc at = base + starts[k * T + tid];
            Writer w{chars + at, 0, static_cast<long long>(at)};
            RowPlan<F>::write(f, row, plans[k], w);
        }
        return;
    }
    // Flush: output chunk c (16-byte aligned) holds stage bytes [16c - shift, +16).
    uint8_t* dst = chars + base;
    const int shift = static_cast<int>(reinterpret_cast<unsigned long long>(dst) & 15u);
    const long long n = static_cast<long long>(aggregate);
    const long long span = n + shift;
    const long long chunks = (span + 15) / 16;
    uint8_t* aligned = dst - shift;
    for (long long c = tid; c < chunks; c += T) {
        const long long a = c * 16;
        if (a >= shift && a + 16 <= span) {
            const int o = static_cast<int>(a - shift);
            const uint32_t* wp = reinterpret_cast<const uint32_t*>(stage + (o & ~3));
            const int r = 8 * (o & 3);
            const uint32_t w0 = wp[0], w1 = wp[1], w2 = wp[2], w3 = wp[3], w4 = r ? wp[4] : 0u;
            uint4 v;
            v.x = __funnelshift_r(w0, w1, r);
            v.y = __funnelshift_r(w1, w2, r);
            v.z = __funnelshift_r(w2, w3, r);
            v.w = __funnelshift_r(w3, w4, r);
            *reinterpret_cast<uint4*>(aligned + a) = v;
        } else {
            const long long lo = a > shift ? a : shift;
            const long long hi = a + 16 < span ? a + 16 : span;
            for (long long k = lo; k < hi; ++k) aligned[k] = stage[k - shift];
        }
    }
}

// The first plan version: byte loops, no registers kept for the name.
struct RedactBytes {
    StringInput names;
    StringInput visibility;
    const uint8_t* names_end;
    const uint8_t* visibility_end;
    struct Plan {
        const uint8_t* name;
        int space;
        int initial;
    };
    __device__ bool plan(uint64_t row, Plan& p, long long& size) const {
        p.name = nullptr;
        size = 3;
        if (!visibility.valid(row)) return true;
        const string_view v = visibility.get(row);
        if (!has_public(v.data, static_cast<int>(v.size))) return true;
        size = 0;
        if (!names.valid(row)) return false;
        const string_view name = names.get(row);
        long long space = -1;
        for (int q = 0; q < static_cast<int>(name.size); ++q)
            if (name.data[q] == ' ') {
                space = q;
                break;
            }
        if (space < 0) return false;
        p.name = name.data;
        p.space = static_cast<int>(space);
        p.initial = space + 1 < name.size && name[space + 1] != ' ' ? name.char_bytes_at(space + 1) : 0;
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
        w.bytes(p.name + p.space + 1, p.initial);
        w.byte(' ');
        w.bytes(p.name, p.space);
    }
};


}  // namespace lab

#define LAB(F, ITEMS, NAME)                                                                      \
    extern "C" __global__ void __launch_bounds__(256) NAME(F f, uint64_t rows, uint64_t capacity, int32_t* offsets, \
                                                          uint8_t* chars, uint32_t* validity, unsigned long long* counts, \
                                                          uint64_t* error_word, void* state, uint64_t state_bytes) { \
        lab::one_pass_n<F, int32_t, ITEMS>(f, rows, capacity, offsets, chars, validity, counts, error_word, state, \
                                           state_bytes);                                         \
    }
#define LABX(F, ITEMS, FN, SPIN, START, NAME)                                                   \
    extern "C" __global__ void __launch_bounds__(256) NAME(F f, uint64_t rows, uint64_t capacity, int32_t* offsets, \
                                                          uint8_t* chars, uint32_t* validity, unsigned long long* counts, \
                                                          uint64_t* error_word, void* state, uint64_t state_bytes) { \
        lab::FN<F, int32_t, ITEMS, SPIN, START>(f, rows, capacity, offsets, chars, validity, counts, error_word, state, \
                                                state_bytes);                                    \
    }
LABX(Redact, 2, one_pass_n, 100, 0, late_2_100_0)
LABX(Redact, 2, one_pass_n, 648, 0, late_2_648_0)
LABX(Redact, 2, one_pass_early, 648, 1245, early_2_648_1245)
LABX(Redact, 2, one_pass_early, 100, 0, early_2_100_0)
LABX(Redact, 2, one_pass_early, 350, 0, early_2_350_0)
LABX(Redact, 4, one_pass_early, 100, 0, early_4_100_0)
LABX(lab::RedactBytes, 2, one_pass_early, 100, 0, early_bytes_2_100_0)
LABX(lab::RedactBytes, 4, one_pass_early, 100, 0, early_bytes_4_100_0)
LABX(Redact, 2, one_pass_early, 100, 0, early_indep_2)
LABX(Redact, 4, one_pass_early, 100, 0, early_indep_4)
LABX(Redact, 2, one_pass_n, 648, 1245, late_indep_2)
extern "C" __global__ void __launch_bounds__(256, 8) early_indep_2_lb8(Redact f, uint64_t rows, uint64_t capacity, int32_t* offsets,
                                                          uint8_t* chars, uint32_t* validity, unsigned long long* counts,
                                                          uint64_t* error_word, void* state, uint64_t state_bytes) {
    lab::one_pass_early<Redact, int32_t, 2, 100, 0, 8192>(f, rows, capacity, offsets, chars, validity, counts, error_word, state, state_bytes);
}
extern "C" __global__ void __launch_bounds__(256) early_indep_2_s8(Redact f, uint64_t rows, uint64_t capacity, int32_t* offsets,
                                                          uint8_t* chars, uint32_t* validity, unsigned long long* counts,
                                                          uint64_t* error_word, void* state, uint64_t state_bytes) {
    lab::one_pass_early<Redact, int32_t, 2, 100, 0, 8192>(f, rows, capacity, offsets, chars, validity, counts, error_word, state, state_bytes);
}

typedef void (*Kernel)(Redact, uint64_t, uint64_t, int32_t*, uint8_t*, uint32_t*, unsigned long long*, uint64_t*, void*,
                       uint64_t);
typedef void (*KernelB)(lab::RedactBytes, uint64_t, uint64_t, int32_t*, uint8_t*, uint32_t*, unsigned long long*,
                        uint64_t*, void*, uint64_t);

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void init_state(void* mem, uint64_t bytes, int tiles) {
    cub::ScanTileState<unsigned long long> s = ragged::scan_state<unsigned long long>(mem, bytes, tiles);
    s.InitializeStatus(tiles);
}

int main(int argc, char** argv) {
    const uint64_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 60000000ull;
    // Names "First Last" (3-10 and 3-12 letters, capitalized), visibility public/private.
    std::vector<int32_t> no(n + 1), vo(n + 1);
    std::string nc, vc;
    nc.reserve(n * 16);
    vc.reserve(n * 7);
    uint64_t x = 88172645463325252ull;
    auto rnd = [&](int m) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return static_cast<int>(x % m); };
    for (uint64_t i = 0; i < n; ++i) {
        no[i] = nc.size();
        vo[i] = vc.size();
        int a = 3 + rnd(8), b = 3 + rnd(10);
        nc.push_back('A' + rnd(26));
        for (int k = 1; k < a; ++k) nc.push_back('a' + rnd(26));
        nc.push_back(' ');
        nc.push_back('A' + rnd(26));
        for (int k = 1; k < b; ++k) nc.push_back('a' + rnd(26));
        vc += rnd(2) ? "public" : "private";
    }
    no[n] = nc.size();
    vo[n] = vc.size();
    int32_t *d_no, *d_vo, *d_off;
    uint8_t *d_nc, *d_vc, *d_out;
    uint32_t* d_valid;
    unsigned long long* d_counts;
    uint64_t* d_err;
    CK(cudaMalloc(&d_no, 4 * (n + 1)));
    CK(cudaMalloc(&d_vo, 4 * (n + 1)));
    CK(cudaMalloc(&d_off, 4 * (n + 1)));
    CK(cudaMalloc(&d_nc, nc.size()));
    CK(cudaMalloc(&d_vc, vc.size()));
    const uint64_t capacity = nc.size() + 3 * n;
    CK(cudaMalloc(&d_out, capacity));
    CK(cudaMalloc(&d_valid, 4 * (n / 32 + 1)));
    CK(cudaMalloc(&d_counts, 16));
    CK(cudaMalloc(&d_err, 8));
    CK(cudaMemcpy(d_no, no.data(), 4 * (n + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_vo, vo.data(), 4 * (n + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_nc, nc.data(), nc.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_vc, vc.data(), vc.size(), cudaMemcpyHostToDevice));
    StringInput names{d_no, d_nc, nullptr, 0, 0, 0}, vis{d_vo, d_vc, nullptr, 0, 0, 0};
    Redact f{names, vis};
    lab::RedactBytes fb{names, vis, d_nc + nc.size(), d_vc + vc.size()};
    // Copy rate.
    void *ca, *cb;
    const size_t cbytes = 1ull << 30;
    CK(cudaMalloc(&ca, cbytes));
    CK(cudaMalloc(&cb, cbytes));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = 1e9;
    for (int r = 0; r < 10; ++r) {
        cudaEventRecord(e0);
        cudaMemcpyAsync(cb, ca, cbytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        best = ms < best ? ms : best;
    }
    const double copy = 2.0 * cbytes / (best * 1e-3) / 1e9;
    printf("copy %.1f GB/s\n", copy);
    std::vector<int32_t> ref_off;
    std::vector<uint8_t> ref_chars;
    struct V { const char* name; int items; Kernel k; KernelB kb; };
    V vs[] = {{"library redact_one_pass_i32", 2, redact_one_pass_i32, nullptr},
              {"late x2 100/0", 2, late_2_100_0, nullptr},
              {"late x2 648/0", 2, late_2_648_0, nullptr},
              {"early x2 648/1245", 2, early_2_648_1245, nullptr},
              {"early x2 100/0", 2, early_2_100_0, nullptr},
              {"early x2 350/0", 2, early_2_350_0, nullptr},
              {"early x4 100/0", 4, early_4_100_0, nullptr},
              {"early bytes x2 100/0", 2, nullptr, early_bytes_2_100_0},
              {"early bytes x4 100/0", 4, nullptr, early_bytes_4_100_0},
              {"early indep x2", 2, early_indep_2, nullptr},
              {"early indep x4", 4, early_indep_4, nullptr},
              {"late indep x2 (library scan)", 2, late_indep_2, nullptr},
              {"early indep x2 stage 8K", 2, early_indep_2_s8, nullptr},
              {"early indep x2 stage 8K lb8", 2, early_indep_2_lb8, nullptr}};
    void* state = nullptr;
    size_t state_cap = 0;
    for (auto& v : vs) {
        if (argc > 2 && !strstr(v.name, argv[2]) && v.k != redact_one_pass_i32) continue;
        const int rows_per_tile = 256 * v.items;
        const int tiles = static_cast<int>((n + rows_per_tile - 1) / rows_per_tile);
        size_t bytes = 0;
        cub::ScanTileState<unsigned long long>::AllocationSize(tiles, bytes);
        if (bytes > state_cap) {
            if (state) cudaFree(state);
            CK(cudaMalloc(&state, bytes));
            state_cap = bytes;
        }
        float t = 1e9;
        for (int r = 0; r < 7; ++r) {
            cudaMemset(d_counts, 0, 16);
            cudaEventRecord(e0);
            init_state<<<(tiles + 32 + 255) / 256, 256>>>(state, bytes, tiles);
            if (v.k) v.k<<<tiles, 256>>>(f, n, capacity, d_off, d_out, d_valid, d_counts, d_err, state, bytes);
            else v.kb<<<tiles, 256>>>(fb, n, capacity, d_off, d_out, d_valid, d_counts, d_err, state, bytes);
            cudaEventRecord(e1);
            CK(cudaEventSynchronize(e1));
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r > 0 && ms < t) t = ms;
        }
        unsigned long long counts[2];
        CK(cudaMemcpy(counts, d_counts, 16, cudaMemcpyDeviceToHost));
        std::vector<int32_t> off(n + 1);
        std::vector<uint8_t> chars(counts[1]);
        CK(cudaMemcpy(off.data(), d_off, 4 * (n + 1), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(chars.data(), d_out, counts[1], cudaMemcpyDeviceToHost));
        const char* same = "reference";
        if (ref_off.empty()) {
            ref_off = off;
            ref_chars = chars;
            // Spot check against the rule.
            for (uint64_t i = 0; i < n; i += n / 7 + 1) {
                std::string name = nc.substr(no[i], no[i + 1] - no[i]), v = vc.substr(vo[i], vo[i + 1] - vo[i]);
                std::string want = v == "public" ? std::string(1, name[name.find(' ') + 1]) + " " + name.substr(0, name.find(' ')) : "X X";
                std::string got(chars.begin() + off[i], chars.begin() + off[i + 1]);
                if (got != want) { printf("row %llu: %s != %s\n", (unsigned long long)i, got.c_str(), want.c_str()); exit(1); }
            }
        } else {
            same = (off == ref_off && chars == ref_chars) ? "same" : "DIFFERENT";
        }
        const double io = (nc.size() + 4.0 * (n + 1)) + (vc.size() + 4.0 * (n + 1)) + (counts[1] + 4.0 * (n + 1));
        printf("%-30s %8.3f ms %8.1f GB/s %.3f x copy  nulls %llu  %s\n", v.name, t, io / (t * 1e-3) / 1e9,
               io / (t * 1e-3) / 1e9 / copy, counts[0], same);
    }
    // The library's flow around the kernel: stream-ordered allocations from a pool that
    // keeps its memory, the state init, the kernel, the counts read back, the frees.
    {
        cudaMemPool_t pool;
        CK(cudaDeviceGetDefaultMemPool(&pool, 0));
        uint64_t threshold = ~0ull;
        CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
        cudaStream_t st;
        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
        const int tiles = static_cast<int>((n + 511) / 512);
        size_t bytes = 0;
        cub::ScanTileState<unsigned long long>::AllocationSize(tiles, bytes);
        // Modes: 0 allocs + init + kernel; 1 + read-back; 2 + frees in the timing;
        // 3 the pool's buffers allocated once, before the runs (init + kernel timed);
        // 4 the output, offsets and validity allocated once from the pool, the tile state
        //   and counters per run (+ read-back, frees);
        // 5 as 2, with the time up to the end of the allocations reported apart.
        const char* names[] = {"allocs + init + kernel", "+ read-back", "+ frees in the timing",
                               "pool buffers made once", "big buffers once, small per run",
                               "as 2, allocations apart"};
        cudaEvent_t em;
        cudaEventCreate(&em);
        for (int mode = 0; mode < 6; ++mode) {
            float t = 1e9, ta = 1e9;
            uint8_t* out = nullptr; int32_t* off = nullptr; uint32_t* valid = nullptr; void* stt = nullptr;
            unsigned long long* cnt = nullptr;
            if (mode == 3 || mode == 4) {
                CK(cudaMallocAsync(&out, capacity, st));
                CK(cudaMallocAsync(&off, 4 * (n + 1), st));
                CK(cudaMallocAsync(&valid, 4 * (n / 32 + 1), st));
                if (mode == 3) {
                    CK(cudaMallocAsync(&stt, bytes, st));
                    CK(cudaMallocAsync(&cnt, 24, st));
                }
                CK(cudaStreamSynchronize(st));
            }
            for (int r = 0; r < 7; ++r) {
                cudaEventRecord(e0, st);
                if (mode != 3 && mode != 4) {
                    CK(cudaMallocAsync(&out, capacity, st));
                    CK(cudaMallocAsync(&off, 4 * (n + 1), st));
                    CK(cudaMallocAsync(&valid, 4 * (n / 32 + 1), st));
                }
                if (mode != 3) {
                    CK(cudaMallocAsync(&stt, bytes, st));
                    CK(cudaMallocAsync(&cnt, 24, st));
                }
                cudaEventRecord(em, st);
                CK(cudaMemsetAsync(cnt, 0, 24, st));
                init_state<<<(tiles + 32 + 255) / 256, 256, 0, st>>>(stt, bytes, tiles);
                redact_one_pass_i32<<<tiles, 256, 0, st>>>(f, n, capacity, off, out, valid, cnt, (uint64_t*)(cnt + 2), stt, bytes);
                unsigned long long host[3];
                if (mode == 1 || mode == 2 || mode == 4 || mode == 5) {
                    CK(cudaMemcpyAsync(host, cnt, 24, cudaMemcpyDeviceToHost, st));
                    CK(cudaStreamSynchronize(st));
                }
                if (mode == 2 || mode == 5) {
                    cudaFreeAsync(out, st); cudaFreeAsync(off, st); cudaFreeAsync(valid, st);
                }
                if (mode == 2 || mode == 4 || mode == 5) {
                    cudaFreeAsync(stt, st); cudaFreeAsync(cnt, st);
                }
                cudaEventRecord(e1, st);
                CK(cudaEventSynchronize(e1));
                if (mode < 2) { cudaFree(out); cudaFree(off); cudaFree(valid); cudaFree(stt); cudaFree(cnt); }
                float ms, ma;
                cudaEventElapsedTime(&ms, e0, e1);
                cudaEventElapsedTime(&ma, e0, em);
                if (r > 0 && ms < t) { t = ms; ta = ma; }
            }
            if (mode == 3 || mode == 4) {
                cudaFreeAsync(out, st); cudaFreeAsync(off, st); cudaFreeAsync(valid, st);
                if (mode == 3) { cudaFreeAsync(stt, st); cudaFreeAsync(cnt, st); }
                CK(cudaStreamSynchronize(st));
            }
            printf("flow mode %d (%s): %.3f ms (allocations %.3f ms)\n", mode, names[mode], t, ta);
        }
    }
    return 0;
}
