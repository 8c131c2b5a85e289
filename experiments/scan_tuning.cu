// scan_tuning: times tile-scan and select shapes built from the library's own headers
// (kernels/common/scan.cuh) against cub::DeviceScan / cub::DeviceSelect at 2^28
// values on the GPU it runs on, and prints each as a fraction of the device-to-device
// copy rate measured in the same run. Used to choose ScanTuning values; not part of
// the library. Build and run: scripts/gpu-experiment.sh scan_tuning [-- f32lib]
// (f32lib: only the library's f32 scan_sum restated with switches, on random values),
// or by hand: nvcc -O3 -std=c++17 -arch=sm_90 -I crates/ragged-cuda/kernels
//   -I <cuda>/include/cccl -o scan_tuning experiments/scan_tuning.cu
#include "common/primitives.cuh"
#include "common/scan.cuh"
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <algorithm>
#include <cmath>
#include <string>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "check.cuh"

using namespace ragged;

struct NoTotal {
    template <typename A> __device__ void operator()(const A&) const {}
};

template <typename Acc> __global__ void init_state(void* mem, uint64_t bytes, int tiles) {
    cub::ScanTileState<Acc> state = scan_state<Acc>(mem, bytes, tiles);
    state.InitializeStatus(tiles);
}

template <typename Tuning, typename In, typename Acc, typename Out>
__global__ void __launch_bounds__(Tuning::THREADS) scan_kernel(const In* in, uint64_t n, Out* out, void* state,
                                                               uint64_t state_bytes) {
    auto load = [](uint64_t, In x) -> Acc { return static_cast<Acc>(x); };
    auto convert = [](uint64_t, Acc v) -> Out { return static_cast<Out>(v); };
    scan_tile<Tuning, In, Acc, Out>(in, n, out, state, state_bytes, false, Acc(0), SumOp(), load, convert, NoTotal());
}

static double g_copy = 0;  // GB/s counting read + write

template <typename F> double time_ms(F f, int runs = 20) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    f();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < runs; ++r) {
        CHECK(cudaEventRecord(a));
        f();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void report(const char* name, double ms, double bytes) {
    const double gbs = bytes / (ms * 1e-3) / 1e9;
    printf("%-58s %9.1f us %8.0f GB/s %6.3f x copy\n", name, ms * 1e3, gbs, gbs / g_copy);
}

void* g_state;
size_t g_state_bytes = 64 << 20;

template <typename Tuning, typename In, typename Acc, typename Out>
void run_scan(const char* name, const In* in, uint64_t n, Out* out, const Out* expect_last_ptr, Out expect) {
    const int tiles = (int)((n + Tuning::TILE - 1) / Tuning::TILE);
    auto f = [&] {
        init_state<Acc><<<(tiles + 255) / 256, 256>>>(g_state, g_state_bytes, tiles);
        scan_kernel<Tuning, In, Acc, Out><<<tiles, Tuning::THREADS>>>(in, n, out, g_state, g_state_bytes);
    };
    const double ms = time_ms(f);
    CHECK(cudaGetLastError());
    Out last;
    CHECK(cudaMemcpy(&last, out + n - 1, sizeof(Out), cudaMemcpyDeviceToHost));
    char label[128];
    snprintf(label, sizeof label, "%s%s", name, (double)last == (double)expect ? "" : " WRONG");
    report(label, ms, n * (sizeof(In) + sizeof(Out)));
}


/// The library's f32 scan_sum (primitives/scan.cu) restated with switches: CHECK_VALIDITY
/// tests every row's validity bit as the library does (a null bitmap pointer here);
/// EXCL 0 / 1 fixes inclusive / exclusive at compile time, 2 reads it at run time as the
/// library does.
template <typename Tuning, bool CHECK_VALIDITY, int EXCL>
__global__ void __launch_bounds__(Tuning::THREADS) lib_scan_f32(const float* values, const uint8_t* validity,
                                                                 uint64_t bit_offset, uint64_t n, float* out, void* state,
                                                                 uint64_t state_bytes, uint32_t exclusive) {
    auto load = [=](uint64_t row, float x) -> float {
        if (CHECK_VALIDITY) return is_valid(validity, bit_offset, row) ? x : 0.0f;
        return x;
    };
    auto convert = [](uint64_t, float v) -> float { return v; };
    const bool excl = EXCL == 2 ? exclusive != 0 : EXCL == 1;
    scan_tile<Tuning, float, float, float>(values, n, out, state, state_bytes, excl, 0.0f, SumOp(), load, convert,
                                           NoTotal());
}

template <typename Tuning, bool CHECK_VALIDITY, int EXCL>
void run_lib_f32(const char* name, const float* in, uint64_t n, float* out, const std::vector<float>& expect_prefix) {
    const int tiles = (int)((n + Tuning::TILE - 1) / Tuning::TILE);
    auto f = [&] {
        init_state<float><<<(tiles + 255) / 256, 256>>>(g_state, g_state_bytes, tiles);
        lib_scan_f32<Tuning, CHECK_VALIDITY, EXCL><<<tiles, Tuning::THREADS>>>(in, nullptr, 0, n, out, g_state,
                                                                              g_state_bytes, EXCL != 0 ? 1u : 0u);
    };
    const double ms = time_ms(f, 40);
    CHECK(cudaGetLastError());
    // Spot checks against a double-precision prefix (exclusive or inclusive).
    bool ok = true;
    for (uint64_t i : {0ull, 1ull, 4095ull, 1000003ull, (unsigned long long)n - 1}) {
        float got;
        CHECK(cudaMemcpy(&got, out + i, 4, cudaMemcpyDeviceToHost));
        const double want = expect_prefix[EXCL != 0 ? i : i + 1];
        if (std::abs(got - want) > 1e-3 * (1.0 + std::abs(want))) ok = false;
    }
    char label[128];
    snprintf(label, sizeof label, "%s%s", name, ok ? "" : " WRONG");
    report(label, ms, n * 8.0);
}

// ---- select variants --------------------------------------------------------------

/// The select kernel as shipped (primitives/select.cu), restated with a tuning.
template <int THREADS, int ITEMS, bool ROWS_IN_SMEM, typename T, int SPIN = 350, int START = 450>
__global__ void __launch_bounds__(THREADS) select_kernel(const T* values, uint64_t n, T threshold, T* out,
                                                         uint64_t* rows_out, void* state_mem, uint64_t state_bytes,
                                                         unsigned long long* count_out) {
    constexpr int TILE = THREADS * ITEMS;
    typedef cub::ScanTileState<long long> TileState;
    typedef cub::TilePrefixCallbackOp<long long, SumOp, TileState, cub::detail::fixed_delay_constructor_t<SPIN, START>> Prefix;
    typedef cub::BlockLoad<T, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> Loader;
    typedef cub::BlockScan<int, THREADS, cub::BLOCK_SCAN_WARP_SCANS> Scanner;
    __shared__ union {
        typename Loader::TempStorage load;
        struct {
            typename Scanner::TempStorage scan;
            typename Prefix::TempStorage prefix;
        } scan;
        struct {
            T values[TILE];
            uint32_t rows[ROWS_IN_SMEM ? TILE : 1];
        } compact;
    } temp;
    __shared__ long long tile_start;
    __shared__ int tile_count;
    const int tiles = static_cast<int>((n + TILE - 1) / TILE);
    TileState state = scan_state<long long>(state_mem, state_bytes, tiles);
    const int tile = blockIdx.x;
    const uint64_t base = static_cast<uint64_t>(tile) * TILE;
    const uint64_t remaining = n - base;
    T raw[ITEMS];
    int flags[ITEMS];
    if (remaining >= TILE) {
        Loader(temp.load).Load(values + base, raw);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) flags[k] = compare(raw[k], 2u, threshold) ? 1 : 0;
    } else {
        Loader(temp.load).Load(values + base, raw, static_cast<int>(remaining), T(0));
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const uint64_t row = base + threadIdx.x * ITEMS + k;
            flags[k] = (row < n && compare(raw[k], 2u, threshold)) ? 1 : 0;
        }
    }
    __syncthreads();
    int positions[ITEMS];
    int aggregate;
    Scanner(temp.scan.scan).ExclusiveSum(flags, positions, aggregate);
    if (tile == 0) {
        if (threadIdx.x == 0) {
            if (tiles > 1) state.SetInclusive(0, static_cast<long long>(aggregate));
            tile_start = 0;
        }
    } else if (threadIdx.x < 32) {
        Prefix prefix(state, temp.scan.prefix, SumOp(), tile);
        const long long exclusive = prefix(static_cast<long long>(aggregate));
        if (threadIdx.x == 0) tile_start = exclusive;
    }
    if (threadIdx.x == 0) tile_count = aggregate;
    __syncthreads();
    if (tile == tiles - 1 && threadIdx.x == 0) count_out[0] = tile_start + tile_count;
    const long long local_start = tile_start;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        if (flags[k]) {
            temp.compact.values[positions[k]] = raw[k];
            if (ROWS_IN_SMEM) temp.compact.rows[positions[k]] = threadIdx.x * ITEMS + k;
        }
    }
    __syncthreads();
    const int count = tile_count;
    T* dst = out + local_start;
    for (int j = threadIdx.x; j < count; j += THREADS) {
        dst[j] = temp.compact.values[j];
        if (ROWS_IN_SMEM && rows_out != nullptr) rows_out[local_start + j] = base + temp.compact.rows[j];
    }
}

template <int THREADS, int ITEMS, bool ROWS, typename T, int SPIN = 350, int START = 450>
void run_select(const char* name, const T* in, uint64_t n, T threshold, T* out, unsigned long long* count,
                unsigned long long expect) {
    constexpr int TILE = THREADS * ITEMS;
    const int tiles = (int)((n + TILE - 1) / TILE);
    auto f = [&] {
        init_state<long long><<<(tiles + 255) / 256, 256>>>(g_state, g_state_bytes, tiles);
        select_kernel<THREADS, ITEMS, ROWS, T, SPIN, START><<<tiles, THREADS>>>(in, n, threshold, out, nullptr, g_state,
                                                                    g_state_bytes, count);
    };
    const double ms = time_ms(f);
    CHECK(cudaGetLastError());
    unsigned long long got;
    CHECK(cudaMemcpy(&got, count, 8, cudaMemcpyDeviceToHost));
    char label[128];
    snprintf(label, sizeof label, "%s%s", name, got == expect ? "" : " WRONG");
    report(label, ms, n * sizeof(T) + expect * sizeof(T));
}

struct LessThan {
    int t;
    __device__ bool operator()(int x) const { return x < t; }
};

int main(int argc, char** argv) {
    const uint64_t n = 1ull << 28;
    int *in_i, *sel_out;
    long long* out_l;
    float *in_f, *out_f;
    unsigned long long* count;
    CHECK(cudaMalloc(&in_i, n * 4));
    CHECK(cudaMalloc(&in_f, n * 4));
    CHECK(cudaMalloc(&out_l, n * 8));
    CHECK(cudaMalloc(&out_f, n * 4));
    CHECK(cudaMalloc(&sel_out, n * 4));
    CHECK(cudaMalloc(&count, 8));
    CHECK(cudaMalloc(&g_state, g_state_bytes));
    std::vector<int> host(n);
    unsigned s = 12345;
    unsigned long long below = 0;
    long long total = 0;
    for (uint64_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        host[i] = (int)(s >> 8);  // 0 .. 2^24
        below += host[i] < (1 << 23);
        total += host[i];
    }
    CHECK(cudaMemcpy(in_i, host.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<float> hf(n, 1.0f);
    CHECK(cudaMemcpy(in_f, hf.data(), n * 4, cudaMemcpyHostToDevice));
    // Copy rate.
    const double copy_ms = time_ms([&] { CHECK(cudaMemcpyAsync(out_l, in_i, n * 4, cudaMemcpyDeviceToDevice)); });
    g_copy = 2.0 * n * 4 / (copy_ms * 1e-3) / 1e9;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs; copy %.0f GB/s (1 GiB d2d)\n", prop.name, prop.multiProcessorCount, g_copy);

    if (argc > 1 && std::string(argv[1]) == "f32lib") {
        // The library's f32 scan on random values in [0, 1), shipped shape first.
        std::vector<float> rf(n);
        std::vector<float> prefix_f(n + 1);
        double acc = 0;
        for (uint64_t i = 0; i < n; ++i) {
            s = s * 1664525u + 1013904223u;
            rf[i] = (float)(s >> 8) / 16777216.0f;
            prefix_f[i] = (float)acc;
            acc += rf[i];
        }
        prefix_f[n] = (float)acc;
        CHECK(cudaMemcpy(in_f, rf.data(), n * 4, cudaMemcpyHostToDevice));
        {
            size_t temp_bytes = 0;
            void* temp = nullptr;
            cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in_f, out_f, (int64_t)n);
            CHECK(cudaMalloc(&temp, temp_bytes));
            double ms = time_ms([&] { cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in_f, out_f, (int64_t)n); }, 40);
            report("cub::DeviceScan::ExclusiveSum f32 random", ms, n * 8.0);
        }
#define LIB_F(T, I, SP, ST, V, E) \
    run_lib_f32<ScanTuning<T, I, SP, ST>, V, E>("lib f32 " #T "x" #I " " #SP "/" #ST " validity " #V " excl " #E, in_f, n, out_f, prefix_f)
        for (int rep = 0; rep < 2; ++rep) {
            LIB_F(128, 24, 648, 1245, true, 2);
            LIB_F(128, 24, 648, 1245, true, 1);
            LIB_F(128, 24, 648, 1245, false, 1);
            LIB_F(128, 24, 648, 1245, false, 0);
            LIB_F(128, 28, 688, 1140, true, 2);
            LIB_F(128, 28, 688, 1140, false, 1);
            LIB_F(128, 32, 688, 1140, true, 2);
            LIB_F(128, 32, 688, 1140, false, 1);
            LIB_F(128, 28, 648, 1245, false, 1);
            LIB_F(256, 16, 648, 1245, false, 1);
            LIB_F(128, 20, 648, 1245, false, 1);
        }
        return 0;
    }

    // CUB reference scans.
    {
        size_t temp_bytes = 0;
        void* temp = nullptr;
        cub::DeviceScan::InclusiveSum(temp, temp_bytes, in_i, out_l, n);
        CHECK(cudaMalloc(&temp, temp_bytes));
        double ms = time_ms([&] { cub::DeviceScan::InclusiveSum(temp, temp_bytes, in_i, out_l, (int64_t)n); });
        report("cub::DeviceScan::InclusiveSum i32->i64", ms, n * 12.0);
        ms = time_ms([&] { cub::DeviceScan::InclusiveSum(temp, temp_bytes, in_i, sel_out, (int64_t)n); });
        report("cub::DeviceScan::InclusiveSum i32->i32", ms, n * 8.0);
        ms = time_ms([&] { cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in_f, out_f, (int64_t)n); });
        report("cub::DeviceScan::ExclusiveSum f32", ms, n * 8.0);
        size_t sel_bytes = 0;
        void* sel_temp = nullptr;
        cub::DeviceSelect::If(sel_temp, sel_bytes, in_i, sel_out, count, (int64_t)n, LessThan{1 << 23});
        CHECK(cudaMalloc(&sel_temp, sel_bytes));
        ms = time_ms([&] { cub::DeviceSelect::If(sel_temp, sel_bytes, in_i, sel_out, count, (int64_t)n, LessThan{1 << 23}); });
        report("cub::DeviceSelect::If i32 50%", ms, n * 4.0 + below * 4.0);
    }
    // i32 -> i64 inclusive sums (the shipped shape first).
#define SCAN_I(T, I, SP, ST) \
    run_scan<ScanTuning<T, I, SP, ST>, int, long long, long long>("scan i32->i64 " #T "x" #I " delay " #SP "/" #ST, in_i, n, out_l, nullptr, total)
    SCAN_I(128, 24, 648, 1245);
    SCAN_I(128, 28, 648, 1245);
    SCAN_I(128, 20, 648, 1245);
    SCAN_I(192, 20, 648, 1245);
    SCAN_I(128, 24, 400, 1245);
    SCAN_I(128, 24, 900, 1245);
    SCAN_I(128, 24, 648, 0);
    SCAN_I(128, 24, 100, 0);
    SCAN_I(128, 24, 350, 450);
    // f32 sums: the sum of 2^28 ones is not exact in f32 in any order (WRONG only
    // means another rounding of that total).
#define SCAN_F(T, I, SP, ST) \
    run_scan<ScanTuning<T, I, SP, ST>, float, float, float>("scan f32 " #T "x" #I " delay " #SP "/" #ST, in_f, n, out_f, nullptr, (float)n)
    SCAN_F(128, 24, 648, 1245);
    SCAN_F(128, 24, 688, 1140);
    SCAN_F(128, 32, 688, 1140);
    SCAN_F(128, 28, 688, 1140);
    SCAN_F(128, 20, 688, 1140);
    SCAN_F(192, 24, 688, 1140);
    SCAN_F(96, 32, 688, 1140);
    SCAN_F(128, 24, 1000, 1140);
    SCAN_F(128, 24, 648, 0);
    SCAN_F(128, 24, 100, 0);
    SCAN_F(128, 24, 350, 450);
    SCAN_F(128, 24, 648, 350);
    SCAN_F(128, 24, 648, 1245);
#define SEL(T, I, R, SP, ST) \
    run_select<T, I, R, int, SP, ST>("select i32 50% " #T "x" #I " rows " #R " delay " #SP "/" #ST, in_i, n, 1 << 23, sel_out, count, below)
    SEL(256, 16, false, 350, 450);
    SEL(256, 16, false, 76, 1150);
    SEL(384, 17, false, 76, 1150);
    SEL(128, 24, false, 76, 1150);
    SEL(256, 20, false, 76, 1150);
    SEL(384, 12, false, 76, 1150);
    SEL(512, 12, false, 76, 1150);
    return 0;
}
