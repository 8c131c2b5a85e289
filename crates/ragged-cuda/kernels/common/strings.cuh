// strings.cuh: ragged's device-side string helpers, for the strings kernels and for
// user transforms (CudaBackend::transform_strings).
//
// - string_view: a row's bytes (pointer + length) with byte search and UTF-8 helpers;
// - StringInput: a strings argument as the kernels read it — a column of either offset
//   width, or one row used for every row (a scalar), with its validity;
// - BoolInput: a boolean column (value bits + validity);
// - Writer: where a two-pass row writes its bytes; in the sizes pass it only counts.
#pragma once
#include "common/ragged.cuh"

namespace ragged {

/// A row's UTF-8 bytes.
struct string_view {
    const uint8_t* data;
    long long size;

    __device__ __forceinline__ bool empty() const { return size == 0; }

    /// Byte `i` (no bounds check).
    __device__ __forceinline__ uint8_t operator[](long long i) const { return data[i]; }

    /// The first byte position >= from where `needle` occurs, or -1.
    __device__ __forceinline__ long long find(string_view needle, long long from = 0) const {
        if (needle.size == 0) return from <= size ? from : -1;
        const uint8_t first = needle.data[0];
        for (long long p = from; p + needle.size <= size; ++p) {
            if (data[p] != first) continue;
            long long k = 1;
            while (k < needle.size && data[p + k] == needle.data[k]) ++k;
            if (k == needle.size) return p;
        }
        return -1;
    }

    /// The first byte position >= from holding `byte`, or -1.
    __device__ __forceinline__ long long find_byte(uint8_t byte, long long from = 0) const {
        for (long long p = from; p < size; ++p)
            if (data[p] == byte) return p;
        return -1;
    }

    /// Whether `needle` occurs.
    __device__ __forceinline__ bool contains(string_view needle) const { return find(needle) >= 0; }

    /// Bytes [a, b).
    __device__ __forceinline__ string_view substr(long long a, long long b) const {
        return string_view{data + a, b - a};
    }

    /// The byte length of the character starting at byte `i` (1 for a continuation
    /// byte, which valid rows never start a character with).
    __device__ __forceinline__ int char_bytes_at(long long i) const {
        const uint8_t b = data[i];
        return b < 0xC0u ? 1 : (b < 0xE0u ? 2 : (b < 0xF0u ? 3 : 4));
    }

    /// The number of characters (bytes that are not 0b10xxxxxx).
    __device__ __forceinline__ long long chars() const {
        long long n = 0;
        for (long long i = 0; i < size; ++i) n += (data[i] & 0xC0u) != 0x80u;
        return n;
    }
};

/// The code point of the UTF-8 character of `len` bytes at p (valid UTF-8).
__device__ __forceinline__ uint32_t decode_utf8(const uint8_t* p, int len) {
    if (len == 1) return p[0];
    if (len == 2) return ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    if (len == 3) return ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    return ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
}

/// The UTF-8 bytes of code point `c` in out[0..4); returns their number.
__device__ __forceinline__ int encode_utf8(uint32_t c, uint8_t* out) {
    if (c < 0x80u) {
        out[0] = static_cast<uint8_t>(c);
        return 1;
    }
    if (c < 0x800u) {
        out[0] = static_cast<uint8_t>(0xC0u | (c >> 6));
        out[1] = static_cast<uint8_t>(0x80u | (c & 0x3Fu));
        return 2;
    }
    if (c < 0x10000u) {
        out[0] = static_cast<uint8_t>(0xE0u | (c >> 12));
        out[1] = static_cast<uint8_t>(0x80u | ((c >> 6) & 0x3Fu));
        out[2] = static_cast<uint8_t>(0x80u | (c & 0x3Fu));
        return 3;
    }
    out[0] = static_cast<uint8_t>(0xF0u | (c >> 18));
    out[1] = static_cast<uint8_t>(0x80u | ((c >> 12) & 0x3Fu));
    out[2] = static_cast<uint8_t>(0x80u | ((c >> 6) & 0x3Fu));
    out[3] = static_cast<uint8_t>(0x80u | (c & 0x3Fu));
    return 4;
}

/// A strings argument: a column (offsets of either width) or a scalar (scalar = 1: row
/// 0 serves every row; a null scalar is a one-row column whose row is null).
struct StringInput {
    const void* offsets;
    const uint8_t* chars;
    const uint8_t* bits;
    uint64_t bit_offset;
    uint32_t wide;
    uint32_t scalar;

    __device__ __forceinline__ uint64_t index(uint64_t row) const { return scalar ? 0 : row; }

    __device__ __forceinline__ long long offset(uint64_t i) const {
        return wide ? static_cast<const long long*>(offsets)[i]
                    : static_cast<long long>(static_cast<const int32_t*>(offsets)[i]);
    }

    /// Whether row `row` is valid.
    __device__ __forceinline__ bool valid(uint64_t row) const { return is_valid(bits, bit_offset, index(row)); }

    /// Row `row`'s bytes, valid or not.
    __device__ __forceinline__ string_view get(uint64_t row) const {
        const uint64_t i = index(row);
        const long long a = offset(i);
        return string_view{chars + a, offset(i + 1) - a};
    }
};

/// A boolean column: value bits and validity, each from a bit offset.
struct BoolInput {
    const uint8_t* values;
    uint64_t value_offset;
    const uint8_t* bits;
    uint64_t bit_offset;

    /// Whether row `row` is valid and true.
    __device__ __forceinline__ bool is_true(uint64_t row) const {
        return is_valid(bits, bit_offset, row) && is_valid(values, value_offset, row);
    }
};

/// Where a row of a two-pass transform goes: with out == nullptr (the sizes pass) the
/// writer only counts bytes; in the fill pass it writes them at out.
struct Writer {
    uint8_t* out;
    long long pos;

    __device__ __forceinline__ void bytes(const uint8_t* p, long long n) {
        if (out != nullptr)
            for (long long i = 0; i < n; ++i) out[pos + i] = p[i];
        pos += n;
    }
    __device__ __forceinline__ void str(string_view s) { bytes(s.data, s.size); }
    __device__ __forceinline__ void byte(uint8_t b) {
        if (out != nullptr) out[pos] = b;
        pos += 1;
    }
};

}  // namespace ragged
