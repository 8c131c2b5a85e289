// get and slice: element-wise kernels over the lists of an offsets-based list column.
//
// get_<values|bits|ranges>_<O>...: element `index` of every list (negative counts from
// the end, as Python). A list that is null, or too short for the index, gives a null
// row; in error mode (error_mode = 1) a valid list too short reports its row through
// the device error word (code 1, lowest row wins). The output row is valid when the
// list is valid, the index falls inside it and the child element is valid.
//   - values: the element (1, 2, 4 or 8 bytes) is copied;
//   - bits:   boolean children: the value bit is copied into a packed bitmap;
//   - ranges: strings children: the row's byte range out_starts/out_stops (empty for a
//             null output row) — compact_offsets and gather_values then build the
//             strings column.
// Validity (and boolean values) are packed by warp ballots: one 32-bit word per warp
// per step, written by lane 0, which also counts the warp's unset bits and adds them
// to a global counter once, at the end (one atomic per warp, not per step).
//
// slice_<O>: Python's list[start:stop] of every list as a view: out_starts[i] =
// offsets[i] + a, out_stops[i] = offsets[i] + b with (a, b) = python_slice(len, start,
// stop); a null list gets the empty range (offsets[i], offsets[i]).
//
// Mapping: one thread per list, grid-stride over lists rounded up to whole warps (so
// every lane takes part in the ballots).
// Complexity: O(n) work; two offsets read per list, one element gathered per list.
#include "common/ragged.cuh"

using namespace ragged;

constexpr int GET_BLOCK = 256;

/// The child position of element `index` of list `row`, or false when the list is null
/// or the index falls outside it (reported in error mode when the list is valid).
template <typename O>
__device__ __forceinline__ bool get_position(const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset,
                                             uint64_t row, long long index, uint32_t error_mode,
                                             uint64_t* error_word, long long& position) {
    if (!is_valid(list_bits, list_bit_offset, row)) return false;
    const long long begin = static_cast<long long>(offsets[row]);
    const long long len = static_cast<long long>(offsets[row + 1]) - begin;
    // index < 0 and len >= 0: the sum cannot overflow.
    const long long i = index < 0 ? index + len : index;
    if (i < 0 || i >= len) {
        if (error_mode != 0) report_error(error_word, row, 1);
        return false;
    }
    position = begin + i;
    return true;
}

template <typename O, typename U>
__device__ void get_values(const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,
                           long long index, uint32_t error_mode, const U* child, const uint8_t* child_bits,
                           uint64_t child_bit_offset, U* out, uint32_t* out_validity, unsigned long long* nulls,
                           uint64_t* error_word) {
    const uint64_t rounded = (n + 31) / 32 * 32;
    unsigned long long zeros = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        bool valid = false;
        if (row < n) {
            long long position = 0;
            U value = U(0);
            if (get_position(offsets, list_bits, list_bit_offset, row, index, error_mode, error_word, position)) {
                value = child[position];
                valid = is_valid(child_bits, child_bit_offset, position);
            }
            out[row] = value;
        }
        ballot_word(row, n, valid, out_validity, zeros);
    }
    flush_count(nulls, zeros);
}

#define RAGGED_GET_VALUES(O, ONAME, U, UNAME)                                               \
    extern "C" __global__ void __launch_bounds__(GET_BLOCK) get_values_##ONAME##_##UNAME(   \
        const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,   \
        long long index, uint32_t error_mode, const U* child, const uint8_t* child_bits,    \
        uint64_t child_bit_offset, U* out, uint32_t* out_validity, unsigned long long* nulls, \
        uint64_t* error_word) {                                                             \
        get_values<O, U>(offsets, list_bits, list_bit_offset, n, index, error_mode, child, child_bits, \
                         child_bit_offset, out, out_validity, nulls, error_word);           \
    }
#define RAGGED_GET_VALUES_ALL(O, ONAME)                                                     \
    RAGGED_GET_VALUES(O, ONAME, uint8_t, b1)                                                \
    RAGGED_GET_VALUES(O, ONAME, uint16_t, b2)                                               \
    RAGGED_GET_VALUES(O, ONAME, uint32_t, b4)                                               \
    RAGGED_GET_VALUES(O, ONAME, uint64_t, b8)
RAGGED_GET_VALUES_ALL(int32_t, i32)
RAGGED_GET_VALUES_ALL(int64_t, i64)

/// Boolean children: the value bit and the validity bit of each output row, packed.
/// `falses` counts the unset value bits (the value bitmap's "null count").
template <typename O>
__device__ void get_bits(const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,
                         long long index, uint32_t error_mode, const uint8_t* child_values,
                         uint64_t child_values_offset, const uint8_t* child_bits, uint64_t child_bit_offset,
                         uint32_t* out_values, unsigned long long* falses, uint32_t* out_validity,
                         unsigned long long* nulls, uint64_t* error_word) {
    const uint64_t rounded = (n + 31) / 32 * 32;
    unsigned long long false_count = 0, null_count = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        bool valid = false, value = false;
        if (row < n) {
            long long position = 0;
            if (get_position(offsets, list_bits, list_bit_offset, row, index, error_mode, error_word, position)) {
                value = is_valid(child_values, child_values_offset, position);
                valid = is_valid(child_bits, child_bit_offset, position);
            }
        }
        ballot_word(row, n, value, out_values, false_count);
        ballot_word(row, n, valid, out_validity, null_count);
    }
    flush_count(falses, false_count);
    flush_count(nulls, null_count);
}

#define RAGGED_GET_BITS(O, ONAME)                                                           \
    extern "C" __global__ void __launch_bounds__(GET_BLOCK) get_bits_##ONAME(               \
        const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,   \
        long long index, uint32_t error_mode, const uint8_t* child_values,                  \
        uint64_t child_values_offset, const uint8_t* child_bits, uint64_t child_bit_offset, \
        uint32_t* out_values, unsigned long long* falses, uint32_t* out_validity,           \
        unsigned long long* nulls, uint64_t* error_word) {                                  \
        get_bits<O>(offsets, list_bits, list_bit_offset, n, index, error_mode, child_values, \
                    child_values_offset, child_bits, child_bit_offset, out_values, falses,   \
                    out_validity, nulls, error_word);                                       \
    }
RAGGED_GET_BITS(int32_t, i32)
RAGGED_GET_BITS(int64_t, i64)

/// Strings children: the byte range of each output row (empty when the row is null).
template <typename O, typename S>
__device__ void get_ranges(const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,
                           long long index, uint32_t error_mode, const S* row_offsets, const uint8_t* child_bits,
                           uint64_t child_bit_offset, S* out_starts, S* out_stops, uint32_t* out_validity,
                           unsigned long long* nulls, uint64_t* error_word) {
    const uint64_t rounded = (n + 31) / 32 * 32;
    unsigned long long zeros = 0;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        bool valid = false;
        if (row < n) {
            long long position = 0;
            S a = S(0), b = S(0);
            if (get_position(offsets, list_bits, list_bit_offset, row, index, error_mode, error_word, position)) {
                valid = is_valid(child_bits, child_bit_offset, position);
                if (valid) {
                    a = row_offsets[position];
                    b = row_offsets[position + 1];
                }
            }
            out_starts[row] = a;
            out_stops[row] = b;
        }
        ballot_word(row, n, valid, out_validity, zeros);
    }
    flush_count(nulls, zeros);
}

#define RAGGED_GET_RANGES(O, ONAME, S, SNAME)                                               \
    extern "C" __global__ void __launch_bounds__(GET_BLOCK) get_ranges_##ONAME##_##SNAME(   \
        const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,   \
        long long index, uint32_t error_mode, const S* row_offsets, const uint8_t* child_bits, \
        uint64_t child_bit_offset, S* out_starts, S* out_stops, uint32_t* out_validity,     \
        unsigned long long* nulls, uint64_t* error_word) {                                  \
        get_ranges<O, S>(offsets, list_bits, list_bit_offset, n, index, error_mode, row_offsets, child_bits, \
                         child_bit_offset, out_starts, out_stops, out_validity, nulls, error_word); \
    }
RAGGED_GET_RANGES(int32_t, i32, int32_t, i32)
RAGGED_GET_RANGES(int32_t, i32, int64_t, i64)
RAGGED_GET_RANGES(int64_t, i64, int32_t, i32)
RAGGED_GET_RANGES(int64_t, i64, int64_t, i64)

// ---- slice ---------------------------------------------------------------------------------

/// Python's bound: negative counts from the end, clamped to 0..=len.
__device__ __forceinline__ long long python_bound(long long b, long long len) {
    if (b < 0) {
        const long long c = b + len;  // b < 0 and len >= 0: no overflow
        return c < 0 ? 0 : c;
    }
    return b < len ? b : len;
}

template <typename O>
__device__ void slice(const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,
                      uint32_t has_start, long long start, uint32_t has_stop, long long stop, O* out_starts,
                      O* out_stops) {
    for (uint64_t row = global_thread(); row < n; row += grid_threads()) {
        const long long begin = static_cast<long long>(offsets[row]);
        long long a = 0, b = 0;
        if (is_valid(list_bits, list_bit_offset, row)) {
            const long long len = static_cast<long long>(offsets[row + 1]) - begin;
            a = has_start != 0 ? python_bound(start, len) : 0;
            b = has_stop != 0 ? python_bound(stop, len) : len;
            if (b < a) b = a;
        }
        out_starts[row] = static_cast<O>(begin + a);
        out_stops[row] = static_cast<O>(begin + b);
    }
}

#define RAGGED_SLICE(O, ONAME)                                                              \
    extern "C" __global__ void __launch_bounds__(GET_BLOCK) slice_##ONAME(                  \
        const O* offsets, const uint8_t* list_bits, uint64_t list_bit_offset, uint64_t n,   \
        uint32_t has_start, long long start, uint32_t has_stop, long long stop, O* out_starts, \
        O* out_stops) {                                                                     \
        slice<O>(offsets, list_bits, list_bit_offset, n, has_start, start, has_stop, stop, out_starts, out_stops); \
    }
RAGGED_SLICE(int32_t, i32)
RAGGED_SLICE(int64_t, i64)
