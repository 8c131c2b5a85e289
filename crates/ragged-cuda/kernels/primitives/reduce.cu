// reduce: whole-column reductions of a primitive column — reduce_sum, reduce_sum_f64
// (sum of transform(x) in f64), reduce_min/max with their rows (argmin/argmax),
// count_if, and the any/all counts of a bit-packed boolean column.
//
// Mapping: two phases, both built on cub::BlockReduce.
//   partial: a grid sized to fill the chip walks the values in a grid-stride loop; with
//            no validity bitmap the aligned body is read with 16-byte vector loads, two
//            in flight per thread (common/primitives.cuh, for_each_vectorized); nulls
//            contribute the identity. Each block writes one partial.
//   final:   one block reduces the per-block partials to the result.
// For small inputs the host launches the partial kernel with one block, whose partial
// is the result, and skips the final launch.
// Accumulators: sums per thread in 64 bits (<= 32-bit integers; a thread sees far
// fewer than 2^32 values) or 128 bits (64-bit integers); block and grid partials in
// 128 bits; the host checks that the total fits i64 / u64. Floats in their own type.
// Extrema carry (value, row) pairs: NaN loses to numbers, ties go to the lower row.
// Pseudo-code (sum): partial[b] = sum_{i in rows of block b} (valid(i) ? x[i] : 0);
//                    out = sum_b partial[b]
// Complexity: O(n) work, one read of the values (and validity), O(grid) extra bytes.
#include "common/primitives.cuh"
#include <cub/block/block_reduce.cuh>

using namespace ragged;

constexpr int REDUCE_BLOCK = 256;

// ---- sum ---------------------------------------------------------------------------

template <typename T>
__device__ void reduce_sum_partial(const T* values, const uint8_t* validity, uint64_t bit_offset,
                                   uint64_t n, typename SumTraits<T>::Wide* partials) {
    typedef typename SumTraits<T>::Thread Acc;
    typedef typename SumTraits<T>::Wide Wide;
    typedef cub::BlockReduce<Wide, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    Acc acc = Acc(0);
    if (validity == nullptr) {
        for_each_vectorized(values, n, [&](uint64_t, T x) { acc += static_cast<Acc>(x); });
    } else {
        for (uint64_t i = global_thread(); i < n; i += grid_threads())
            if (is_valid(validity, bit_offset, i)) acc += static_cast<Acc>(values[i]);
    }
    const Wide block_sum = BlockReduce(temp).Sum(static_cast<Wide>(acc));
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

template <typename W>
__device__ void sum_partials(const W* partials, uint64_t count, W* out) {
    typedef cub::BlockReduce<W, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    W acc = W(0);
    for (uint64_t i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
    const W total = BlockReduce(temp).Sum(acc);
    if (threadIdx.x == 0) out[0] = total;
}

#define RAGGED_REDUCE_SUM(T, NAME)                                                          \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_sum_partial_##NAME(   \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n,          \
        SumTraits<T>::Wide* partials) {                                                     \
        reduce_sum_partial<T>(values, validity, bit_offset, n, partials);                   \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_sum_final_##NAME(     \
        const SumTraits<T>::Wide* partials, uint64_t count, SumTraits<T>::Wide* out) {      \
        sum_partials(partials, count, out);                                                 \
    }
RAGGED_FOR_EACH_NATIVE(RAGGED_REDUCE_SUM)

// ---- sum of transform(x) in f64 --------------------------------------------------------

template <typename T>
__device__ void reduce_sum_f64_partial(const T* values, const uint8_t* validity,
                                       uint64_t bit_offset, uint64_t n, uint32_t code,
                                       double* partials) {
    typedef cub::BlockReduce<double, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    double acc = 0.0;
    if (validity == nullptr) {
        if (code == 0) for_each_vectorized(values, n, [&](uint64_t, T x) { acc += static_cast<double>(x); });
        else if (code == 1) for_each_vectorized(values, n, [&](uint64_t, T x) { const double v = static_cast<double>(x); acc += v * v; });
        else for_each_vectorized(values, n, [&](uint64_t, T x) { acc += fabs(static_cast<double>(x)); });
    } else {
        for (uint64_t i = global_thread(); i < n; i += grid_threads())
            if (is_valid(validity, bit_offset, i)) acc += transform(values[i], code);
    }
    const double block_sum = BlockReduce(temp).Sum(acc);
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

#define RAGGED_REDUCE_SUM_F64(T, NAME)                                                      \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_sum_f64_partial_##NAME( \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n,          \
        uint32_t code, double* partials) {                                                  \
        reduce_sum_f64_partial<T>(values, validity, bit_offset, n, code, partials);         \
    }
RAGGED_FOR_EACH_NATIVE(RAGGED_REDUCE_SUM_F64)

extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_sum_f64_final(
    const double* partials, uint64_t count, double* out) {
    sum_partials(partials, count, out);
}

// ---- min / max with rows ---------------------------------------------------------------

template <typename T, bool IS_MAX>
__device__ void reduce_extremum_partial(const T* values, const uint8_t* validity,
                                        uint64_t bit_offset, uint64_t n, T* part_values,
                                        long long* part_rows) {
    typedef cub::BlockReduce<Arg<T>, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    Arg<T> best{T(0), -1};
    if (validity == nullptr) {
        for_each_vectorized(values, n, [&](uint64_t i, T x) {
            best = better<T, IS_MAX>(best, Arg<T>{x, static_cast<long long>(i)});
        });
    } else {
        for (uint64_t i = global_thread(); i < n; i += grid_threads())
            if (is_valid(validity, bit_offset, i))
                best = better<T, IS_MAX>(best, Arg<T>{values[i], static_cast<long long>(i)});
    }
    const Arg<T> block_best = BlockReduce(temp).Reduce(best, BetterOp<T, IS_MAX>());
    if (threadIdx.x == 0) {
        part_values[blockIdx.x] = block_best.value;
        part_rows[blockIdx.x] = block_best.index;
    }
}

template <typename T, bool IS_MAX>
__device__ void reduce_extremum_final(const T* part_values, const long long* part_rows,
                                      uint64_t count, T* out_value, long long* out_row) {
    typedef cub::BlockReduce<Arg<T>, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    Arg<T> best{T(0), -1};
    for (uint64_t i = threadIdx.x; i < count; i += blockDim.x)
        best = better<T, IS_MAX>(best, Arg<T>{part_values[i], part_rows[i]});
    const Arg<T> total = BlockReduce(temp).Reduce(best, BetterOp<T, IS_MAX>());
    if (threadIdx.x == 0) {
        out_value[0] = total.value;
        out_row[0] = total.index;
    }
}

#define RAGGED_REDUCE_EXTREMUM(T, NAME)                                                     \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_min_partial_##NAME(   \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n,          \
        T* part_values, long long* part_rows) {                                             \
        reduce_extremum_partial<T, false>(values, validity, bit_offset, n, part_values, part_rows); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_max_partial_##NAME(   \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n,          \
        T* part_values, long long* part_rows) {                                             \
        reduce_extremum_partial<T, true>(values, validity, bit_offset, n, part_values, part_rows); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_min_final_##NAME(     \
        const T* part_values, const long long* part_rows, uint64_t count, T* out_value,     \
        long long* out_row) {                                                               \
        reduce_extremum_final<T, false>(part_values, part_rows, count, out_value, out_row); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_max_final_##NAME(     \
        const T* part_values, const long long* part_rows, uint64_t count, T* out_value,     \
        long long* out_row) {                                                               \
        reduce_extremum_final<T, true>(part_values, part_rows, count, out_value, out_row);  \
    }
RAGGED_FOR_EACH_NATIVE(RAGGED_REDUCE_EXTREMUM)

// ---- count_if --------------------------------------------------------------------------

template <typename T>
__device__ void count_if_partial(const T* values, const uint8_t* validity, uint64_t bit_offset,
                                 uint64_t n, uint32_t cmp, T value,
                                 unsigned long long* partials) {
    typedef cub::BlockReduce<unsigned long long, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    unsigned long long count = 0;
    if (validity == nullptr) {
        for_each_vectorized(values, n, [&](uint64_t, T x) { count += compare(x, cmp, value); });
    } else {
        for (uint64_t i = global_thread(); i < n; i += grid_threads())
            if (is_valid(validity, bit_offset, i)) count += compare(values[i], cmp, value);
    }
    const unsigned long long block_count = BlockReduce(temp).Sum(count);
    if (threadIdx.x == 0) partials[blockIdx.x] = block_count;
}

#define RAGGED_COUNT_IF(T, NAME)                                                            \
    extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) count_if_partial_##NAME(     \
        const T* values, const uint8_t* validity, uint64_t bit_offset, uint64_t n,          \
        uint32_t cmp, T value, unsigned long long* partials) {                              \
        count_if_partial<T>(values, validity, bit_offset, n, cmp, value, partials);         \
    }
RAGGED_FOR_EACH_NATIVE(RAGGED_COUNT_IF)

/// Sums per-block counts (two counts per block for the boolean reduction).
extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) count_final(
    const unsigned long long* partials, uint64_t count, unsigned long long* out) {
    sum_partials(partials, count, out);
}

// ---- any / all over a bit-packed boolean column ------------------------------------------

/// Per block: partials[2b] = #valid rows, partials[2b + 1] = #valid rows that are true.
extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_bool_partial(
    const uint8_t* bits, uint64_t bits_offset, const uint8_t* validity, uint64_t valid_offset,
    uint64_t n, unsigned long long* partials) {
    typedef cub::BlockReduce<unsigned long long, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    unsigned long long valid = 0, set = 0;
    for (uint64_t i = global_thread(); i < n; i += grid_threads()) {
        if (is_valid(validity, valid_offset, i)) {
            valid += 1;
            set += is_valid(bits, bits_offset, i);
        }
    }
    const unsigned long long block_valid = BlockReduce(temp).Sum(valid);
    __syncthreads();
    const unsigned long long block_set = BlockReduce(temp).Sum(set);
    if (threadIdx.x == 0) {
        partials[2 * blockIdx.x] = block_valid;
        partials[2 * blockIdx.x + 1] = block_set;
    }
}

/// out[0] = sum of even partials, out[1] = sum of odd partials.
extern "C" __global__ void __launch_bounds__(REDUCE_BLOCK) reduce_bool_final(
    const unsigned long long* partials, uint64_t blocks, unsigned long long* out) {
    typedef cub::BlockReduce<unsigned long long, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    unsigned long long valid = 0, set = 0;
    for (uint64_t i = threadIdx.x; i < blocks; i += blockDim.x) {
        valid += partials[2 * i];
        set += partials[2 * i + 1];
    }
    const unsigned long long total_valid = BlockReduce(temp).Sum(valid);
    __syncthreads();
    const unsigned long long total_set = BlockReduce(temp).Sum(set);
    if (threadIdx.x == 0) {
        out[0] = total_valid;
        out[1] = total_set;
    }
}
