// reduce: per-list reductions of a list column — list_sum, list_prod, list_min /
// list_max (with positions for argmin / argmax), list_count (valid elements of any
// child), list_count_nonzero, list_any / list_all (boolean children, bit-packed) and
// list_mean (f64).
//
// Mapping: the segmented engine of common/segmented.cuh over the list offsets, with
// the list validity as segment validity (a null list reduces to the identity):
// list_<op>_<O>_<T> runs the mode (thread, lanes, warp or block per list) the host
// chose from a sample of the list lengths; lists far longer than that mode serves are
// split over the grid by the engine's long path (three launches, phase 0, 1, 2); a
// null list is never read.
// The host gives the output the list validity (sum, prod, count, count_nonzero, any,
// all) or the validity bits set by the kernels (min, max, arg forms, mean: set = the
// list has a valid element, which a null list has not; the host counts the unset
// bits). A finish functor writes one list's result and returns whether its validity
// bit is set (ignored when the kernel has no validity words).
// Null elements are skipped. Extremes skip NaN unless every valid element is NaN
// (common/primitives.cuh, better()). list_min / list_max keep the value alone
// (IntExtremeReducer; FloatExtremeReducer, fmin / fmax); the arg forms keep the
// position too (ExtremumReducer). Which zero or NaN a float extreme is, is settled by
// list_extreme_fix afterwards: the first valid element equal to it (ties go to the
// lowest position, as in the arg forms and on the CPU).
// Children of 4- and 8-byte elements without nulls in lists of medium length take the
// extreme tiles instead (common/segmented_tiles.cuh; list_<min|max>_tiles_first,
// list_<min|max>_tiles, for floats list_extreme_tiles_spanning, then list_extreme_fix).
// Overflow (code 1 at the list's index, lowest wins): an integer sum is accumulated in
// 128 bits and must fit i64 / u64; an integer product is tracked exactly as (zero seen,
// sign, 64-bit magnitude, magnitude overflowed), so the answer does not depend on the
// order of multiplication: a list holding a 0 has product 0, otherwise the exact
// product must fit i64 / u64.
// Pseudo-code: out[l] = reduce(child[offsets[l] .. offsets[l + 1]] where valid)
// Complexity: O(n + lists) work; elements read once, one result per list written.
//
// Variants (compile.rs, LISTS_REDUCE and LISTS_REDUCE_TYPED): the file compiles into
// seven modules so that no single one takes long to build — RAGGED_LISTS_REDUCE_SHARED
// gives list_plan, list_count and list_any_all; otherwise RAGGED_LISTS_REDUCE_OFFSET
// (32, 64) and RAGGED_LISTS_REDUCE_VALUES (1: 8/16-bit integers, 2: 32/64-bit
// integers, 3: floats) select the typed reductions.
#include "common/segmented.cuh"
#include "common/segmented_tiles.cuh"

using namespace ragged;

/// The exact product of integers: zero seen, sign, magnitude (mod 2^64) and whether the
/// magnitude ever exceeded 2^64 - 1.
struct ProdState {
    unsigned long long magnitude;
    uint32_t flags;  // 1: a zero, 2: negative, 4: magnitude overflowed
};

template <typename T> struct IntProdReducer {
    typedef ProdState State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return State{1ull, 0u}; }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const {
        uint32_t flags = ((a.flags | b.flags) & 5u) | ((a.flags ^ b.flags) & 2u);
        if (__umul64hi(a.magnitude, b.magnitude) != 0) flags |= 4u;
        return State{a.magnitude * b.magnitude, flags};
    }
    __device__ __forceinline__ State add(State s, long long, T x) const {
        State v;
        if (x == T(0)) {
            v = State{0ull, 1u};
        } else if constexpr (T(-1) < T(0)) {
            const long long w = static_cast<long long>(x);
            v = w < 0 ? State{0ull - static_cast<unsigned long long>(w), 2u}
                      : State{static_cast<unsigned long long>(w), 0u};
        } else {
            v = State{static_cast<unsigned long long>(x), 0u};
        }
        return (*this)(s, v);
    }
};

template <typename T> struct FloatProdReducer {
    typedef T State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return T(1); }
    __device__ __forceinline__ State add(State s, long long, T x) const { return s * x; }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const { return a * b; }
};

/// The product's output type: i64 for signed integers, u64 for unsigned, the float.
template <typename T> struct IsFloat { static constexpr bool value = T(0.5) != T(0); };

/// A if C, else B.
template <bool C, typename A, typename B> struct Pick { typedef A type; };
template <typename A, typename B> struct Pick<false, A, B> { typedef B type; };

/// The product reducer of T: floats multiply in their own type; integers through ProdState.
template <typename T>
using ProdReducer = typename Pick<IsFloat<T>::value, FloatProdReducer<T>, IntProdReducer<T>>::type;

/// The reducer of list_min / list_max: the value alone (for floats by fmin / fmax; the
/// zero's sign and the NaN are fixed by list_extreme_fix).
template <typename T, bool IS_MAX>
using MinMaxReducer =
    typename Pick<IsFloat<T>::value, FloatExtremeReducer<T, IS_MAX>, IntExtremeReducer<T, IS_MAX>>::type;

/// The exact product as i64 (signed) or u64; reports overflow for list s.
template <bool SIGNED>
__device__ __forceinline__ unsigned long long finish_product(uint64_t s, ProdState p, uint64_t* error_word) {
    if (p.flags & 1u) return 0ull;
    bool over = (p.flags & 4u) != 0;
    if (SIGNED) {
        if (p.flags & 2u) over = over || p.magnitude > 0x8000000000000000ull;
        else over = over || p.magnitude > 0x7fffffffffffffffull;
    }
    if (over) {
        report_error(error_word, s, 1);
        return 0ull;
    }
    return (SIGNED && (p.flags & 2u)) ? 0ull - p.magnitude : p.magnitude;
}

/// Valid non-zero elements (NaN is non-zero).
template <typename T> struct NonzeroReducer {
    typedef long long State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return 0; }
    __device__ __forceinline__ State add(State s, long long, T x) const { return s + (x != T(0) ? 1 : 0); }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const { return a + b; }
};

/// Sum in f64 and count of the valid elements.
struct MeanState {
    double sum;
    long long count;
};
template <typename T> struct MeanReducer {
    typedef MeanState State;
    typedef T Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return State{0.0, 0}; }
    __device__ __forceinline__ State add(State s, long long, T x) const {
        return State{s.sum + static_cast<double>(x), s.count + 1};
    }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const {
        return State{a.sum + b.sum, a.count + b.count};
    }
};

/// Booleans: bit 0 = a valid true seen, bit 1 = a valid false seen.
struct AnyAllReducer {
    typedef uint32_t State;
    typedef uint8_t Value;
    static constexpr bool NEEDS_VALUES = true;
    __device__ __forceinline__ State init() const { return 0u; }
    __device__ __forceinline__ State add(State s, long long, uint8_t x) const { return s | (x ? 1u : 2u); }
    __device__ __forceinline__ State operator()(const State& a, const State& b) const { return a | b; }
};

// ---- finishes: write list s's result, return whether its validity bit is set ----

/// list_sum: the sum narrowed to its output type (overflow reported for list s).
template <typename T> struct SumFinish {
    void* out;
    uint64_t* error_word;
    __device__ __forceinline__ bool operator()(uint64_t s, const typename SumReducer<T>::State& v) const {
        auto r = narrow_sum(s, v, error_word);
        static_cast<decltype(r)*>(out)[s] = r;
        return true;
    }
};

/// list_prod: the float product, or the exact integer product (overflow reported).
template <typename T> struct ProdFinish {
    void* out;
    uint64_t* error_word;
    __device__ __forceinline__ bool operator()(uint64_t s, const typename ProdReducer<T>::State& p) const {
        if constexpr (IsFloat<T>::value) {
            static_cast<T*>(out)[s] = p;
        } else {
            static_cast<unsigned long long*>(out)[s] = finish_product<(T(-1) < T(0))>(s, p, error_word);
        }
        return true;
    }
};

/// list_min / list_max / list_argmin / list_argmax: the value and / or the position
/// (null pointers skipped; an integer min / max has no position); the result is valid
/// when the list has a valid element.
template <typename T> struct ExtremumFinish {
    T* out_values;
    long long* out_positions;
    // Float list_min / list_max: set when a result is a zero or NaN (list_extreme_fix
    // has work); null otherwise.
    uint32_t* fix_flag;
    __device__ __forceinline__ bool operator()(uint64_t s, const Arg<T>& a) const {
        if (out_values) out_values[s] = a.index < 0 ? T(0) : a.value;
        if (out_positions) out_positions[s] = a.index < 0 ? 0 : a.index;
        return a.index >= 0;
    }
    __device__ __forceinline__ bool operator()(uint64_t s, const SeenValue<T>& a) const {
        if (out_values) out_values[s] = a.seen ? a.value : T(0);
        if constexpr (IsFloat<T>::value)
            if (fix_flag != nullptr && a.seen && extreme_is_open(a.value)) atomicOr(fix_flag, 1u);
        return a.seen != 0;
    }
};

/// list_count_nonzero and list_count: the count.
struct CountFinish {
    long long* out;
    __device__ __forceinline__ bool operator()(uint64_t s, long long c) const {
        out[s] = c;
        return true;
    }
};

/// list_mean: the mean in f64, valid when the list has a valid element.
struct MeanFinish {
    double* out;
    __device__ __forceinline__ bool operator()(uint64_t s, const MeanState& m) const {
        out[s] = m.count > 0 ? m.sum / static_cast<double>(m.count) : 0.0;
        return m.count > 0;
    }
};

/// list_any_all: flag = any (want_all = 0) or all (want_all = 1) valid element true.
struct AnyAllFinish {
    uint32_t want_all;
    uint8_t* out_flags;
    __device__ __forceinline__ bool operator()(uint64_t s, uint32_t seen) const {
        out_flags[s] = want_all != 0 ? (seen & 2u) == 0 : (seen & 1u) != 0;
        return true;
    }
};

/// Set bit s of the validity `words` (zeroed by the host) when `valid`. The lanes of a
/// warp that arrive together with bits of one word (thread per list: 32 neighbouring
/// lists) combine them into one atomicOr; others set their bit alone.
__device__ __forceinline__ void set_valid_bit(uint32_t* words, uint64_t s, bool valid) {
    const unsigned active = __activemask();
    const unsigned long long w = s >> 5;
    const int leader = __ffs(active) - 1;
    const unsigned long long leader_w = __shfl_sync(active, w, leader);
    const unsigned bit = valid ? 1u << (s & 31u) : 0u;
    if (__all_sync(active, w == leader_w)) {
        const unsigned bits = __reduce_or_sync(active, bit);
        if ((threadIdx.x & 31u) == static_cast<unsigned>(leader) && bits != 0u) atomicOr(&words[w], bits);
    } else if (bit != 0u) {
        atomicOr(&words[w], bit);
    }
}

/// A finish for the modes: the result, then its validity bit when there are words (a
/// uniform condition: every thread sees the same pointer).
template <typename F> struct WithBits {
    F finish;
    uint32_t* words;
    template <typename S> __device__ __forceinline__ void operator()(uint64_t s, const S& v) const {
        const bool set = finish(s, v);
        if (words != nullptr) set_valid_bit(words, s, set);
    }
};

/// The body of an entry point compiled for MODE (segmented_modes; SEGMENT_LONG_PASSES
/// for the long path's passes 1 and 2).
template <int MODE, typename O, typename R, typename Load, typename F>
__device__ __forceinline__ void list_modes(Load load, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                           const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t lists,
                                           R reducer, F finish, uint32_t* words,
                                           const LongWork& work) {
    segmented<MODE>(load, validity, bit_offset, offsets, list_bits, list_bit_offset, lists, reducer,
                    WithBits<F>{finish, words}, work);
}

#define RAGGED_LIST_ARGS(O, T)                                                              \
    const T *values, const uint8_t *validity, uint64_t bit_offset, const O *offsets,       \
        const uint8_t *list_bits, uint64_t list_bit_offset, uint64_t lists
#define RAGGED_LIST_PASS(T) ArrayLoad<T>{values}, validity, bit_offset, offsets, list_bits, list_bit_offset, lists
// The long path's parameters (common/segmented.cuh, LongWork), last in every modes entry.
#define RAGGED_LONG_ARGS uint64_t long_threshold, uint64_t long_capacity, uint32_t phase, unsigned long long *scratch
#define RAGGED_LONG_WORK LongWork{long_threshold, long_capacity, phase, scratch}

/// The entry points of one typed reduction, with the same parameters (list args,
/// extra..., long args): list_<OP>_<O>_<T>_m<M> runs the main pass in
/// mode M (0..3), list_<OP>_<O>_<T>_long the long path's passes 1 and 2.
#define RAGGED_LIST_ENTRY(OP, ONAME, NAME, SUFFIX, MODE, O, T, REDUCER, FINISH, WORDS, ...)  \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) list_##OP##_##ONAME##_##NAME##_##SUFFIX( \
        RAGGED_LIST_ARGS(O, T), __VA_ARGS__, RAGGED_LONG_ARGS) {                             \
        list_modes<MODE>(RAGGED_LIST_PASS(T), REDUCER, FINISH, WORDS, RAGGED_LONG_WORK); \
    }
#define RAGGED_LIST_ENTRIES(OP, ONAME, NAME, O, T, REDUCER, FINISH, WORDS, ...)              \
    RAGGED_LIST_ENTRY(OP, ONAME, NAME, m0, 0, O, T, REDUCER, FINISH, WORDS, __VA_ARGS__)     \
    RAGGED_LIST_ENTRY(OP, ONAME, NAME, m1, 1, O, T, REDUCER, FINISH, WORDS, __VA_ARGS__)     \
    RAGGED_LIST_ENTRY(OP, ONAME, NAME, m2, 2, O, T, REDUCER, FINISH, WORDS, __VA_ARGS__)     \
    RAGGED_LIST_ENTRY(OP, ONAME, NAME, m3, 3, O, T, REDUCER, FINISH, WORDS, __VA_ARGS__)     \
    RAGGED_LIST_ENTRY(OP, ONAME, NAME, long, SEGMENT_LONG_PASSES, O, T, REDUCER, FINISH, WORDS, __VA_ARGS__)

/// The entry points of one extreme (min, max, argmin, argmax): the values and / or the
/// positions (null pointers skipped) and the validity words.
#define RAGGED_LIST_EXTREME(OP, ONAME, NAME, O, T, REDUCER)                                 \
    RAGGED_LIST_ENTRIES(OP, ONAME, NAME, O, T, REDUCER, (ExtremumFinish<T>{out_values, out_positions, fix_flag}), \
                        out_words, T* out_values, long long* out_positions, uint32_t* out_words, uint32_t* fix_flag)

#define RAGGED_LIST_REDUCE(O, ONAME, T, NAME)                                                \
    RAGGED_LIST_ENTRIES(sum, ONAME, NAME, O, T, SumReducer<T>(), (SumFinish<T>{out, error_word}), \
                        static_cast<uint32_t*>(nullptr), void* out, uint64_t* error_word)    \
    RAGGED_LIST_ENTRIES(prod, ONAME, NAME, O, T, ProdReducer<T>(), (ProdFinish<T>{out, error_word}), \
                        static_cast<uint32_t*>(nullptr), void* out, uint64_t* error_word)    \
    RAGGED_LIST_EXTREME(min, ONAME, NAME, O, T, (MinMaxReducer<T, false>()))                  \
    RAGGED_LIST_EXTREME(max, ONAME, NAME, O, T, (MinMaxReducer<T, true>()))                   \
    RAGGED_LIST_EXTREME(argmin, ONAME, NAME, O, T, (ExtremumReducer<T, false>()))             \
    RAGGED_LIST_EXTREME(argmax, ONAME, NAME, O, T, (ExtremumReducer<T, true>()))              \
    RAGGED_LIST_ENTRIES(count_nonzero, ONAME, NAME, O, T, NonzeroReducer<T>(), CountFinish{out}, \
                        static_cast<uint32_t*>(nullptr), long long* out)                     \
    RAGGED_LIST_ENTRIES(mean, ONAME, NAME, O, T, MeanReducer<T>(), MeanFinish{out}, out_words, \
                        double* out, uint32_t* out_words)

/// list_extreme_fix: a float list_min / list_max leaves open which zero or NaN a list's
/// extreme is; each list whose result is valid (bit set in `words`) and a zero or NaN
/// gets its first valid element equal to it (a zero: == 0, either sign; NaN: every
/// valid element is NaN, so the first valid one) — the lowest position, as the arg
/// forms and the CPU choose. A warp per 32 lists; the warp scans each such list 32
/// elements at a time and stops at the first hit. Nothing to do, and nothing read,
/// unless the reduction set `fix_flag` (a zero or NaN result: rare in most data).
template <typename O, typename T>
__device__ void list_extreme_fix(const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,
                                 uint64_t lists, T* out, const uint32_t* words, const uint32_t* fix_flag) {
    if (*fix_flag == 0u) return;
    const unsigned lane = threadIdx.x & 31u;
    for (uint64_t w0 = global_thread() & ~31ull; w0 < lists; w0 += grid_threads()) {
        const uint64_t s = w0 + lane;
        T v = T(0);
        bool flagged = false;
        if (s < lists && ((words[s >> 5] >> (s & 31u)) & 1u)) {
            v = out[s];
            flagged = extreme_is_open(v);
        }
        unsigned pending = __ballot_sync(0xffffffffu, flagged);
        while (pending != 0u) {
            const int leader = __ffs(pending) - 1;
            pending &= pending - 1u;
            const uint64_t t = w0 + static_cast<uint64_t>(leader);
            const bool want_nan = is_nan(__shfl_sync(0xffffffffu, v, leader));
            const long long b = static_cast<long long>(offsets[t]), e = static_cast<long long>(offsets[t + 1]);
            for (long long p = b; p < e; p += 32) {
                const long long q = p + static_cast<long long>(lane);
                T x = T(0);
                bool hit = false;
                if (q < e && is_valid(validity, bit_offset, static_cast<uint64_t>(q))) {
                    x = values[q];
                    hit = want_nan || x == T(0);
                }
                const unsigned hits = __ballot_sync(0xffffffffu, hit);
                if (hits != 0u) {
                    if (static_cast<int>(lane) == __ffs(hits) - 1) out[t] = x;
                    break;
                }
            }
        }
    }
}

/// The extreme tiles of one element type (4 or 8 bytes; common/segmented_tiles.cuh):
/// list_<min|max>_tiles_first_<O>_<T> (step 1, with the validity words and the count
/// of their set bits),
/// list_<min|max>_tiles_<O>_<T> (step 2, a block per tile) and, for floats,
/// list_extreme_tiles_spanning_<O>_<T> (step 3, min and max alike); `out` holds one
/// result per list, keys of T (TileExtreme<T, IS_MAX>::Key, the size of T) for lists
/// spanning tiles until step 3.
#define RAGGED_LIST_TILES_ONE(OP, IS_MAX, O, ONAME, T, NAME)                                 \
    extern "C" __global__ void __launch_bounds__(TILE_SUM_BLOCK) list_##OP##_tiles_first_##ONAME##_##NAME( \
        const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t lists, \
        long long base, long long tile, uint64_t tiles, unsigned long long* first, void* out, \
        uint32_t* words, unsigned long long* set_count) {                                   \
        typedef TileExtreme<T, IS_MAX> E;                                                   \
        segment_tiles(offsets, list_bits, list_bit_offset, lists, base, tile, tiles, first, \
                      E::identity_key(), static_cast<E::Key*>(out), words, set_count);      \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(TILE_SUM_BLOCK) list_##OP##_tiles_##ONAME##_##NAME( \
        const T* values, const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, \
        const unsigned long long* first, long long base, long long lo, long long hi, void* out, \
        uint32_t* fix_flag) {                                                               \
        tile_extremes<T, O, IS_MAX>(values, offsets, list_bits, list_bit_offset, first, base, lo, hi, out, \
                                    fix_flag);                                              \
    }
#define RAGGED_LIST_TILES(O, ONAME, T, NAME)                                                 \
    RAGGED_LIST_TILES_ONE(min, false, O, ONAME, T, NAME)                                     \
    RAGGED_LIST_TILES_ONE(max, true, O, ONAME, T, NAME)
#define RAGGED_LIST_TILES_SPANNING(O, ONAME, T, NAME)                                        \
    extern "C" __global__ void __launch_bounds__(TILE_SUM_BLOCK) list_extreme_tiles_spanning_##ONAME##_##NAME( \
        const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, long long base, \
        long long tile, uint64_t tiles, const unsigned long long* first, void* out, uint32_t* fix_flag) { \
        extreme_tiles_spanning<T, O>(offsets, list_bits, list_bit_offset, base, tile, tiles, first, out, \
                                     fix_flag);                                             \
    }
#define RAGGED_LIST_FIX(O, ONAME, T, NAME)                                                   \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) list_extreme_fix_##ONAME##_##NAME( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, const O* offsets,    \
        uint64_t lists, T* out, const uint32_t* words, const uint32_t* fix_flag) {          \
        list_extreme_fix<O, T>(values, validity, bit_offset, offsets, lists, out, words, fix_flag); \
    }

#if defined(RAGGED_LISTS_REDUCE_OFFSET)
#if RAGGED_LISTS_REDUCE_OFFSET == 32
#define RAGGED_LIST_REDUCE_TYPED(T, NAME) RAGGED_LIST_REDUCE(int32_t, i32, T, NAME)
#define RAGGED_LIST_TILES_TYPED(T, NAME) RAGGED_LIST_TILES(int32_t, i32, T, NAME)
#define RAGGED_LIST_FIX_TYPED(T, NAME) RAGGED_LIST_FIX(int32_t, i32, T, NAME)
#define RAGGED_LIST_TILES_SPANNING_TYPED(T, NAME) RAGGED_LIST_TILES_SPANNING(int32_t, i32, T, NAME)
#else
#define RAGGED_LIST_REDUCE_TYPED(T, NAME) RAGGED_LIST_REDUCE(int64_t, i64, T, NAME)
#define RAGGED_LIST_TILES_TYPED(T, NAME) RAGGED_LIST_TILES(int64_t, i64, T, NAME)
#define RAGGED_LIST_FIX_TYPED(T, NAME) RAGGED_LIST_FIX(int64_t, i64, T, NAME)
#define RAGGED_LIST_TILES_SPANNING_TYPED(T, NAME) RAGGED_LIST_TILES_SPANNING(int64_t, i64, T, NAME)
#endif
#if RAGGED_LISTS_REDUCE_VALUES == 1
RAGGED_LIST_REDUCE_TYPED(int8_t, i8)
RAGGED_LIST_REDUCE_TYPED(uint8_t, u8)
RAGGED_LIST_REDUCE_TYPED(int16_t, i16)
RAGGED_LIST_REDUCE_TYPED(uint16_t, u16)
#elif RAGGED_LISTS_REDUCE_VALUES == 2
RAGGED_LIST_REDUCE_TYPED(int32_t, i32)
RAGGED_LIST_REDUCE_TYPED(uint32_t, u32)
RAGGED_LIST_REDUCE_TYPED(int64_t, i64)
RAGGED_LIST_REDUCE_TYPED(uint64_t, u64)
RAGGED_LIST_TILES_TYPED(int32_t, i32)
RAGGED_LIST_TILES_TYPED(uint32_t, u32)
RAGGED_LIST_TILES_TYPED(int64_t, i64)
RAGGED_LIST_TILES_TYPED(uint64_t, u64)
#else
RAGGED_LIST_REDUCE_TYPED(float, f32)
RAGGED_LIST_REDUCE_TYPED(double, f64)
RAGGED_LIST_TILES_TYPED(float, f32)
RAGGED_LIST_TILES_TYPED(double, f64)
RAGGED_LIST_TILES_SPANNING_TYPED(float, f32)
RAGGED_LIST_TILES_SPANNING_TYPED(double, f64)
RAGGED_LIST_FIX_TYPED(float, f32)
RAGGED_LIST_FIX_TYPED(double, f64)
#endif
#endif  // RAGGED_LISTS_REDUCE_OFFSET

#if defined(RAGGED_LISTS_REDUCE_SHARED)

/// list_count: valid elements of each list (child validity only). Without a child
/// validity bitmap the count is the list length (thread per list, whatever the mode).
/// Both have one entry point per mode (_m0 .. _m3); neither uses the long path.
/// list_any_all: flag = any (want_all = 0) or all (want_all = 1) valid element true.
#define RAGGED_LIST_COUNT_MODE(O, ONAME, M)                                                  \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) list_count_##ONAME##_m##M(        \
        const uint8_t* validity, uint64_t bit_offset, const O* offsets, const uint8_t* list_bits, \
        uint64_t list_bit_offset, uint64_t lists, long long* out) {         \
        if (validity == nullptr) {                                                          \
            for (uint64_t s = global_thread(); s < lists; s += grid_threads()) {            \
                long long begin, end;                                                       \
                segment_range(offsets, list_bits, list_bit_offset, s, begin, end);          \
                out[s] = end - begin;                                                       \
            }                                                                               \
            return;                                                                         \
        }                                                                                   \
        const uint8_t* none = nullptr;                                                      \
        segmented<M>(ArrayLoad<uint8_t>{none}, validity, bit_offset, offsets, list_bits, list_bit_offset, lists, \
                  CountReducer<uint8_t>(), [=](uint64_t s, long long c) { out[s] = c; }); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) list_any_all_##ONAME##_m##M(      \
        const uint8_t* bits, uint64_t bits_offset, const uint8_t* validity, uint64_t bit_offset, \
        const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t lists, \
        uint32_t want_all, uint8_t* out_flags) {                            \
        segmented<M>(BitLoad{bits, bits_offset}, validity, bit_offset, offsets, list_bits, list_bit_offset, lists, \
                  AnyAllReducer(), [=](uint64_t s, uint32_t seen) {                   \
                      AnyAllFinish{want_all, out_flags}(s, seen);                           \
                  });                                                                       \
    }
#define RAGGED_LIST_COUNT(O, ONAME) RAGGED_FOR_EACH_MODE(RAGGED_LIST_COUNT_MODE, O, ONAME)
RAGGED_LIST_COUNT(int32_t, i32)
RAGGED_LIST_COUNT(int64_t, i64)

/// list_plan: what the host needs to pick the mapping, in one launch of one block
/// (written into the backend's mapped result slot): out[k] = how many of SEGMENT_BLOCK
/// sampled lists (list i * lists / SEGMENT_BLOCK, null or not) are shorter than 8, 128
/// and 2048 elements (k = 0, 1, 2) — the median list length is below a bound when the count passes half —
/// and the child range the lists cover, out[3] = offsets[0] and out[4] = offsets[lists].
/// Zeroes the long path's two counters when `counters` is not null.
#define RAGGED_LIST_PLAN(O, ONAME)                                                          \
    extern "C" __global__ void __launch_bounds__(SEGMENT_BLOCK) list_plan_##ONAME(         \
        const O* offsets, uint64_t lists, long long* out, unsigned long long* counters) {   \
        __shared__ unsigned int below[3];                                                   \
        if (threadIdx.x < 3) below[threadIdx.x] = 0;                                        \
        __syncthreads();                                                                    \
        if (lists > 0) {                                                                    \
            const uint64_t s = static_cast<uint64_t>(threadIdx.x) * lists / SEGMENT_BLOCK;  \
            const long long len = static_cast<long long>(offsets[s + 1]) - static_cast<long long>(offsets[s]); \
            if (len < 8) atomicAdd(&below[0], 1u);                                          \
            if (len < 128) atomicAdd(&below[1], 1u);                                        \
            if (len < 2048) atomicAdd(&below[2], 1u);                                       \
        }                                                                                   \
        __syncthreads();                                                                    \
        if (threadIdx.x == 0) {                                                             \
            for (int k = 0; k < 3; ++k) out[k] = below[k];                                  \
            out[3] = lists > 0 ? static_cast<long long>(offsets[0]) : 0;                    \
            out[4] = lists > 0 ? static_cast<long long>(offsets[lists]) : 0;                \
            if (counters != nullptr) {                                                      \
                counters[0] = 0;                                                            \
                counters[1] = 0;                                                            \
            }                                                                               \
        }                                                                                   \
    }
RAGGED_LIST_PLAN(int32_t, i32)
RAGGED_LIST_PLAN(int64_t, i64)
#endif  // RAGGED_LISTS_REDUCE_SHARED
