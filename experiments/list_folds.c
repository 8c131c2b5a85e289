// list_folds.c: per-list folds of the CPU list reductions against alternatives
// (PERFORMANCE v0.30). 2^28 i32 values (the bench's values) in lists of uniform
// 0..2a elements (a = the average, argument, default 64), as the bench builds them.
//   ./lf branches [f]  one thread, sums: the AVX2 fold of crates/ragged-cpu/src/lists/
//                      simd.rs list by list ("loop"), against running sums of 8-value
//                      chunks per block of 4 096 values with each offset's prefix from
//                      one masked load ("prefix", no per-list loop); "f": lists of
//                      exactly a elements, so the loop's exit is always predicted
//   ./lf threads       all threads (OpenMP, 4 096 lists per piece), minima and sums:
//                      "loop" against a fixed fold of 16 plain vector loads per list of
//                      at most 128 elements, the lanes past its end masked ("plain")
// Build: gcc -O2 -mavx2 -fopenmp -o lf experiments/list_folds.c
//   OMP_NUM_THREADS=1 ./lf branches 64; ./lf branches 64 f; ./lf threads 64
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t h(uint64_t seed, uint64_t i) {
    uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static const int32_t LANES[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
static inline __m256i first_lanes(size_t r) { return _mm256_loadu_si256((const __m256i*)(LANES + 8 - r % 8)); }
__attribute__((target("avx2"))) static inline int64_t hsum64(__m256i s) {
    __m128i q = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return _mm_cvtsi128_si64(_mm_add_epi64(q, _mm_unpackhi_epi64(q, q)));
}
__attribute__((target("avx2"))) static inline __m256i widen_add(__m256i acc, __m256i x) {
    acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(x)));
    return _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(x, 1)));
}
__attribute__((target("avx2"))) static inline int64_t hsum8(__m256i x) { return hsum64(widen_add(_mm256_setzero_si256(), x)); }
__attribute__((target("avx2"))) static inline int32_t hmin(__m256i acc) {
    __m128i q = _mm_min_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    q = _mm_min_epi32(q, _mm_shuffle_epi32(q, 0x4e));
    return _mm_cvtsi128_si32(_mm_min_epi32(q, _mm_shuffle_epi32(q, 0xb1)));
}
// simd.rs's folds: whole vectors, then the last 0..7 elements by one masked load.
__attribute__((target("avx2"))) static inline int64_t sum_loop(const int32_t* p, size_t n) {
    size_t w = n / 8;
    __m256i acc = _mm256_setzero_si256();
    for (size_t k = 0; k < w; k++) acc = widen_add(acc, _mm256_loadu_si256((const __m256i*)(p + 8 * k)));
    return hsum64(widen_add(acc, _mm256_maskload_epi32(p + 8 * w, first_lanes(n % 8))));
}
__attribute__((target("avx2"))) static inline int32_t min_loop(const int32_t* p, size_t n) {
    __m256i id = _mm256_set1_epi32(INT32_MAX), acc = id;
    size_t w = n / 8;
    for (size_t k = 0; k < w; k++) acc = _mm256_min_epi32(acc, _mm256_loadu_si256((const __m256i*)(p + 8 * k)));
    __m256i l = first_lanes(n % 8);
    return hmin(_mm256_min_epi32(acc, _mm256_blendv_epi8(id, _mm256_maskload_epi32(p + 8 * w, l), l)));
}
// Fixed folds: 16 vectors from the list's start, lanes at or past n masked.
__attribute__((target("avx2"))) static inline __m256i fixed_lanes(int n, int k) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_add_epi32(_mm256_set1_epi32(8 * k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}
__attribute__((target("avx2"))) static inline int64_t sum_plain(const int32_t* p, int n) {
    __m256i acc = _mm256_setzero_si256();
    for (int k = 0; k < 16; k++) acc = widen_add(acc, _mm256_and_si256(fixed_lanes(n, k), _mm256_loadu_si256((const __m256i*)(p + 8 * k))));
    return hsum64(acc);
}
__attribute__((target("avx2"))) static inline int32_t min_plain(const int32_t* p, int n) {
    __m256i id = _mm256_set1_epi32(INT32_MAX), acc = id;
    for (int k = 0; k < 16; k++)
        acc = _mm256_min_epi32(acc, _mm256_blendv_epi8(id, _mm256_loadu_si256((const __m256i*)(p + 8 * k)), fixed_lanes(n, k)));
    return hmin(acc);
}
// Prefix sums at the offsets, block by block (one thread).
#define B 4096
__attribute__((target("avx2"))) static void prefix_sums(const int32_t* v, const int32_t* off, size_t lists, int64_t* out) {
    static int64_t C[B / 8 + 1];
    size_t blk = (size_t)-1, total = off[lists];
    int64_t base = 0, prev = 0;  // base: the sum of the elements before the block
    for (size_t j = 0; j <= lists; j++) {
        size_t o = off[j], b = o / B;
        while (blk != b) {
            if (blk != (size_t)-1) base += C[B / 8];
            blk = blk == (size_t)-1 ? 0 : blk + 1;
            size_t s = blk * B, e = s + B <= total ? s + B : total;
            int64_t acc = 0;
            for (size_t k = 0; k < B / 8; k++) {
                C[k] = acc;
                size_t at = s + 8 * k;
                if (at + 8 <= e) acc += hsum8(_mm256_loadu_si256((const __m256i*)(v + at)));
                else if (at < e) acc += hsum8(_mm256_maskload_epi32(v + at, first_lanes(e - at)));
            }
            C[B / 8] = acc;
        }
        int64_t P = base + C[(o % B) / 8];
        if (o % 8) P += hsum8(_mm256_maskload_epi32(v + o - o % 8, first_lanes(o % 8)));
        if (j) out[j - 1] = P - prev;
        prev = P;
    }
}

int main(int argc, char** argv) {
    int threads = argc > 1 && strcmp(argv[1], "threads") == 0;
    uint64_t avg = argc > 2 ? strtoull(argv[2], 0, 10) : 64;
    int fixed = argc > 3 && argv[3][0] == 'f';
    size_t n = 1ull << 28, L = 0;
    int32_t* v = aligned_alloc(64, n * 4 + 1024);  // 1 KiB past the end: the fixed folds' reach
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) v[i] = (int32_t)(h(1, i) >> 40);
    int32_t* off = malloc((n + 2) * 4);
    off[0] = 0;
    for (uint64_t end = 0; end < n;) {
        end += fixed ? avg : h(2 + avg, L) % (2 * avg + 1);
        if (end > n) end = n;
        off[++L] = (int32_t)end;
    }
    int64_t *s1 = calloc(L, 8), *s2 = calloc(L, 8);
    int32_t *m1 = calloc(L, 4), *m2 = calloc(L, 4);
    for (int r = 0; r < 4; r++) {
        size_t bad = 0;
        double t0 = omp_get_wtime();
        if (!threads) {
            for (size_t j = 0; j < L; j++) s1[j] = sum_loop(v + off[j], off[j + 1] - off[j]);
            double t1 = omp_get_wtime();
            prefix_sums(v, off, L, s2);
            double t2 = omp_get_wtime();
            for (size_t j = 0; j < L; j++) bad += s1[j] != s2[j];
            printf("avg%lu%s one thread: sums loop %.1f prefix %.1f ms bad=%zu\n", avg, fixed ? " exact" : "",
                   (t1 - t0) * 1e3, (t2 - t1) * 1e3, bad);
            continue;
        }
#pragma omp parallel for schedule(static, 4096)
        for (size_t j = 0; j < L; j++) { int len = off[j + 1] - off[j]; m1[j] = len ? min_loop(v + off[j], len) : 0; }
        double t1 = omp_get_wtime();
#pragma omp parallel for schedule(static, 4096)
        for (size_t j = 0; j < L; j++) {
            int len = off[j + 1] - off[j];
            m2[j] = len == 0 ? 0 : (len <= 128 ? min_plain(v + off[j], len) : min_loop(v + off[j], len));
        }
        double t2 = omp_get_wtime();
#pragma omp parallel for schedule(static, 4096)
        for (size_t j = 0; j < L; j++) s1[j] = sum_loop(v + off[j], off[j + 1] - off[j]);
        double t3 = omp_get_wtime();
#pragma omp parallel for schedule(static, 4096)
        for (size_t j = 0; j < L; j++) {
            int len = off[j + 1] - off[j];
            s2[j] = len <= 128 ? sum_plain(v + off[j], len) : sum_loop(v + off[j], len);
        }
        double t4 = omp_get_wtime();
        for (size_t j = 0; j < L; j++) bad += (m1[j] != m2[j]) + (s1[j] != s2[j]);
        printf("avg%lu %d threads: minima loop %.1f plain %.1f | sums loop %.1f plain %.1f ms bad=%zu\n", avg,
               omp_get_max_threads(), (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3, bad);
    }
}
