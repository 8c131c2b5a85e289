// reduce: the sum of the valid values of a primitive column (reduce_sum).
//
// Two phases, both built on cub::BlockReduce:
//   partial: a grid sized to fill the chip walks the values in a grid-stride loop,
//            four independent loads in flight per thread; nulls contribute 0. Each
//            thread accumulates in Acc, the block reduces to one Wide value per block.
//   final:   one block reduces the per-block partials to the result.
// Accumulators: integers sum per thread in 64 bits (i8..i32, u8..u32: a thread sees
// far fewer than 2^32 values, so this cannot overflow) or 128 bits (i64, u64); blocks
// and the final sum use 128 bits, and the host checks that the total fits i64 / u64,
// so overflow is reported, never wrapped. Floats accumulate in their own type.
// Pseudo-code:
//   partial[b] = sum_{i in grid-stride range of block b} (valid(i) ? x[i] : 0)
//   out = sum_b partial[b]
// Complexity: O(n) work, one read of the values (and validity), O(grid) extra bytes.
#include "common/ragged.cuh"
#include <cub/block/block_reduce.cuh>

constexpr int REDUCE_BLOCK = 256;
constexpr int REDUCE_UNROLL = 4;

template <typename T> struct SumTraits;
#define RAGGED_SUM_TRAITS(T, ACC, WIDE)                                                     \
    template <> struct SumTraits<T> { typedef ACC Acc; typedef WIDE Wide; };
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

template <typename T>
__device__ void reduce_sum_partial(const T* values, const uint8_t* validity, uint64_t bit_offset,
                                   uint64_t n, typename SumTraits<T>::Wide* partials) {
    typedef typename SumTraits<T>::Acc Acc;
    typedef typename SumTraits<T>::Wide Wide;
    typedef cub::BlockReduce<Wide, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;

    Acc acc = Acc(0);
    const uint64_t stride = ragged::grid_threads();
    uint64_t i = ragged::global_thread();
    if (validity == nullptr) {
        // Main loop: REDUCE_UNROLL independent coalesced loads in flight.
        for (; i + (REDUCE_UNROLL - 1) * stride < n; i += REDUCE_UNROLL * stride) {
            T v[REDUCE_UNROLL];
#pragma unroll
            for (int k = 0; k < REDUCE_UNROLL; ++k) v[k] = values[i + k * stride];
#pragma unroll
            for (int k = 0; k < REDUCE_UNROLL; ++k) acc += static_cast<Acc>(v[k]);
        }
        for (; i < n; i += stride) acc += static_cast<Acc>(values[i]);
    } else {
        for (; i < n; i += stride) {
            if (ragged::is_valid(validity, bit_offset, i)) acc += static_cast<Acc>(values[i]);
        }
    }
    const Wide block_sum = BlockReduce(temp).Sum(static_cast<Wide>(acc));
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

template <typename T>
__device__ void reduce_sum_final(const typename SumTraits<T>::Wide* partials, uint64_t count,
                                 typename SumTraits<T>::Wide* out) {
    typedef typename SumTraits<T>::Wide Wide;
    typedef cub::BlockReduce<Wide, REDUCE_BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    Wide acc = Wide(0);
    for (uint64_t i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
    const Wide total = BlockReduce(temp).Sum(acc);
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
        reduce_sum_final<T>(partials, count, out);                                          \
    }
RAGGED_REDUCE_SUM(int8_t, i8)
RAGGED_REDUCE_SUM(int16_t, i16)
RAGGED_REDUCE_SUM(int32_t, i32)
RAGGED_REDUCE_SUM(int64_t, i64)
RAGGED_REDUCE_SUM(uint8_t, u8)
RAGGED_REDUCE_SUM(uint16_t, u16)
RAGGED_REDUCE_SUM(uint32_t, u32)
RAGGED_REDUCE_SUM(uint64_t, u64)
RAGGED_REDUCE_SUM(float, f32)
RAGGED_REDUCE_SUM(double, f64)
