// tensor_sketch: Tensor Sketch of every sequence of a column, in the Fourier domain
// (ragged_core::ops::sequences has the derivation and the host plan).
//
// sketch_items_<T>_<reg|shared>: one work item (a chunk of one sequence, forward from a
// start level q or backward) per group of LANES threads, one thread per frequency k
// (LANES = K rounded up to a warp; K = D/2 + 1). Every thread of a group reads the same
// code at each step, so branches on the code are uniform. Per code c:
//   forward:  for p = T .. q+1:  U_p += a_p(c)[k] * U_{p-1}        (U_q = 1)
//   backward: codes from the end, for q = 0 .. T-1: R_q += a_{q+1}(c)[k] * R_{q+1}  (R_T = 1)
// complex, float32. The phase a_p(c)[k] comes from registers (reg: A <= 4, a uniform
// switch on the code picks the code's registers) or from the table in shared memory
// (shared: any A; global memory, through L1, when the table is larger than 48 KiB).
// Accuracy: increments go to a block sum flushed every FLUSH codes into a compensated
// total (TwoSum); summing straight into the total loses about eps*sqrt(chunk length).
// Output: raw[(slot*(T+1) + p)*K + k] = total_p + carry_p (unnormalized).
//
// sketch_finish: one block per sequence. Thread k combines the sequence's items in
// order in float64 (normalizing by binomials through their logarithms), writes T_t[k]
// to shared memory; then thread j computes the inverse transform
// x[j] = (1/D) * sum_k X[k] e^{2 pi i j k / D} with the conjugate frequencies folded in.
//
// Work: T complex multiply-adds per code and frequency (first and last chunks),
// T(T+1)/2 for middle chunks; the finish is O(chunks * T^2 * K + D * K) per sequence.
#include "common/ragged.cuh"

using namespace ragged;

struct SketchItem {
    long long start;
    long long len;
    int level;  // q >= 0 forward from level q, -1 backward
    int pad;
    long long slot;
};

constexpr int FLUSH = 32;
constexpr int MAX_T = 16;

struct Sum {
    float2 total, carry, block;
};

__device__ __forceinline__ void flush(Sum& s) {
    // TwoSum of total + block, the rounding error kept in carry.
    float a = s.total.x, b = s.block.x, t = a + b, bb = t - a;
    s.carry.x += (a - (t - bb)) + (b - bb);
    s.total.x = t;
    a = s.total.y; b = s.block.y; t = a + b; bb = t - a;
    s.carry.y += (a - (t - bb)) + (b - bb);
    s.total.y = t;
    s.block = make_float2(0.f, 0.f);
}

/// to.block += a * (from.total + from.block)
__device__ __forceinline__ void step(float2 a, const Sum& from, Sum& to) {
    const float vr = from.total.x + from.block.x, vi = from.total.y + from.block.y;
    to.block.x = fmaf(-a.y, vi, fmaf(a.x, vr, to.block.x));
    to.block.y = fmaf(a.y, vr, fmaf(a.x, vi, to.block.y));
}

/// One code's step over every level, the phases of that code given by `phase(p)` (p is
/// the 0-based level index, level p + 1).
template <int T, typename Phase>
__device__ __forceinline__ void code_step(Sum (&u)[T + 1], int q, bool backward, Phase phase) {
    if (backward) {
#pragma unroll
        for (int l = 0; l < T; ++l) step(phase(l), u[l + 1], u[l]);
    } else {
#pragma unroll
        for (int p = T; p >= 1; --p)
            if (p > q) step(phase(p - 1), u[p - 1], u[p]);
    }
}

template <int T, bool REG>
__device__ void sketch_items(const uint8_t* __restrict__ codes, const SketchItem* __restrict__ items,
                             long long n_items, const float2* __restrict__ table, int alphabet, int K,
                             int lanes, int use_shared, float2* __restrict__ raw) {
    extern __shared__ float2 shared_table[];
    const int entries = alphabet * T * K;
    const float2* tab = table;
    if (!REG && use_shared) {
        for (int i = threadIdx.x; i < entries; i += blockDim.x) shared_table[i] = table[i];
        __syncthreads();
        tab = shared_table;
    }
    const int groups = blockDim.x / lanes;
    const long long item_index = static_cast<long long>(blockIdx.x) * groups + threadIdx.x / lanes;
    const int k = threadIdx.x % lanes;
    if (item_index >= n_items || k >= K) return;
    const SketchItem item = items[item_index];
    const bool backward = item.level < 0;
    const int q = backward ? 0 : item.level;

    // Register phases: reg[c][l] for the 4 codes a DNA-sized alphabet can have.
    float2 reg[REG ? 4 : 1][T];
    if (REG) {
#pragma unroll
        for (int c = 0; c < (REG ? 4 : 1); ++c)
#pragma unroll
            for (int l = 0; l < T; ++l)
                reg[c][l] = c < alphabet ? tab[(c * T + l) * K + k] : make_float2(0.f, 0.f);
    }

    Sum u[T + 1];
#pragma unroll
    for (int p = 0; p <= T; ++p) u[p] = Sum{make_float2(0.f, 0.f), make_float2(0.f, 0.f), make_float2(0.f, 0.f)};
#pragma unroll
    for (int p = 0; p <= T; ++p)
        if (p == (backward ? T : q)) u[p].total = make_float2(1.f, 0.f);

    const uint8_t* chunk = codes + item.start;
    const long long len = item.len;
    for (long long b0 = 0; b0 < len; b0 += FLUSH) {
        const int count = static_cast<int>(len - b0 < FLUSH ? len - b0 : FLUSH);
        for (int i = 0; i < count; ++i) {
            const long long at = backward ? len - 1 - (b0 + i) : b0 + i;
            const int c = chunk[at];
            if (REG) {
                // Uniform over the group: every lane reads the same code.
                switch (c) {
                    case 0: code_step<T>(u, q, backward, [&](int l) { return reg[0][l]; }); break;
                    case 1: code_step<T>(u, q, backward, [&](int l) { return reg[REG ? 1 : 0][l]; }); break;
                    case 2: code_step<T>(u, q, backward, [&](int l) { return reg[REG ? 2 : 0][l]; }); break;
                    default: code_step<T>(u, q, backward, [&](int l) { return reg[REG ? 3 : 0][l]; }); break;
                }
            } else {
                const float2* row = tab + static_cast<long long>(c) * T * K + k;
                code_step<T>(u, q, backward, [&](int l) { return row[l * K]; });
            }
        }
#pragma unroll
        for (int p = 0; p <= T; ++p) flush(u[p]);
    }
    float2* out = raw + static_cast<long long>(item.slot) * (T + 1) * K + k;
#pragma unroll
    for (int p = 0; p <= T; ++p)
        out[p * K] = make_float2(u[p].total.x + u[p].carry.x, u[p].total.y + u[p].carry.y);
}

#define RAGGED_SKETCH_ITEMS(T)                                                                          \
    extern "C" __global__ void sketch_items_##T##_reg(const uint8_t* codes, const SketchItem* items,     \
                                                      long long n_items, const float2* table, int alphabet, \
                                                      int K, int lanes, int use_shared, float2* raw) {   \
        sketch_items<T, true>(codes, items, n_items, table, alphabet, K, lanes, use_shared, raw);        \
    }                                                                                                   \
    extern "C" __global__ void sketch_items_##T##_shared(const uint8_t* codes, const SketchItem* items,  \
                                                         long long n_items, const float2* table,         \
                                                         int alphabet, int K, int lanes, int use_shared, \
                                                         float2* raw) {                                  \
        sketch_items<T, false>(codes, items, n_items, table, alphabet, K, lanes, use_shared, raw);       \
    }

RAGGED_SKETCH_ITEMS(1)
RAGGED_SKETCH_ITEMS(2)
RAGGED_SKETCH_ITEMS(3)
RAGGED_SKETCH_ITEMS(4)
RAGGED_SKETCH_ITEMS(5)
RAGGED_SKETCH_ITEMS(6)
RAGGED_SKETCH_ITEMS(7)
RAGGED_SKETCH_ITEMS(8)
RAGGED_SKETCH_ITEMS(9)
RAGGED_SKETCH_ITEMS(10)
RAGGED_SKETCH_ITEMS(11)
RAGGED_SKETCH_ITEMS(12)
RAGGED_SKETCH_ITEMS(13)
RAGGED_SKETCH_ITEMS(14)
RAGGED_SKETCH_ITEMS(15)
RAGGED_SKETCH_ITEMS(16)

// ---- finish -------------------------------------------------------------------------

__device__ __forceinline__ double neg_inf() { return __longlong_as_double(0xfff0000000000000ull); }

/// ln C(n, k), -inf when k > n (the host's ln_choose).
__device__ double ln_choose(unsigned long long n, unsigned long long k) {
    if (k > n) return neg_inf();
    if (n - k < k) k = n - k;
    double s = 0.0;
    for (unsigned long long j = 0; j < k; ++j) s += log(static_cast<double>(n - j)) - log(static_cast<double>(j + 1));
    return s;
}

__device__ __forceinline__ double2 cmul(double2 a, double2 b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/// v * e^w (0 when w = -inf).
__device__ __forceinline__ double2 scaled(double2 v, double w) {
    if (w == neg_inf()) return make_double2(0.0, 0.0);
    const double f = exp(w);
    return make_double2(v.x * f, v.y * f);
}

__device__ __forceinline__ double2 raw_at(const float2* raw, long long slot, int p, int T, int K, int k) {
    const float2 v = raw[(slot * (T + 1) + p) * K + k];
    return make_double2(v.x, v.y);
}

extern "C" __global__ void sketch_finish(const float2* __restrict__ raw, const SketchItem* __restrict__ items,
                                         const long long* __restrict__ first, int T, int K, int D,
                                         float* __restrict__ out) {
    extern __shared__ double2 spectrum[];
    const long long s = blockIdx.x;
    const long long begin = first[s], end = first[s + 1];
    for (int k = threadIdx.x; k < K; k += blockDim.x) {
        double2 state[MAX_T + 1], next[MAX_T + 1];
        double2 value = make_double2(0.0, 0.0);
        if (begin < end) {
            const SketchItem head = items[begin];
            unsigned long long a = head.len;
            for (int p = 0; p <= T; ++p) {
                const double norm = ln_choose(a, p);
                state[p] = norm == neg_inf() ? make_double2(0.0, 0.0) : scaled(raw_at(raw, head.slot, p, T, K, k), -norm);
            }
            state[0] = make_double2(1.0, 0.0);
            long long at = begin + 1;
            while (end - at > 1) {  // a middle chunk: T items, forward from q = 0 .. T-1
                const unsigned long long m = items[at].len, n = a + m;
                for (int p = 0; p <= T; ++p) {
                    const double norm = ln_choose(n, p);
                    double2 acc = make_double2(0.0, 0.0);
                    const int top = static_cast<unsigned long long>(p) < a ? p : static_cast<int>(a);
                    for (int q = 0; q <= top; ++q) {
                        const double2 v = q == p ? make_double2(1.0, 0.0) : raw_at(raw, items[at + q].slot, p, T, K, k);
                        const double2 t = scaled(cmul(state[q], v), ln_choose(a, q) - norm);
                        acc.x += t.x;
                        acc.y += t.y;
                    }
                    next[p] = norm == neg_inf() ? make_double2(0.0, 0.0) : acc;
                }
                for (int p = 0; p <= T; ++p) state[p] = next[p];
                a = n;
                at += T;
            }
            if (at < end) {  // the last chunk, backward
                const SketchItem last = items[at];
                const unsigned long long n = a + last.len;
                const double norm = ln_choose(n, T);
                if (norm != neg_inf()) {
                    const int top = static_cast<unsigned long long>(T) < a ? T : static_cast<int>(a);
                    for (int q = 0; q <= top; ++q) {
                        const double2 r = q == T ? make_double2(1.0, 0.0) : raw_at(raw, last.slot, q, T, K, k);
                        const double2 t = scaled(cmul(state[q], r), ln_choose(a, q) - norm);
                        value.x += t.x;
                        value.y += t.y;
                    }
                }
            } else {
                value = state[T];
            }
        }
        spectrum[k] = value;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < D; j += blockDim.x) {
        double acc = spectrum[0].x;
        for (int k = 1; k < K; ++k) {
            double sn, cs;
            sincospi(2.0 * static_cast<double>((static_cast<long long>(j) * k) % D) / D, &sn, &cs);
            const double term = spectrum[k].x * cs - spectrum[k].y * sn;
            acc += 2 * k == D ? term : 2.0 * term;
        }
        out[s * D + j] = static_cast<float>(acc / D);
    }
}
