// primitives.cuh: value helpers shared by the primitives kernels.
//
// - Wide<T>: the accumulator of sums (64-bit per thread for <= 32-bit integers, 128-bit
//   for 64-bit integers and for every block/grid partial, the type itself for floats);
// - predicates against a scalar (Comparison codes 0..5 = Eq, Ne, Lt, Le, Gt, Ge; IEEE:
//   NaN compares false except Ne), transforms (0..2 = Identity, Square, Abs, in f64);
// - NaN-aware extremum selection for (value, index) pairs: NaN loses to any number,
//   ties go to the lower index, index -1 means "no value yet";
// - vectorized loading: 16-byte loads of aligned bodies with scalar heads and tails.
#pragma once
#include "common/ragged.cuh"

namespace ragged {

template <typename T> struct SumTraits;
#define RAGGED_SUM_TRAITS(T, THREAD, WIDE)                                                  \
    template <> struct SumTraits<T> { typedef THREAD Thread; typedef WIDE Wide; };
RAGGED_SUM_TRAITS(int8_t, long long, __int128)
RAGGED_SUM_TRAITS(int16_t, long long, __int128)
RAGGED_SUM_TRAITS(int32_t, long long, __int128)
RAGGED_SUM_TRAITS(int64_t, __int128, __int128)
RAGGED_SUM_TRAITS(uint8_t, unsigned long long, unsigned __int128)
RAGGED_SUM_TRAITS(uint16_t, unsigned long long, unsigned __int128)
RAGGED_SUM_TRAITS(uint32_t, unsigned long long, unsigned __int128)
RAGGED_SUM_TRAITS(uint64_t, unsigned __int128, unsigned __int128)
RAGGED_SUM_TRAITS(float, float, float)
RAGGED_SUM_TRAITS(double, double, double)

template <typename T> __device__ __forceinline__ bool is_nan(T x) { return x != x; }

/// The smaller (IS_MAX = false) or larger of two floats by fmin / fmax: a NaN loses to a
/// number (NaN only when both are); which of two zeros is left open.
template <bool IS_MAX, typename T> __device__ __forceinline__ T nan_skipping_extreme(T a, T b) {
    if constexpr (sizeof(T) == 4) return IS_MAX ? fmaxf(a, b) : fminf(a, b);
    else return IS_MAX ? fmax(a, b) : fmin(a, b);
}

/// Whether a float extreme leaves open which element it is — a zero (either sign) or
/// NaN: the lists' list_extreme_fix settles those.
template <typename T> __device__ __forceinline__ bool extreme_is_open(T x) { return x == T(0) || is_nan(x); }

/// `x <cmp> value` (IEEE comparisons: NaN compares false except for Ne).
template <typename T>
__device__ __forceinline__ bool compare(T x, uint32_t cmp, T value) {
    switch (cmp) {
        case 0: return x == value;
        case 1: return x != value;
        case 2: return x < value;
        case 3: return x <= value;
        case 4: return x > value;
        default: return x >= value;
    }
}

/// The transform of `x`, in f64.
template <typename T>
__device__ __forceinline__ double transform(T x, uint32_t code) {
    const double v = static_cast<double>(x);
    return code == 1 ? v * v : (code == 2 ? fabs(v) : v);
}

/// A value with its row, for min/max/argmin/argmax. index < 0: no value.
template <typename T> struct Arg {
    T value;
    long long index;
};

/// The better of two candidates for a minimum (IS_MAX = false) or maximum: a missing
/// candidate loses, then NaN loses to a number, then the smaller (larger) value wins,
/// then the lower index.
template <typename T, bool IS_MAX>
__device__ __forceinline__ Arg<T> better(const Arg<T>& a, const Arg<T>& b) {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
    if (a_nan != b_nan) return a_nan ? b : a;
    if (!a_nan) {
        if (IS_MAX ? (b.value > a.value) : (b.value < a.value)) return b;
        if (IS_MAX ? (a.value > b.value) : (a.value < b.value)) return a;
    }
    return b.index < a.index ? b : a;
}

template <typename T, bool IS_MAX> struct BetterOp {
    __device__ __forceinline__ Arg<T> operator()(const Arg<T>& a, const Arg<T>& b) const {
        return better<T, IS_MAX>(a, b);
    }
};

/// A sum accumulated in its wide type, narrowed to the output sum type (i64 / u64 /
/// the float); a 128-bit value that does not fit reports `index` through the error
/// word (code 1). Narrower accumulators already are the output type.
__device__ __forceinline__ long long narrow_sum(uint64_t index, __int128 v, uint64_t* error_word) {
    if (v > static_cast<__int128>(0x7fffffffffffffffll) || v < -static_cast<__int128>(0x7fffffffffffffffll) - 1)
        report_error(error_word, index, 1);
    return static_cast<long long>(v);
}
__device__ __forceinline__ unsigned long long narrow_sum(uint64_t index, unsigned __int128 v, uint64_t* error_word) {
    if (v > static_cast<unsigned __int128>(~0ull)) report_error(error_word, index, 1);
    return static_cast<unsigned long long>(v);
}
__device__ __forceinline__ long long narrow_sum(uint64_t, long long v, uint64_t*) { return v; }
__device__ __forceinline__ unsigned long long narrow_sum(uint64_t, unsigned long long v, uint64_t*) { return v; }
__device__ __forceinline__ float narrow_sum(uint64_t, float v, uint64_t*) { return v; }
__device__ __forceinline__ double narrow_sum(uint64_t, double v, uint64_t*) { return v; }

/// 16 bytes of T.
template <typename T> struct alignas(16) Vec16 {
    static constexpr int N = 16 / sizeof(T);
    T v[N];
};

/// Apply f(i, x) to every x = values[i], i < n, with this thread's share of a grid-
/// stride loop, loading 16 bytes at a time over the 16-byte-aligned body (two loads in
/// flight) and one element at a time over the head and tail.
template <typename T, typename F>
__device__ __forceinline__ void for_each_vectorized(const T* values, uint64_t n, F&& f) {
    constexpr int N = Vec16<T>::N;
    const uint64_t addr = reinterpret_cast<uint64_t>(values);
    uint64_t head = ((16 - (addr & 15)) & 15) / sizeof(T);
    if ((addr % sizeof(T)) != 0) head = n;  // misaligned element type: no vector body
    if (head > n) head = n;
    const uint64_t tid = global_thread(), threads = grid_threads();
    for (uint64_t i = tid; i < head; i += threads) f(i, values[i]);
    const uint64_t vectors = (n - head) / N;
    const Vec16<T>* body = reinterpret_cast<const Vec16<T>*>(values + head);
    uint64_t v = tid;
    for (; v + threads < vectors; v += 2 * threads) {
        const Vec16<T> a = body[v];
        const Vec16<T> b = body[v + threads];
#pragma unroll
        for (int k = 0; k < N; ++k) f(head + v * N + k, a.v[k]);
#pragma unroll
        for (int k = 0; k < N; ++k) f(head + (v + threads) * N + k, b.v[k]);
    }
    for (; v < vectors; v += threads) {
        const Vec16<T> a = body[v];
#pragma unroll
        for (int k = 0; k < N; ++k) f(head + v * N + k, a.v[k]);
    }
    for (uint64_t i = head + vectors * N + tid; i < n; i += threads) f(i, values[i]);
}

}  // namespace ragged

// Instantiate MACRO(T, NAME) for every element type.
#define RAGGED_FOR_EACH_NATIVE(MACRO)                                                       \
    MACRO(int8_t, i8) MACRO(int16_t, i16) MACRO(int32_t, i32) MACRO(int64_t, i64)           \
    MACRO(uint8_t, u8) MACRO(uint16_t, u16) MACRO(uint32_t, u32) MACRO(uint64_t, u64)       \
    MACRO(float, f32) MACRO(double, f64)
