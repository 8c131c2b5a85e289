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

/// to.block += a, in inline PTX: a plain addition would be sunk out of the code switch
/// (one addition of a phase picked by moves in every case).
__device__ __forceinline__ void add_phase(Sum& to, float2 a) {
    asm volatile("add.f32 %0, %0, %1;" : "+f"(to.block.x) : "f"(a.x));
    asm volatile("add.f32 %0, %0, %1;" : "+f"(to.block.y) : "f"(a.y));
}

/// One code's step over every level, the phases of that code given by `phase(l)` (l is
/// the 0-based level index, level l + 1). Every level is updated whatever the item's
/// start level q: below q the values are exactly 0 (and 1 at q), and adding a·0 leaves
/// them so, which keeps the loop free of per-level branches. The start level (0
/// forward, T backward) is the constant 1: the level next to it adds the phase itself.
template <int T, bool BACKWARD, typename Phase>
__device__ __forceinline__ void code_step(Sum (&u)[T + 1], Phase phase) {
    if (BACKWARD) {
#pragma unroll
        for (int l = 0; l + 1 < T; ++l) step(phase(l), u[l + 1], u[l]);
        add_phase(u[T - 1], phase(T - 1));
    } else {
#pragma unroll
        for (int p = T; p >= 2; --p) step(phase(p - 1), u[p - 1], u[p]);
        add_phase(u[1], phase(0));
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

    /// The step of the code in byte B of `word`. REG compares the masked byte with the
    /// codes shifted into place, so the code is never shifted out of the word.
    template <bool BACKWARD, int B>
    __device__ __forceinline__ void apply_byte(Sum (&u)[T + 1], unsigned word) const {
        if (REG) {
            const unsigned m = word & (0xffu << (8 * B));
            if (m == 0u) {
                code_step<T, BACKWARD>(u, [&](int l) { return reg[0][l]; });
            } else if (m == 1u << (8 * B)) {
                code_step<T, BACKWARD>(u, [&](int l) { return reg[REG ? 1 : 0][l]; });
            } else if (m == 2u << (8 * B)) {
                code_step<T, BACKWARD>(u, [&](int l) { return reg[REG ? 2 : 0][l]; });
            } else {
                code_step<T, BACKWARD>(u, [&](int l) { return reg[REG ? 3 : 0][l]; });
            }
        } else {
            const unsigned c = (word >> (8 * B)) & 0xffu;
            const float2* row = row0 + static_cast<long long>(c) * code_stride;
            code_step<T, BACKWARD>(u, [&](int l) { return row[l * K]; });
        }
    }

    /// The step of one code given as a byte.
    template <bool BACKWARD>
    __device__ __forceinline__ void apply(Sum (&u)[T + 1], uint8_t c) const {
        apply_byte<BACKWARD, 0>(u, c);
    }

    /// The steps of the four codes of `word`: forward from its lowest byte, backward
    /// from its highest.
    template <bool BACKWARD>
    __device__ __forceinline__ void apply_word(Sum (&u)[T + 1], unsigned word) const {
        if (BACKWARD) {
            apply_byte<true, 3>(u, word);
            apply_byte<true, 2>(u, word);
            apply_byte<true, 1>(u, word);
            apply_byte<true, 0>(u, word);
        } else {
            apply_byte<false, 0>(u, word);
            apply_byte<false, 1>(u, word);
            apply_byte<false, 2>(u, word);
            apply_byte<false, 3>(u, word);
        }
    }

    /// The steps of the sixteen codes of a 16-byte load, in the item's direction.
    /// Rolled over its four words: unrolling the 4-way code switch 16 times overflowed
    /// the instruction cache.
    template <bool BACKWARD>
    __device__ __forceinline__ void apply_vector(Sum (&u)[T + 1], uint4 v) const {
        unsigned a = BACKWARD ? v.w : v.x, b = BACKWARD ? v.z : v.y, c = BACKWARD ? v.y : v.z;
        const unsigned d = BACKWARD ? v.x : v.w;
#pragma unroll 1
        for (int j = 0; j < 4; ++j) {
            apply_word<BACKWARD>(u, a);
            a = b;
            b = c;
            c = d;
        }
    }
};

/// Flush every level but the constant start level (`FIXED`); `carry` points at this
/// thread's T + 1 carries, `stride` apart.
template <int T, int FIXED>
__device__ __forceinline__ void flush_all(Sum (&u)[T + 1], float2* carry, int stride) {
#pragma unroll
    for (int p = 0; p <= T; ++p)
        if (p != FIXED) flush(u[p], carry[p * stride]);
}

/// Rounds value that tells the item kernel to give up waiting (the host's upload failed).
constexpr unsigned ROUNDS_ABORT = 0xffffffffu;

/// Where the item kernel reads codes: the column's codes (`round_base` null), or the
/// round-major buffer of a streamed sketch while the host is still uploading it.
/// Streamed: every chunk's codes are cut into pieces of 2^piece_shift bytes in the order
/// its item reads them (forward from its first code, backward from its last: a backward
/// chunk is placed at offset pad = pieces * P - len of its pieces). Chunks form groups
/// uploaded in turn; inside a group, round r holds piece r of every chunk with more
/// than r pieces, in rank order, so piece r of the chunk of rank k lies at
/// round_base[first + r] + k * P, first being the group's first round. `ready` counts
/// the rounds already uploaded, all groups together.
struct CodeSource {
    const uint8_t* codes;
    const long long* round_base;
    unsigned* ready;  // [0]: rounds uploaded; [1]: set by a kernel that gave up waiting
    int piece_shift;
};

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/// One item's codes: code i of the item (0-based in its chunk) and, streamed, the wait
/// for the round that holds it. Streamed items carry their group's first round and
/// their chunk's rank in the high and low halves of `start`, and the pad of a backward
/// chunk in `pad`.
template <bool BACKWARD>
struct ItemCodes {
    CodeSource src;
    long long start;   // natural: the chunk's first code; streamed: rank * P
    long long y0;      // streamed: position of code 0 in the chunk's pieces
    long long pieces;
    long long round0;  // streamed: the group's first round
    unsigned seen;     // rounds known uploaded

    __device__ __forceinline__ ItemCodes(const CodeSource& s, const SketchItem& item) : src(s), seen(0) {
        if (s.round_base == nullptr) {
            start = item.start;
            y0 = 0;
            pieces = 0;
            round0 = 0;
        } else {
            start = (item.start & 0xffffffffll) << s.piece_shift;
            round0 = item.start >> 32;
            y0 = item.pad;
            pieces = (y0 + item.len + (1ll << s.piece_shift) - 1) >> s.piece_shift;
        }
    }

    __device__ __forceinline__ bool streamed() const { return src.round_base != nullptr; }

    /// Bytes from code 0 to the next 16-byte boundary of where the codes lie.
    __device__ __forceinline__ long long misalign() const {
        return streamed() ? (y0 & 15) : static_cast<long long>((reinterpret_cast<unsigned long long>(src.codes) + start) & 15);
    }

    __device__ __forceinline__ long long round_of(long long i) const {
        const long long j = (y0 + i) >> src.piece_shift;
        return round0 + (BACKWARD ? pieces - 1 - j : j);
    }

    /// Where code i lies.
    __device__ __forceinline__ const uint8_t* at(long long i) const {
        if (!streamed()) return src.codes + start + i;
        const long long y = y0 + i;
        return src.codes + src.round_base[round_of(i)] + start + (y & ((1ll << src.piece_shift) - 1));
    }

    /// Wait until code i has been uploaded; false when the upload was abandoned, or
    /// did not come within about 2^36 cycles (half a minute; the status word then says
    /// so to the host).
    __device__ __forceinline__ bool wait(long long i) {
        if (!streamed()) return true;
        const long long r = round_of(i);
        if (static_cast<long long>(seen) > r) return true;
        const long long began = clock64();
        for (;;) {
            const unsigned now = load_acquire(src.ready);
            if (now == ROUNDS_ABORT) return false;
            if (static_cast<long long>(now) > r) {
                seen = now;
                return true;
            }
            if (clock64() - began > (1ll << 36)) {
                atomicExch(src.ready + 1, 1u);
                return false;
            }
            __nanosleep(5000);
        }
    }

    __device__ __forceinline__ uint8_t byte(long long i) const { return __ldcg(at(i)); }
    __device__ __forceinline__ uint4 word(long long i) const { return __ldcg(reinterpret_cast<const uint4*>(at(i))); }
};

/// Read an item's `len` codes in its direction: single codes up to the first 16-byte
/// boundary of where they lie, then 16-byte loads, then single codes (backward: the same
/// pieces from the end), waiting for each piece's round when streamed. `byte(c)` takes
/// one code, `vector(v, w)` the 16 codes of load `w` (counted from the item's start).
/// False when a wait gave up.
template <bool BACKWARD, typename Byte, typename Vector>
__device__ __forceinline__ bool read_codes(ItemCodes<BACKWARD>& codes, long long len, Byte byte, Vector vector) {
    const long long misalign = codes.misalign();
    long long head = misalign == 0 ? 0 : 16 - misalign;
    if (head > len) head = len;
    const long long words = (len - head) / 16;
    const long long body_end = head + words * 16;
    if (!BACKWARD) {
        for (long long i = 0; i < head; ++i) {
            if (!codes.wait(i)) return false;
            byte(codes.byte(i));
        }
        for (long long w = 0; w < words; ++w) {
            const long long i = head + 16 * w;
            if (!codes.wait(i)) return false;
            vector(codes.word(i), w);
        }
        for (long long i = body_end; i < len; ++i) {
            if (!codes.wait(i)) return false;
            byte(codes.byte(i));
        }
    } else {
        for (long long i = len - 1; i >= body_end; --i) {
            if (!codes.wait(i)) return false;
            byte(codes.byte(i));
        }
        for (long long w = words - 1; w >= 0; --w) {
            const long long i = head + 16 * w;
            if (!codes.wait(i)) return false;  // the load's 16 codes are in one round
            vector(codes.word(i), w);
        }
        for (long long i = head - 1; i >= 0; --i) {
            if (!codes.wait(i)) return false;
            byte(codes.byte(i));
        }
    }
    return true;
}

/// Run one item over T levels of the phase table starting at level `offset` (of
/// `levels`): its codes forward (BACKWARD: from the end), 16 codes per 16-byte load
/// between a single-byte head and tail, flushing every 32 codes; then write its raw rows
/// offset .. offset + T. Each instantiation owns its phases and sums (registers).
template <int T, bool REG, bool BACKWARD>
__device__ __forceinline__ void run_item(const SketchItem& item, const float2* tab, int k, int K, int alphabet,
                                         int levels, int offset, const CodeSource& source, float2* carry,
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
    constexpr int FIXED = BACKWARD ? T : 0;
    Sum u[T + 1];
#pragma unroll
    for (int p = 0; p <= T; ++p)
        u[p] = Sum{make_float2(p == FIXED ? 1.f : 0.f, 0.f), make_float2(0.f, 0.f)};
    ItemCodes<BACKWARD> codes(source, item);
    const bool read = read_codes(
        codes, item.len, [&](uint8_t c) { ph.template apply<BACKWARD>(u, c); },
        [&](uint4 v, long long w) {
            ph.template apply_vector<BACKWARD>(u, v);
            if ((w + 1) % (FLUSH / 16) == 0) flush_all<T, FIXED>(u, carry, stride);
        });
    if (!read) return;
    flush_all<T, FIXED>(u, carry, stride);
    float2* out = raw + (static_cast<long long>(item.slot) * (levels + 1) + offset) * K + k;
#pragma unroll
    for (int p = 0; p <= T; ++p) {
        const float2 c = carry[p * stride];
        out[p * K] = p == FIXED ? make_float2(1.f, 0.f) : make_float2(u[p].total.x + c.x, u[p].total.y + c.y);
    }
}

/// A forward item from start level q = LEVELS - TL: the problem over levels q+1 ..
/// LEVELS is a sketch of TL levels on the shifted table, so middle chunks cost
/// LEVELS - q updates per code instead of LEVELS.
template <int LEVELS, int TL, bool REG>
__device__ __forceinline__ void forward_from(int q, const SketchItem& item, const float2* tab, int k, int K,
                                             int alphabet, const CodeSource& codes, float2* carry, int stride,
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
__device__ void sketch_items(const CodeSource& codes, const SketchItem* __restrict__ items,
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
        sketch_items_##T##_##NAME(const uint8_t* codes, const long long* round_base, unsigned* ready,       \
                                  int piece_shift, const SketchItem* items, long long n_items,            \
                                  const float2* table, int alphabet, int K, int lanes, int slices,        \
                                  int use_shared, float2* raw) {                                          \
        const CodeSource source{codes, round_base, ready, piece_shift};                                   \
        sketch_items<T, REG>(source, items, n_items, table, alphabet, K, lanes, slices, use_shared, raw); \
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

// ---- subsequence counts (A <= 4, t <= 4) ------------------------------------------------
//
// For small alphabets the sketch is a fixed projection of the counts of every pattern
// of t codes occurring as a sub-sequence: N(c_1..c_t) = #{i_1 < .. < i_t : x_{i_p} = c_p},
// T_t = sum_P N(P) * prod_p s_p(c_p) * e_{(sum_p h_p(c_p)) mod D} / C(n, t)
// (ragged_core::ops::sequences, "Subsequence counts"). Per code c the counts of the
// patterns ending in c grow by the counts of their prefixes: 4 + 16 + 64 additions of
// the level below for t = 4, against 4 complex multiply-adds per frequency (49 for
// D = 96) in the Fourier domain, and exact.
//
// sketch_counts_<t>: one warp per chunk item (forward, level 0). Patterns of a level p
// are indexed sum_i c_i 4^(i-1) (the first code the lowest digit), so a pattern's
// prefix of length s is its index mod 4^s and its suffix the index >> 2s. Lane l owns
// the prefixes j = l and l + 32 of length t - 1 (those below 4^(t-1)); it keeps the
// counts of its prefixes (top), of their shorter prefixes (low: shared, the two
// prefixes differ only in their last digit) and of the four patterns extending each
// prefix (last), in float64 (exact below 2^53, i.e. chunks under 20 000 codes at t = 4;
// relative 1e-16 beyond). Output: raw[slot * COUNTS(t) + base(p) + index] for every
// pattern of every level p = 1..t, base(p) = (4^p - 4) / 3.
//
// sketch_counts_finish: one block per sequence combines its chunks' counts in order
// (N_AB(P) = sum_s N_A(P[:s]) N_B(P[s:]), float64), then sums each output entry's
// patterns (a table grouped by entry, in a fixed order) and divides by C(n, t).

constexpr int COUNT_RADIX = 4;

/// Patterns of levels 1..T: (4^(T+1) - 4) / 3.
__host__ __device__ constexpr int count_patterns(int T) { return ((1 << (2 * T + 2)) - 4) / 3; }

/// Index of the first pattern of level p in an item's counts.
__host__ __device__ constexpr int count_base(int p) { return ((1 << (2 * p)) - 4) / 3; }

template <int T>
struct PatternCounts {
    static constexpr int PRE = 1 << (2 * (T - 1));  // prefixes of length T - 1
    static constexpr int PER = PRE > 32 ? 2 : 1;    // prefixes per lane
    double last[PER][COUNT_RADIX];                  // N_T(j_k + 4^(T-1) x)
    double top[PER];                                // N_{T-1}(j_k) (T >= 2)
    double low[T > 2 ? T - 2 : 1];                  // N_q(j mod 4^q), q = 1..T-2 (index q - 1)
    int j[PER];

    __device__ __forceinline__ explicit PatternCounts(int lane) {
#pragma unroll
        for (int k = 0; k < PER; ++k) {
            j[k] = (lane + 32 * k) & (PRE - 1);
            top[k] = 0.0;
#pragma unroll
            for (int x = 0; x < COUNT_RADIX; ++x) last[k][x] = 0.0;
        }
#pragma unroll
        for (int q = 0; q < (T > 2 ? T - 2 : 1); ++q) low[q] = 0.0;
    }

    /// Digit q (1-based) of prefix k.
    __device__ __forceinline__ int digit(int k, int q) const { return (j[k] >> (2 * (q - 1))) & 3; }

    /// One code: every level from the top, each from the old value of the level below.
    template <int X>
    __device__ __forceinline__ void step() {
#pragma unroll
        for (int k = 0; k < PER; ++k) last[k][X] += T >= 2 ? top[k] : 1.0;
        if (T >= 2) {
#pragma unroll
            for (int k = 0; k < PER; ++k)
                if (digit(k, T - 1) == X) top[k] += T >= 3 ? low[T >= 3 ? T - 3 : 0] : 1.0;
        }
#pragma unroll
        for (int q = T - 2; q >= 1; --q)
            if (digit(0, q) == X) low[q - 1] += q >= 2 ? low[q >= 2 ? q - 2 : 0] : 1.0;
    }

    /// The code in byte B of `word` (codes are below 4: compared in place).
    template <int B>
    __device__ __forceinline__ void apply_byte(unsigned word) {
        const unsigned m = word & (0xffu << (8 * B));
        if (m == 0u) {
            step<0>();
        } else if (m == 1u << (8 * B)) {
            step<1>();
        } else if (m == 2u << (8 * B)) {
            step<2>();
        } else {
            step<3>();
        }
    }

    __device__ __forceinline__ void apply_word(unsigned word) {
        apply_byte<0>(word);
        apply_byte<1>(word);
        apply_byte<2>(word);
        apply_byte<3>(word);
    }

    __device__ __forceinline__ void apply_vector(uint4 v) {
        unsigned a = v.x, b = v.y, c = v.z;
        const unsigned d = v.w;
#pragma unroll 1
        for (int w = 0; w < 4; ++w) {
            apply_word(a);
            a = b;
            b = c;
            c = d;
        }
    }

    /// Write the counts this lane owns: its patterns of level T, its prefixes (level
    /// T - 1), and a shorter prefix q when j < 4^q (one writer per pattern).
    __device__ __forceinline__ void write(double* out, int lane) const {
        if (lane >= (PRE < 32 ? PRE : 32)) return;
#pragma unroll
        for (int k = 0; k < PER; ++k) {
#pragma unroll
            for (int x = 0; x < COUNT_RADIX; ++x) out[count_base(T) + j[k] + PRE * x] = last[k][x];
            if (T >= 2) out[count_base(T - 1) + j[k]] = top[k];
        }
#pragma unroll
        for (int q = 1; q <= T - 2; ++q)
            if (j[0] < (1 << (2 * q))) out[count_base(q) + j[0]] = low[q - 1];
    }
};

/// Threads per block of the counts kernel: four items (warps).
constexpr int COUNT_BLOCK = 128;

template <int T>
__device__ void sketch_counts(const CodeSource& source, const SketchItem* __restrict__ items, long long n_items,
                              double* __restrict__ raw) {
    const long long item_index = static_cast<long long>(blockIdx.x) * (COUNT_BLOCK / 32) + threadIdx.x / 32;
    if (item_index >= n_items) return;
    const int lane = threadIdx.x % 32;
    const SketchItem item = items[item_index];
    PatternCounts<T> n(lane);
    ItemCodes<false> codes(source, item);
    const bool read = read_codes(
        codes, item.len, [&](uint8_t c) { n.template apply_byte<0>(c); },
        [&](uint4 v, long long) { n.apply_vector(v); });
    if (!read) return;
    n.write(raw + item.slot * count_patterns(T), lane);
}

#define RAGGED_SKETCH_COUNTS_VARIANT(T)                                                                  \
    extern "C" __global__ void __launch_bounds__(COUNT_BLOCK, 8)                                         \
        sketch_counts_##T(const uint8_t* codes, const long long* round_base, unsigned* ready, int piece_shift, \
                          const SketchItem* items, long long n_items, double* raw) {                     \
        const CodeSource source{codes, round_base, ready, piece_shift};                                  \
        sketch_counts<T>(source, items, n_items, raw);                                                   \
    }

RAGGED_SKETCH_COUNTS_VARIANT(1)
RAGGED_SKETCH_COUNTS_VARIANT(2)
RAGGED_SKETCH_COUNTS_VARIANT(3)
RAGGED_SKETCH_COUNTS_VARIANT(4)

/// Threads per block of `sketch_counts_finish`.
constexpr int COUNT_FINISH_BLOCK = 256;

/// `entries`: D + 1 starts, then for each output entry its patterns of level t in a
/// fixed order, each as sign * (index + 1). `raw` as written by sketch_counts_<t>.
extern "C" __global__ void __launch_bounds__(COUNT_FINISH_BLOCK)
    sketch_counts_finish(const double* __restrict__ raw, const SketchItem* __restrict__ items,
                         const long long* __restrict__ first, int T, int D, const int* __restrict__ entries,
                         float* __restrict__ out) {
    // The running counts of the sequence so far, and the next ones.
    __shared__ double state[2][count_patterns(4)];
    const int patterns = count_patterns(T);
    const long long s = blockIdx.x;
    const long long begin = first[s], end = first[s + 1];
    long long n = 0;
    int cur = 0;
    for (long long at = begin; at < end; ++at) {
        const SketchItem item = items[at];
        const double* chunk = raw + item.slot * patterns;
        if (at == begin) {
            for (int i = threadIdx.x; i < patterns; i += blockDim.x) state[0][i] = chunk[i];
        } else {
            for (int i = threadIdx.x; i < patterns; i += blockDim.x) {
                int p = 1;
                while (i >= count_base(p + 1)) ++p;
                const int idx = i - count_base(p);
                // s = 0: the whole pattern in the new chunk; s = p: in the old ones.
                // Rounded as the host's finish_counts rounds (no contraction into fma).
                double acc = __dadd_rn(chunk[i], state[cur][i]);
                for (int split = 1; split < p; ++split) {
                    const int prefix = idx & ((1 << (2 * split)) - 1);
                    const int suffix = idx >> (2 * split);
                    acc = __dadd_rn(acc, __dmul_rn(state[cur][count_base(split) + prefix],
                                                   chunk[count_base(p - split) + suffix]));
                }
                state[cur ^ 1][i] = acc;
            }
            cur ^= 1;
        }
        n += item.len;
        __syncthreads();
    }
    // C(n, T) in float64; zero sketches below T codes.
    double norm = 1.0;
    for (int i = 0; i < T; ++i) norm = __ddiv_rn(__dmul_rn(norm, static_cast<double>(n - i)), static_cast<double>(i + 1));
    const double* top = state[cur] + count_base(T);
    for (int e = threadIdx.x; e < D; e += blockDim.x) {
        double acc = 0.0;
        if (n >= T && begin < end) {
            for (int i = entries[e]; i < entries[e + 1]; ++i) {
                const int v = entries[D + 1 + i];
                acc = __dadd_rn(acc, v > 0 ? top[v - 1] : -top[-v - 1]);
            }
            acc = __ddiv_rn(acc, norm);
        }
        out[s * D + e] = static_cast<float>(acc);
    }
}

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
