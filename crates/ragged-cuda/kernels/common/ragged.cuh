// ragged.cuh: the common device header every kernel module includes.
//
// - fixed-width integer names (NVRTC has no <cstdint> by default),
// - the device error word: kernels report an input error at index i with code c by
//   atomicMin on a 64-bit word holding (i << 8) | c, so the lowest failing index wins
//   and the host turns it into the same structured error the CPU backend returns,
// - validity bitmap access (Arrow LSB bit order),
// - instantiation macros that give every entry point the name <op>_<phase>_<suffix>.
#pragma once

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
// nvcc (the tuning experiments under experiments/) has the C headers.
#include <cstdint>
#endif

namespace ragged {

// ---- device error word ------------------------------------------------------------

/// The "no error" value of an error word (the host initializes words to this).
constexpr uint64_t NO_ERROR = ~0ull;

/// Report an input error at `index` with `code` (1..255). Lowest index wins; at equal
/// index the lowest code wins. Codes are defined per op on the host side.
__device__ __forceinline__ void report_error(uint64_t* word, uint64_t index, uint32_t code) {
    atomicMin(reinterpret_cast<unsigned long long*>(word),
              static_cast<unsigned long long>((index << 8) | (code & 0xffu)));
}

// ---- validity ---------------------------------------------------------------------

/// Whether slot `i` is valid in a bitmap starting at bit `bit_offset` (null bitmap
/// pointer means every slot is valid).
__device__ __forceinline__ bool is_valid(const uint8_t* bits, uint64_t bit_offset, uint64_t i) {
    if (bits == nullptr) return true;
    const uint64_t b = bit_offset + i;
    return (bits[b >> 3] >> (b & 7)) & 1;
}

/// The validity bits of the ITEMS (<= 24) slots first .. first + ITEMS of a bitmap of
/// `n` slots starting at bit `bit_offset`, as bit k of the result (slots past `n` read as
/// 0; a null bitmap means every slot is valid). Reads at most four bytes, never past the
/// bitmap's last byte: one call replaces ITEMS per-slot lookups.
template <int ITEMS>
__device__ __forceinline__ uint32_t valid_bits(const uint8_t* bits, uint64_t bit_offset, uint64_t first, uint64_t n) {
    static_assert(ITEMS <= 24, "valid_bits reads at most 32 bits");
    const uint32_t in_range = first >= n ? 0u : (n - first >= ITEMS ? (1u << ITEMS) - 1u : (1u << (n - first)) - 1u);
    if (bits == nullptr) return in_range;
    const uint64_t b = bit_offset + first;
    const uint64_t byte = b >> 3;
    const uint64_t end_byte = (bit_offset + n + 7) >> 3;
    uint32_t word = 0;
#pragma unroll
    for (int j = 0; j < (ITEMS + 14) / 8; ++j)
        if (byte + j < end_byte) word |= static_cast<uint32_t>(bits[byte + j]) << (8 * j);
    return (word >> (b & 7)) & in_range;
}

// ---- grid helpers -----------------------------------------------------------------

/// Global thread index as 64 bits (grids may cover more than 2^32 elements).
__device__ __forceinline__ uint64_t global_thread() {
    return static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// Total threads in the grid, for grid-stride loops.
__device__ __forceinline__ uint64_t grid_threads() {
    return static_cast<uint64_t>(gridDim.x) * blockDim.x;
}

// ---- bit packing by warp ballots -------------------------------------------------

/// Pack one flag per lane into word `row / 32` (lane 0 writes) and add the unset flags
/// of rows < n to lane 0's `zeros` (added to the global counter once per warp, at the
/// end, by flush_count: a per-step atomic on one address serializes when many warps
/// hold a null). Every lane of the warp must call it.
__device__ __forceinline__ void ballot_word(uint64_t row, uint64_t n, bool flag, uint32_t* words,
                                            unsigned long long& zeros) {
    const unsigned word = __ballot_sync(0xffffffffu, flag);
    const unsigned present = __ballot_sync(0xffffffffu, row < n);
    if ((threadIdx.x & 31u) == 0) {
        words[row / 32] = word;
        zeros += static_cast<unsigned long long>(__popc(present) - __popc(word & present));
    }
}

/// Add lane 0's count of unset flags to `counter` (one atomic per warp and kernel).
__device__ __forceinline__ void flush_count(unsigned long long* counter, unsigned long long zeros) {
    if ((threadIdx.x & 31u) == 0 && zeros > 0) atomicAdd(counter, zeros);
}

// ---- copies to shared memory that bypass registers (cp.async, sm_80+) ------------

/// Starts copying 16 bytes from global memory to shared memory without passing through
/// registers or caching them in L1 (cp.async.cg); both addresses 16-byte aligned. The
/// bytes are in place for the block after copy_async_wait_all() and a barrier.
__device__ __forceinline__ void copy_async_16(void* shared_dst, const void* global_src) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src) : "memory");
}

/// copy_async_16 of which only the first `valid` (1 to 16) bytes are read, the rest of
/// the 16 zero-filled. All 16 source bytes must still lie in the allocation
/// (compute-sanitizer's memcheck checks the whole piece).
__device__ __forceinline__ void copy_async_16_fill(void* shared_dst, const void* global_src, int valid) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global_src), "r"(valid)
                 : "memory");
}

/// Waits for this thread's copy_async_16 copies.
__device__ __forceinline__ void copy_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

/// Closes this thread's group of the copies started since the last one.
__device__ __forceinline__ void copy_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/// Waits until at most one of this thread's groups of copies (the most recent) is still
/// in flight.
__device__ __forceinline__ void copy_async_wait_prior() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }

// ---- byte matching, four bytes at a time ------------------------------------------

/// 0x80 in each byte of `word` equal to the byte repeated in `pattern`, 0 elsewhere,
/// without a loop over bytes: an exact zero-byte test of word ^ pattern (no false
/// positives from borrows).
__device__ __forceinline__ uint32_t equal_flags(uint32_t word, uint32_t pattern) {
    const uint32_t x = word ^ pattern;
    return ~(((x & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | x) & 0x80808080u;
}

/// Bit k of the result = bit 7 of byte k of `flags` (k = 0..3; the other bits are 0):
/// the four flags gathered by one multiplication (the shifted copies land on distinct
/// bits, so nothing carries).
__device__ __forceinline__ uint32_t gather_flags(uint32_t flags) { return ((flags >> 7) * 0x00204081u) >> 21 & 0xFu; }

/// Bit k set where byte k of `word` equals the byte repeated in `pattern` (k = 0..3).
__device__ __forceinline__ uint32_t equal_bytes(uint32_t word, uint32_t pattern) {
    return gather_flags(equal_flags(word, pattern));
}

/// Bit k of the result = bit 7 of byte k of `low` (k = 0..3) and of byte k - 4 of
/// `high` (k = 4..7): gather_flags for two words by one multiplication (high's flags
/// shifted to bits 4, 12, 20, 28 land on bits 25-28, low's on 21-24, nothing carries).
__device__ __forceinline__ uint32_t gather_flag_pair(uint32_t low, uint32_t high) {
    return ((low >> 7 | high >> 3) * 0x00204081u) >> 21 & 0xFFu;
}

/// Bit k set where byte k of the 16 bytes `v` equals the byte repeated in `pattern`
/// (k = 0..15): equal_bytes of its four words, gathered in pairs (eight fewer
/// instructions than four gather_flags).
__device__ __forceinline__ uint32_t equal_bytes16(const uint4& v, uint32_t pattern) {
    return gather_flag_pair(equal_flags(v.x, pattern), equal_flags(v.y, pattern)) |
           gather_flag_pair(equal_flags(v.z, pattern), equal_flags(v.w, pattern)) << 8;
}

/// The longest pattern short_matches compares in registers.
constexpr uint32_t SHORT_MATCH = 4;

/// The positions of a run of 4 * WORDS bytes `w` (little-endian words) where a
/// pattern of m <= SHORT_MATCH bytes starts, as a bit mask (bit k: byte k), with
/// `pattern` its first bytes as a little-endian word and `next` the 4 bytes after the
/// run: for each pattern byte j the flags of the bytes equal to it, moved j bytes down
/// (a funnel shift across neighbouring words), all ANDed — no shared memory and no
/// per-candidate loop. m = 0 gives the positions of the byte pattern & 0xFF.
template <int WORDS>
__device__ __forceinline__ unsigned long long short_matches(const uint32_t (&w)[WORDS], uint32_t next,
                                                            uint32_t pattern, uint32_t m) {
    static_assert(WORDS <= 16, "at most 64 positions");
    uint32_t all[WORDS];
    const uint32_t p0 = 0x01010101u * (pattern & 0xFFu);
#pragma unroll
    for (int i = 0; i < WORDS; ++i) all[i] = equal_flags(w[i], p0);
#pragma unroll
    for (uint32_t j = 1; j < SHORT_MATCH; ++j) {
        if (j < m) {
            const uint32_t pj = 0x01010101u * ((pattern >> (8 * j)) & 0xFFu);
            uint32_t hi = equal_flags(next, pj);
#pragma unroll
            for (int i = WORDS - 1; i >= 0; --i) {
                const uint32_t lo = equal_flags(w[i], pj);
                all[i] &= __funnelshift_r(lo, hi, 8 * j);
                hi = lo;
            }
        }
    }
    unsigned long long bits = 0;
#pragma unroll
    for (int i = 0; i < WORDS; ++i) bits |= static_cast<unsigned long long>(gather_flags(all[i])) << (4 * i);
    return bits;
}

}  // namespace ragged
