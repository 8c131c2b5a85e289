// tensor_sketch: Tensor Sketch of every sequence of a column, in the Fourier domain
// (ragged_core::ops::sequences has the derivation and the host plan).
//
// sketch_items_<T>_<reg|shared>: one work unit (a chunk of one sequence, forward from a
// start level q or backward, and a slice of at most 128 of its frequencies) per group of
// LANES threads, one thread per frequency k (LANES = the slice rounded up to a warp;
// K = D/2 + 1 frequencies in all), in blocks of 128 threads. Every thread of a group
// reads the same code at each step, so branches on the code are uniform. Per code c:
//   forward:  for p = T .. q+1:  U_p += a_p(c)[k] * U_{p-1}        (U_q = 1)
//   backward: codes from the end, for q = 0 .. T-1: R_q += a_{q+1}(c)[k] * R_{q+1}  (R_T = 1)
// complex, float32; an item from level q runs as a sketch of T - q levels on the
// shifted phase table (its own loop, so no per-level branch). Codes are read 16 per
// 16-byte load.
// The phase a_p(c)[k] comes from registers (reg: A <= 4 and T <= 8, a switch on the code
// that is uniform over the item's lanes picks the code's registers) or from the table
// in shared memory (shared: any A; read from global memory through L1 when the table
// exceeds the host's 40 KiB limit).
// Accuracy: increments go to a block sum flushed every FLUSH codes into a compensated
// total (TwoSum); summing straight into the total loses about eps*sqrt(chunk length).
// Output: raw[(slot*(T+1) + p)*K + k] = total_p + carry_p (unnormalized), for the rows
// p = q .. T an item from level q owns (rows below q are not written, and not read).
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

constexpr int FLUSH = 32;  // codes between two flushes: two 16-byte loads
constexpr int MAX_T = 16;

/// One level's running sum: the flushed total and the current block's sum (the TwoSum
/// carry of the total lives in shared memory, touched only at flushes, to keep
/// registers for occupancy).
struct Sum {
    float2 total, block;
};

__device__ __forceinline__ void flush(Sum& s, float2& carry) {
    // TwoSum of total + block, the rounding error kept in carry.
    float a = s.total.x, b = s.block.x, t = a + b, bb = t - a;
    carry.x += (a - (t - bb)) + (b - bb);
    s.total.x = t;
    a = s.total.y; b = s.block.y; t = a + b; bb = t - a;
    carry.y += (a - (t - bb)) + (b - bb);
    s.total.y = t;
    s.block = make_float2(0.f, 0.f);
}

/// to.block += a * (from.total + from.block)
__device__ __forceinline__ void step(float2 a, const Sum& from, Sum& to) {
    const float vr = from.total.x + from.block.x, vi = from.total.y + from.block.y;
    to.block.x = fmaf(-a.y, vi, fmaf(a.x, vr, to.block.x));
    to.block.y = fmaf(a.y, vr, fmaf(a.x, vi, to.block.y));
}

/// One code's step over every level, the phases of that code given by `phase(l)` (l is
/// the 0-based level index, level l + 1). Every level is updated whatever the item's
/// start level q: below q the values are exactly 0 (and 1 at q), and adding a·0 leaves
/// them so, which keeps the loop free of per-level branches.
template <int T, bool BACKWARD, typename Phase>
__device__ __forceinline__ void code_step(Sum (&u)[T + 1], Phase phase) {
    if (BACKWARD) {
#pragma unroll
        for (int l = 0; l < T; ++l) step(phase(l), u[l + 1], u[l]);
    } else {
#pragma unroll
        for (int p = T; p >= 1; --p) step(phase(p - 1), u[p - 1], u[p]);
    }
}

/// The phases of one thread: in registers (REG: codes 0..3, picked by a switch that is
/// uniform over the item's lanes) or read from the table.
template <int T, bool REG>
struct Phases {
    float2 reg[REG ? 4 : 1][T];
    const float2* row0;  // table + offset * K + k (shared or global)
    int K;
    int code_stride;  // levels * K: one code's phases in the table

    template <bool BACKWARD>
    __device__ __forceinline__ void apply(Sum (&u)[T + 1], int c) const {
        if (REG) {
            switch (c) {
                case 0: code_step<T, BACKWARD>(u, [&](int l) { return reg[0][l]; }); break;
                case 1: code_step<T, BACKWARD>(u, [&](int l) { return reg[REG ? 1 : 0][l]; }); break;
                case 2: code_step<T, BACKWARD>(u, [&](int l) { return reg[REG ? 2 : 0][l]; }); break;
                default: code_step<T, BACKWARD>(u, [&](int l) { return reg[REG ? 3 : 0][l]; }); break;
            }
        } else {
            const float2* row = row0 + static_cast<long long>(c) * code_stride;
            code_step<T, BACKWARD>(u, [&](int l) { return row[l * K]; });
        }
    }
};

/// Flush every level; `carry` points at this thread's T + 1 carries, `stride` apart.
template <int T>
__device__ __forceinline__ void flush_all(Sum (&u)[T + 1], float2* carry, int stride) {
#pragma unroll
    for (int p = 0; p <= T; ++p) flush(u[p], carry[p * stride]);
}

/// Run one item over T levels of the phase table starting at level `offset` (of
/// `levels`): its codes forward (BACKWARD: from the end), 16 codes per 16-byte load
/// between a single-byte head and tail, flushing every 32 codes; then write its raw rows
/// offset .. offset + T. Each instantiation owns its phases and sums (registers).
template <int T, bool REG, bool BACKWARD>
__device__ __forceinline__ void run_item(const SketchItem& item, const float2* tab, int k, int K, int alphabet,
                                         int levels, int offset, const uint8_t* codes, float2* carry,
                                         int stride, float2* raw) {
    Phases<T, REG> ph;
    ph.row0 = tab + offset * K + k;
    ph.K = K;
    ph.code_stride = levels * K;
    if (REG) {
#pragma unroll
        for (int c = 0; c < (REG ? 4 : 1); ++c)
#pragma unroll
            for (int l = 0; l < T; ++l)
                ph.reg[c][l] = c < alphabet ? tab[(c * levels + offset + l) * K + k] : make_float2(0.f, 0.f);
    }
    // 1 at the start level (T backward, 0 forward), 0 elsewhere.
    Sum u[T + 1];
#pragma unroll
    for (int p = 0; p <= T; ++p)
        u[p] = Sum{make_float2(p == (BACKWARD ? T : 0) ? 1.f : 0.f, 0.f), make_float2(0.f, 0.f)};
    const uint8_t* chunk = codes + item.start;
    const long long len = item.len;
    const long long misalign = static_cast<long long>(reinterpret_cast<unsigned long long>(chunk) & 15);
    long long head = misalign == 0 ? 0 : 16 - misalign;
    if (head > len) head = len;
    const long long words = (len - head) / 16;
    const long long body_end = head + words * 16;
    const uint4* body = reinterpret_cast<const uint4*>(chunk + head);
    if (!BACKWARD) {
        for (long long i = 0; i < head; ++i) ph.template apply<false>(u, chunk[i]);
        for (long long w = 0; w < words; ++w) {
            const uint4 v = body[w];
            unsigned long long lo = v.x | static_cast<unsigned long long>(v.y) << 32;
            unsigned long long hi = v.z | static_cast<unsigned long long>(v.w) << 32;
            // Rolled (4 codes per iteration): the 4-way code switch unrolled 16 times
            // overflowed the instruction cache.
#pragma unroll 4
            for (int j = 0; j < 16; ++j) {
                const int c = static_cast<int>(lo & 0xff);
                lo = (lo >> 8) | (hi << 56);
                hi >>= 8;
                ph.template apply<false>(u, c);
            }
            if ((w + 1) % (FLUSH / 16) == 0) flush_all<T>(u, carry, stride);
        }
        for (long long i = body_end; i < len; ++i) ph.template apply<false>(u, chunk[i]);
    } else {
        for (long long i = len - 1; i >= body_end; --i) ph.template apply<true>(u, chunk[i]);
        for (long long w = words - 1; w >= 0; --w) {
            const uint4 v = body[w];
            unsigned long long lo = v.x | static_cast<unsigned long long>(v.y) << 32;
            unsigned long long hi = v.z | static_cast<unsigned long long>(v.w) << 32;
#pragma unroll 4
            for (int j = 0; j < 16; ++j) {
                const int c = static_cast<int>(hi >> 56);
                hi = (hi << 8) | (lo >> 56);
                lo <<= 8;
                ph.template apply<true>(u, c);
            }
            if ((w + 1) % (FLUSH / 16) == 0) flush_all<T>(u, carry, stride);
        }
        for (long long i = head - 1; i >= 0; --i) ph.template apply<true>(u, chunk[i]);
    }
    flush_all<T>(u, carry, stride);
    float2* out = raw + (static_cast<long long>(item.slot) * (levels + 1) + offset) * K + k;
#pragma unroll
    for (int p = 0; p <= T; ++p) {
        const float2 c = carry[p * stride];
        out[p * K] = make_float2(u[p].total.x + c.x, u[p].total.y + c.y);
    }
}

/// A forward item from start level q = LEVELS - TL: the problem over levels q+1 ..
/// LEVELS is a sketch of TL levels on the shifted table, so middle chunks cost
/// LEVELS - q updates per code instead of LEVELS.
template <int LEVELS, int TL, bool REG>
__device__ __forceinline__ void forward_from(int q, const SketchItem& item, const float2* tab, int k, int K,
                                             int alphabet, const uint8_t* codes, float2* carry, int stride,
                                             float2* raw) {
    if (q == LEVELS - TL) {
        run_item<TL, REG, false>(item, tab, k, K, alphabet, LEVELS, q, codes, carry, stride, raw);
    } else if constexpr (TL > 1) {
        forward_from<LEVELS, TL - 1, REG>(q, item, tab, k, K, alphabet, codes, carry, stride, raw);
    }
}



/// Threads per block of the item kernel.
constexpr int ITEM_BLOCK = 128;

template <int T, bool REG>
__device__ void sketch_items(const uint8_t* __restrict__ codes, const SketchItem* __restrict__ items,
                             long long n_items, const float2* __restrict__ table, int alphabet, int K,
                             int lanes, int slices, int use_shared, float2* __restrict__ raw) {
    // Dynamic shared memory: ITEM_BLOCK × (T + 1) carries, then the table when copied.
    extern __shared__ float2 shared[];
    float2* carry = shared + threadIdx.x;
    const int stride = blockDim.x;
#pragma unroll
    for (int p = 0; p <= T; ++p) carry[p * stride] = make_float2(0.f, 0.f);
    const int entries = alphabet * T * K;
    const float2* tab = table;
    if (!REG && use_shared) {
        float2* shared_table = shared + (T + 1) * blockDim.x;
        for (int i = threadIdx.x; i < entries; i += blockDim.x) shared_table[i] = table[i];
        __syncthreads();
        tab = shared_table;
    }
    // Work unit = (item, frequency slice of `lanes` frequencies).
    const int groups = blockDim.x / lanes;
    const long long unit = static_cast<long long>(blockIdx.x) * groups + threadIdx.x / lanes;
    const long long item_index = unit / slices;
    const int k = static_cast<int>(unit % slices) * lanes + threadIdx.x % lanes;
    if (item_index >= n_items || k >= K) return;
    const SketchItem item = items[item_index];
    if (item.level < 0) {
        run_item<T, REG, true>(item, tab, k, K, alphabet, T, 0, codes, carry, stride, raw);
    } else {
        forward_from<T, T, REG>(item.level, item, tab, k, K, alphabet, codes, carry, stride, raw);
    }
}

// Launch bounds: at least BLOCKS blocks of ITEM_BLOCK threads per multiprocessor, so that
// the registers (phases + T + 1 running sums) leave room for enough resident items; the
// host sizes its chunks for that capacity (`min_blocks` in tensor_sketch.rs).
#define RAGGED_SKETCH_ITEMS_VARIANT(T, NAME, REG, BLOCKS)                                                   \
    extern "C" __global__ void __launch_bounds__(ITEM_BLOCK, BLOCKS)                                      \
        sketch_items_##T##_##NAME(const uint8_t* codes, const SketchItem* items, long long n_items,     \
                                  const float2* table, int alphabet, int K, int lanes, int slices,        \
                                  int use_shared, float2* raw) {                                          \
        sketch_items<T, REG>(codes, items, n_items, table, alphabet, K, lanes, slices, use_shared, raw);  \
    }

// Register phases for alphabets of up to 4 codes and t up to 8 (4 x t float2 per thread).
RAGGED_SKETCH_ITEMS_VARIANT(1, reg, true, 6)
RAGGED_SKETCH_ITEMS_VARIANT(2, reg, true, 6)
RAGGED_SKETCH_ITEMS_VARIANT(3, reg, true, 6)
RAGGED_SKETCH_ITEMS_VARIANT(4, reg, true, 6)
RAGGED_SKETCH_ITEMS_VARIANT(5, reg, true, 4)
RAGGED_SKETCH_ITEMS_VARIANT(6, reg, true, 4)
RAGGED_SKETCH_ITEMS_VARIANT(7, reg, true, 4)
RAGGED_SKETCH_ITEMS_VARIANT(8, reg, true, 4)
// Table phases, any alphabet.
RAGGED_SKETCH_ITEMS_VARIANT(1, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(2, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(3, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(4, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(5, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(6, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(7, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(8, shared, false, 6)
RAGGED_SKETCH_ITEMS_VARIANT(9, shared, false, 4)
RAGGED_SKETCH_ITEMS_VARIANT(10, shared, false, 4)
RAGGED_SKETCH_ITEMS_VARIANT(11, shared, false, 4)
RAGGED_SKETCH_ITEMS_VARIANT(12, shared, false, 4)
RAGGED_SKETCH_ITEMS_VARIANT(13, shared, false, 4)
RAGGED_SKETCH_ITEMS_VARIANT(14, shared, false, 4)
RAGGED_SKETCH_ITEMS_VARIANT(15, shared, false, 4)
RAGGED_SKETCH_ITEMS_VARIANT(16, shared, false, 4)

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
