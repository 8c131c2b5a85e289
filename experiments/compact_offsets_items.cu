// compact_offsets_items: times the library's compact_offsets_i64_i64 kernel (with its
// tile-state initialization, as the op runs it) on the data of `ragged bench --suite
// lists` (2^28 lists of hash(6, j) % 9 elements, one element apart) for the lists per
// thread given at build time, and prints it as a fraction of the device-to-device copy
// rate of the same run; checks the offsets against a host prefix. Not part of the
// library. Build and run, once per value:
//   scripts/gpu-experiment.sh compact_offsets_items -DRAGGED_COMPACT_ITEMS_I64=12
// or by hand: nvcc -O3 -std=c++17 -arch=sm_90 -I crates/ragged-cuda/kernels
//   -I <cuda>/include/cccl -DRAGGED_COMPACT_ITEMS_I64=12 -o compact_offsets_items
//   experiments/compact_offsets_items.cu
#include "lists/compact_offsets.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "check.cuh"

static uint64_t hash(uint64_t seed, uint64_t i) {
    uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <typename F> static double median_ms(F f) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> times;
    for (int r = 0; r < 23; ++r) {
        CHECK(cudaEventRecord(a));
        f();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 3) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

int main() {
    const uint64_t n = 1ull << 28;
    std::vector<int64_t> starts(n), stops(n);
    long long end = 0;
    for (uint64_t j = 0; j < n; ++j) {
        starts[j] = end + 1;
        end = starts[j] + static_cast<long long>(hash(6, j) % 9);
        stops[j] = end;
    }
    int64_t *d_starts, *d_stops, *d_out;
    long long* d_total;
    uint64_t* d_word;
    CHECK(cudaMalloc(&d_starts, n * 8));
    CHECK(cudaMalloc(&d_stops, n * 8));
    CHECK(cudaMalloc(&d_out, (n + 1) * 8));
    CHECK(cudaMalloc(&d_total, 8));
    CHECK(cudaMalloc(&d_word, 8));
    CHECK(cudaMemcpy(d_starts, starts.data(), n * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_stops, stops.data(), n * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_word, 0xff, 8));
    const int tile = SCAN_THREADS * CompactItems<int64_t>::value;
    const int tiles = static_cast<int>((n + tile - 1) / tile);
    const uint64_t state_bytes = (static_cast<uint64_t>(tiles) + 32) * 48 + 1024;
    void* d_state;
    CHECK(cudaMalloc(&d_state, state_bytes));

    const double copy_ms = median_ms([&] { CHECK(cudaMemcpyAsync(d_out, d_starts, n * 8, cudaMemcpyDeviceToDevice)); });
    const double copy = 2.0 * n * 8 / (copy_ms * 1e-3) / 1e9;
    const double ms = median_ms([&] {
        scan_state_init_acc_i64<<<(tiles + 255) / 256, 256>>>(d_state, state_bytes, tiles);
        compact_offsets_i64_i64<<<tiles, SCAN_THREADS>>>(d_starts, d_stops, nullptr, 0, n, end, d_out, d_state,
                                                         state_bytes, d_word, d_total);
    });
    CHECK(cudaGetLastError());
    std::vector<int64_t> out(n + 1);
    CHECK(cudaMemcpy(out.data(), d_out, (n + 1) * 8, cudaMemcpyDeviceToHost));
    uint64_t word = 0;
    CHECK(cudaMemcpy(&word, d_word, 8, cudaMemcpyDeviceToHost));
    int64_t acc = 0;
    bool ok = out[0] == 0 && word == ~0ull;
    for (uint64_t j = 0; j < n && ok; ++j) {
        acc += stops[j] - starts[j];
        ok = out[j + 1] == acc;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const double gbs = (24.0 * n + 8) / (ms * 1e-3) / 1e9;
    printf("%s: items %d, copy %.0f GB/s, compact_offsets_i64_i64 %.3f ms %.0f GB/s %.3f x copy, %s\n", prop.name,
           CompactItems<int64_t>::value, copy, ms, gbs, gbs / copy, ok ? "offsets ok" : "OFFSETS WRONG");
    return ok ? 0 : 1;
}
