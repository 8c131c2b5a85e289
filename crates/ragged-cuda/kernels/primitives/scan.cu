// scan: inclusive and exclusive scans of a primitive column — scan_sum (in the sum
// type: i64 / u64 / the float), scan_min, scan_max, scan_sum_f64 (of transform(x)),
// scan_count_if (of a predicate as 0/1) — and sizes_to_offsets (the exclusive scan of
// i32 sizes into n + 1 offsets plus the total, in one pass).
//
// Mapping: one block of 128 threads per tile of 128 * ITEMS elements, single pass with decoupled
// look-back (common/scan.cuh). Nulls load as the identity (0, the type's max or min);
// NaN loads as the identity in min/max scans.
// Overflow: sums of 64-bit integers accumulate in 128 bits; a prefix that does not fit
// i64 / u64 reports its row through the device error word (code 1). sizes_to_offsets
// reports a negative size (code 1) and, for i32 output, an offset above INT32_MAX
// (code 2) at the lowest row.
// Pseudo-code: out[i] = op(x[0..i]) (inclusive) or op(x[0..i-1]) (exclusive).
// Complexity: O(n) work, input read once, output written once, O(n / tile) state.
#include "common/primitives.cuh"
#include "common/scan.cuh"


using namespace ragged;

/// Values per thread: 24 up to 4-byte inputs, 12 for 8-byte ones (src/primitives/scan.rs).
template <typename T> struct ScanItems { static constexpr int value = sizeof(T) <= 4 ? 24 : 12; };

struct NoTotal {
    template <typename A> __device__ __forceinline__ void operator()(const A&) const {}
};

// ---- scan_sum ----------------------------------------------------------------------------
//
// scan_sum_<inclusive|exclusive>_nullable_<T> for every type, and for f32 also
// scan_sum_<inclusive|exclusive>_dense_f32, which the host picks for columns without
// nulls. The kind is fixed at compile time (a run-time flag kept both of cub's
// block-scan paths in one kernel: f32 0.815 against 0.845 x copy at 24 values per
// thread on the H100); the dense f32 kernel never reads a validity bit and scans 32
// values per thread (0.872 x copy; with the validity test and the run-time kind, 32
// values measured 0.80: experiments/scan_tuning.cu f32lib, PERFORMANCE.md v0.15). Other
// types have no dense kernel: without a validity bitmap their nullable kernel skips
// nothing but a predictable branch, and fewer kernels keep the module's cold compile
// short.

/// Values per thread of scan_sum over T (src/primitives/scan.rs knows them): 12 for
/// 8-byte inputs, 32 for f32 without nulls, else ScanItems<T>.
template <typename T, bool NULLABLE> struct ScanSumItems {
    static constexpr int value = sizeof(T) == 4 && !NULLABLE && ::cuda::std::is_floating_point<T>::value ? 32 : ScanItems<T>::value;
};

template <typename T, bool EXCLUSIVE, bool NULLABLE>
__device__ void scan_sum(const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n,
                         void* out, void* state, uint64_t state_bytes, uint64_t* error_word) {
    typedef typename SumTraits<T>::Thread Acc;  // 64-bit ints, 128-bit for 64-bit inputs, floats
    typedef typename ::cuda::std::conditional<sizeof(Acc) == 16,
        typename ::cuda::std::conditional<(T(-1) < T(0)), int64_t, uint64_t>::type, Acc>::type Out;
    auto load = [=](uint64_t row, T x) -> Acc {
        if (!NULLABLE) return static_cast<Acc>(x);
        return is_valid(validity, bit_offset, row) ? static_cast<Acc>(x) : Acc(0);
    };
    auto convert = [=](uint64_t row, Acc v) -> Out {
        return static_cast<Out>(narrow_sum(row, v, error_word));
    };
    scan_tile<ScanShape<ScanSumItems<T, NULLABLE>::value>, T, Acc, Out>(
        values, n, static_cast<Out*>(out), state, state_bytes, EXCLUSIVE, Acc(0), SumOp(), load, convert, NoTotal());
}

#define RAGGED_SCAN_SUM_VARIANT(T, NAME, KIND, EXCLUSIVE, VALIDITY, NULLABLE)                 \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_sum_##KIND##_##VALIDITY##_##NAME( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n, void* out, \
        void* state, uint64_t state_bytes, uint64_t* error_word) {                          \
        scan_sum<T, EXCLUSIVE, NULLABLE>(values, validity, bit_offset, n, out, state, state_bytes, error_word); \
    }
#define RAGGED_SCAN_SUM(T, NAME)                                                            \
    RAGGED_SCAN_SUM_VARIANT(T, NAME, inclusive, false, nullable, true)                     \
    RAGGED_SCAN_SUM_VARIANT(T, NAME, exclusive, true, nullable, true)
RAGGED_SCAN_SUM_VARIANT(float, f32, inclusive, false, dense, false)
RAGGED_SCAN_SUM_VARIANT(float, f32, exclusive, true, dense, false)
RAGGED_FOR_EACH_NATIVE(RAGGED_SCAN_SUM)

// ---- scan_min / scan_max -----------------------------------------------------------------
//
// Each output row is the reduce_min / reduce_max of its prefix: NaN only while every
// valid value so far is NaN, the identity while there is no valid value. Integers scan
// plain values; floats scan (value, seen) pairs, seen = 0 nothing valid, 1 only NaN,
// 2 a number — an associative combine that lets any number replace NaN.

template <typename T> struct Seen {
    T value;
    int seen;
};

template <bool IS_MAX> struct SeenOp {
    template <typename T>
    __device__ __forceinline__ Seen<T> operator()(const Seen<T>& a, const Seen<T>& b) const {
        if (b.seen == 0) return a;
        if (a.seen == 0) return b;
        if (a.seen == 2 && b.seen == 2) {
            const bool take_b = IS_MAX ? (b.value > a.value) : (b.value < a.value);
            return take_b ? b : a;
        }
        if (a.seen == 2) return a;
        if (b.seen == 2) return b;
        return a;  // both only NaN
    }
};

template <typename T, bool IS_MAX>
__device__ void scan_extremum(const T* values, const uint8_t* validity, uint64_t bit_offset,
                              uint64_t n, T* out, void* state, uint64_t state_bytes, bool exclusive,
                              T identity) {
    if constexpr (sizeof(T) >= 4 && (T(0.5) != T(0))) {
        // Floating point: (value, seen) pairs.
        auto load = [=](uint64_t row, T x) -> Seen<T> {
            if (!is_valid(validity, bit_offset, row)) return Seen<T>{identity, 0};
            return Seen<T>{x, is_nan(x) ? 1 : 2};
        };
        auto convert = [=](uint64_t, Seen<T> v) -> T { return v.seen == 0 ? identity : v.value; };
        scan_tile<ScanShape<12>, T, Seen<T>, T>(values, n, out, state, state_bytes, exclusive, Seen<T>{identity, 0},
                                    SeenOp<IS_MAX>(), load, convert, NoTotal());
    } else {
        auto load = [=](uint64_t row, T x) -> T { return is_valid(validity, bit_offset, row) ? x : identity; };
        auto convert = [](uint64_t, T v) -> T { return v; };
        if (IS_MAX)
            scan_tile<ScanShape<ScanItems<T>::value>, T, T, T>(values, n, out, state, state_bytes, exclusive, identity,
                                                    MaxOp(), load, convert, NoTotal());
        else
            scan_tile<ScanShape<ScanItems<T>::value>, T, T, T>(values, n, out, state, state_bytes, exclusive, identity,
                                                    MinOp(), load, convert, NoTotal());
    }
}

#define RAGGED_SCAN_EXTREMUM(T, NAME)                                                       \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_min_##NAME(               \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n, T* out,  \
        void* state, uint64_t state_bytes, uint32_t exclusive, T identity) {                \
        scan_extremum<T, false>(values, validity, bit_offset, n, out, state, state_bytes, exclusive != 0, identity); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_max_##NAME(               \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n, T* out,  \
        void* state, uint64_t state_bytes, uint32_t exclusive, T identity) {                \
        scan_extremum<T, true>(values, validity, bit_offset, n, out, state, state_bytes, exclusive != 0, identity); \
    }
RAGGED_FOR_EACH_NATIVE(RAGGED_SCAN_EXTREMUM)

// Tile states of the min/max accumulators (plain integers, (value, seen) floats).
RAGGED_SCAN_STATE(int8_t, i8)
RAGGED_SCAN_STATE(int16_t, i16)
RAGGED_SCAN_STATE(int32_t, i32)
RAGGED_SCAN_STATE(int64_t, i64)
RAGGED_SCAN_STATE(uint8_t, u8)
RAGGED_SCAN_STATE(uint16_t, u16)
RAGGED_SCAN_STATE(uint32_t, u32)
RAGGED_SCAN_STATE(uint64_t, u64)
RAGGED_SCAN_STATE(Seen<float>, seen_f32)
RAGGED_SCAN_STATE(Seen<double>, seen_f64)
RAGGED_SCAN_STATE(float, f32)
RAGGED_SCAN_STATE(double, f64)

// Tile states of the sum accumulators.
RAGGED_SCAN_STATE(long long, acc_i64)
RAGGED_SCAN_STATE(unsigned long long, acc_u64)
RAGGED_SCAN_STATE(__int128, acc_i128)
RAGGED_SCAN_STATE(unsigned __int128, acc_u128)

// The one-pass strings kernels' state in one launch (src/primitives/scan.rs,
// TileState::with_error_word): the acc_u64 tile state of `tiles` tiles at mem (none
// for a single tile), and `words` — an error word set to "no error" followed by `n`
// counters set to 0 — which the host would otherwise upload by a copy of its own.
extern "C" __global__ void scan_state_init_words_acc_u64(void* mem, uint64_t bytes, int tiles,
                                                         unsigned long long* words, int n) {
    if (tiles > 1) {
        cub::ScanTileState<unsigned long long> state = ragged::scan_state<unsigned long long>(mem, bytes, tiles);
        state.InitializeStatus(tiles);
    }
    if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) <= n) words[threadIdx.x] = threadIdx.x == 0 ? ~0ull : 0ull;
}

// ---- scan_sum_f64 and scan_count_if --------------------------------------------------------

template <typename T>
__device__ void scan_sum_f64(const T* values, const uint8_t* validity, uint64_t bit_offset,
                             uint64_t n, double* out, void* state, uint64_t state_bytes,
                             bool exclusive, uint32_t code) {
    auto load = [=](uint64_t row, T x) -> double {
        return is_valid(validity, bit_offset, row) ? transform(x, code) : 0.0;
    };
    auto convert = [](uint64_t, double v) -> double { return v; };
    scan_tile<ScanShape<ScanItems<T>::value>, T, double, double>(values, n, out, state, state_bytes, exclusive, 0.0,
                                                      SumOp(), load, convert, NoTotal());
}

template <typename T>
__device__ void scan_count_if(const T* values, const uint8_t* validity, uint64_t bit_offset,
                              uint64_t n, long long* out, void* state, uint64_t state_bytes,
                              bool exclusive, uint32_t cmp, T value) {
    auto load = [=](uint64_t row, T x) -> long long {
        return (is_valid(validity, bit_offset, row) && compare(x, cmp, value)) ? 1 : 0;
    };
    auto convert = [](uint64_t, long long v) -> long long { return v; };
    scan_tile<ScanShape<ScanItems<T>::value>, T, long long, long long>(values, n, out, state, state_bytes, exclusive,
                                                            0ll, SumOp(), load, convert, NoTotal());
}

#define RAGGED_SCAN_DERIVED(T, NAME)                                                        \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_sum_f64_##NAME(           \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n, double* out, \
        void* state, uint64_t state_bytes, uint32_t exclusive, uint32_t code) {             \
        scan_sum_f64<T>(values, validity, bit_offset, n, out, state, state_bytes, exclusive != 0, code); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) scan_count_if_##NAME(          \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n, long long* out, \
        void* state, uint64_t state_bytes, uint32_t exclusive, uint32_t cmp, T value) {     \
        scan_count_if<T>(values, validity, bit_offset, n, out, state, state_bytes, exclusive != 0, cmp, value); \
    }
RAGGED_FOR_EACH_NATIVE(RAGGED_SCAN_DERIVED)

// ---- sizes_to_offsets ------------------------------------------------------------------------

/// Overflow reports are offset by 2^54 so that a negative size anywhere wins over an
/// overflow (the same error at every width, as on the CPU).
constexpr uint64_t OVERFLOW_BASE = 1ull << 54;

/// out[0..n] = exclusive scan of sizes (nulls as 0), out[n] = total; total[0] = total.
template <typename O>
__device__ void sizes_to_offsets(const int32_t* sizes, const uint8_t* validity, uint64_t bit_offset,
                                 uint64_t n, O* out, void* state, uint64_t state_bytes,
                                 uint64_t* error_word, long long* total_out) {
    auto load = [=](uint64_t row, int32_t size) -> long long {
        if (!is_valid(validity, bit_offset, row)) return 0;
        if (size < 0) report_error(error_word, row, 1);
        return size < 0 ? 0 : size;
    };
    auto convert = [=](uint64_t row, long long offset) -> O {
        if (sizeof(O) == 4 && offset > 2147483647ll) report_error(error_word, OVERFLOW_BASE + row, 2);
        return static_cast<O>(offset);
    };
    auto on_total = [=](long long total) {
        if (sizeof(O) == 4 && total > 2147483647ll) report_error(error_word, OVERFLOW_BASE + n, 2);
        out[n] = static_cast<O>(total);
        total_out[0] = total;
    };
    scan_tile<ScanShape<24>, int32_t, long long, O>(sizes, n, out, state, state_bytes, true, 0ll, SumOp(), load,
                                         convert, on_total);
}

#define RAGGED_SIZES_TO_OFFSETS(O, NAME)                                                    \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) sizes_to_offsets_##NAME(       \
        const int32_t* sizes, const uint8_t* validity, uint64_t bit_offset, uint64_t n, O* out, \
        void* state, uint64_t state_bytes, uint64_t* error_word, long long* total) {        \
        sizes_to_offsets<O>(sizes, validity, bit_offset, n, out, state, state_bytes, error_word, total); \
    }
RAGGED_SIZES_TO_OFFSETS(int32_t, i32)
RAGGED_SIZES_TO_OFFSETS(int64_t, i64)
