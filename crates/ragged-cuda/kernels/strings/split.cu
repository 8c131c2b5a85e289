// split: the parts of every row of a strings column cut at a literal delimiter
// (m > 0 bytes) or at runs of ASCII whitespace (m = 0), at most `cuts` cuts counted
// from the left (split) or from the right (rsplit), as ragged_core::ops::split_ranges
// defines them. Parts are numbered from the left either way.
//
// split_count_<dir>_<O>: each valid row's number of parts (0 for a null row) and their
//   maximum (atomicMax), from which the host sizes the output.
// SplitPart (split_part_one_pass_<O>, split_part_sizes / _fill_<O>): output column
//   `part` of split / rsplit when there are few columns, run by the string transform
//   helpers (one pass, bounded by the input's bytes): row i's part `part`, null where
//   the row is null or has no such part (counts[i] from split_count).
// split_parts_<dir>_<O>: when there are many columns, part k of row i as a byte range
//   out_starts[k * rows + i], out_stops[k * rows + i] for k < columns (empty at the
//   row's start where the row has no part k), and the validity of each output column
//   (valid row and k < parts), packed by warp ballots into words[k * words_per_column
//   ..], its unset bits counted into nulls[k]; the host gathers each column from them.
// split_record_parts_<dir>_<O>: for split_record, every part of valid row i as a byte
//   range out_starts[j], out_stops[j] at j = list_offsets[i] + k (part k, numbered from
//   the left), where list_offsets is the scan of split_count's counts; the host then
//   builds the parts' column the same way.
// Mapping: one thread per row (grid-stride for the count and the record parts).
// Complexity: O(bytes × delimiter length) worst case, O(bytes) typically, per kernel.
#include "common/one_pass.cuh"

using namespace ragged;

__device__ __forceinline__ bool split_ws(uint8_t b) {
    return b == ' ' || b == '\t' || b == '\n' || b == 0x0b || b == 0x0c || b == '\r';
}

/// Call emit(j, a, b) for the row's parts in discovery order (left to right, or right
/// to left when RIGHT) and return their number.
template <bool RIGHT, typename Emit>
__device__ __forceinline__ long long for_each_part(string_view row, const uint8_t* d, long long m,
                                                   unsigned long long cuts, Emit emit) {
    long long found = 0;
    const long long n = row.size;
    if (m > 0) {
        if (RIGHT) {
            long long end = n, p = n;
            while (static_cast<unsigned long long>(found) < cuts && p >= m) {
                long long k = 0;
                while (k < m && row[p - m + k] == d[k]) ++k;
                if (k == m) {
                    emit(found++, p, end);
                    end = p - m;
                    p -= m;
                } else {
                    --p;
                }
            }
            emit(found++, 0, end);
        } else {
            long long start = 0, p = 0;
            while (static_cast<unsigned long long>(found) < cuts && p + m <= n) {
                long long k = 0;
                while (k < m && row[p + k] == d[k]) ++k;
                if (k == m) {
                    emit(found++, start, p);
                    p += m;
                    start = p;
                } else {
                    ++p;
                }
            }
            emit(found++, start, n);
        }
        return found;
    }
    if (RIGHT) {
        long long end = n;
        while (true) {
            while (end > 0 && split_ws(row[end - 1])) --end;
            if (end == 0) break;
            if (static_cast<unsigned long long>(found) == cuts) {
                emit(found++, 0, end);
                break;
            }
            long long start = end;
            while (start > 0 && !split_ws(row[start - 1])) --start;
            emit(found++, start, end);
            end = start;
        }
    } else {
        long long start = 0;
        while (true) {
            while (start < n && split_ws(row[start])) ++start;
            if (start == n) break;
            if (static_cast<unsigned long long>(found) == cuts) {
                emit(found++, start, n);
                break;
            }
            long long end = start;
            while (end < n && !split_ws(row[end])) ++end;
            emit(found++, start, end);
            start = end;
        }
    }
    return found;
}

template <typename O, bool RIGHT>
__device__ void split_count(StringInput col, uint64_t rows, const uint8_t* d, long long m,
                            unsigned long long cuts, int32_t* counts, unsigned long long* max_parts) {
    unsigned long long most = 0;
    for (uint64_t row = global_thread(); row < rows; row += grid_threads()) {
        long long parts = 0;
        if (col.valid(row)) parts = for_each_part<RIGHT>(col.get(row), d, m, cuts, [](long long, long long, long long) {});
        counts[row] = static_cast<int32_t>(parts);
        most = parts > static_cast<long long>(most) ? parts : most;
    }
    if (most > 0) atomicMax(max_parts, most);
}

template <typename O, bool RIGHT>
__device__ void split_parts(StringInput col, uint64_t rows, const uint8_t* d, long long m,
                            unsigned long long cuts, const int32_t* counts, uint32_t columns, O* out_starts,
                            O* out_stops, uint32_t* words, unsigned long long* nulls) {
    const uint64_t rounded = (rows + 31) / 32 * 32;
    const uint64_t words_per_column = (rows + 31) / 32;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        long long parts = 0;
        if (row < rows) {
            parts = counts[row];
            const long long begin = col.offset(row);
            if (parts > 0) {
                for_each_part<RIGHT>(col.get(row), d, m, cuts, [&](long long j, long long a, long long b) {
                    const uint64_t k = RIGHT ? static_cast<uint64_t>(parts - 1 - j) : static_cast<uint64_t>(j);
                    if (k < columns) {
                        out_starts[k * rows + row] = static_cast<O>(begin + a);
                        out_stops[k * rows + row] = static_cast<O>(begin + b);
                    }
                });
            }
            for (uint64_t k = parts; k < columns; ++k) {
                out_starts[k * rows + row] = static_cast<O>(begin);
                out_stops[k * rows + row] = static_cast<O>(begin);
            }
        }
        // Uniform loop: every lane runs `columns` rounds of ballots.
        for (uint32_t k = 0; k < columns; ++k) {
            unsigned long long zeros = 0;
            ballot_word(row, rows, static_cast<long long>(k) < parts, words + k * words_per_column, zeros);
            if ((threadIdx.x & 31u) == 0 && zeros > 0) atomicAdd(nulls + k, zeros);
        }
    }
}

struct SplitPart {
    StringInput col;
    const uint8_t* d;
    long long m;
    unsigned long long cuts;
    const int32_t* counts;
    uint32_t part;
    uint32_t right;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        const long long parts = counts[row];
        if (part >= parts) return false;  // a null row has no parts
        const string_view s = col.get(row);
        long long a = 0, b = 0;
        const auto take = [&](long long j, long long x, long long y) {
            if (j == (right ? parts - 1 - part : part)) {
                a = x;
                b = y;
            }
        };
        if (right) {
            for_each_part<true>(s, d, m, cuts, take);
        } else {
            for_each_part<false>(s, d, m, cuts, take);
        }
        w.bytes(s.data + a, b - a);
        return true;
    }
};
RAGGED_TWO_PASS(SplitPart, split_part)
RAGGED_ONE_PASS(SplitPart, split_part)

template <typename O, bool RIGHT>
__device__ void split_record_parts(StringInput col, uint64_t rows, const uint8_t* d, long long m,
                                   unsigned long long cuts, const int32_t* counts, const O* list_offsets,
                                   O* out_starts, O* out_stops) {
    for (uint64_t row = global_thread(); row < rows; row += grid_threads()) {
        const long long parts = counts[row];
        if (parts == 0) continue;
        const long long begin = col.offset(row);
        const long long first = static_cast<long long>(list_offsets[row]);
        for_each_part<RIGHT>(col.get(row), d, m, cuts, [&](long long j, long long a, long long b) {
            const long long k = RIGHT ? parts - 1 - j : j;
            out_starts[first + k] = static_cast<O>(begin + a);
            out_stops[first + k] = static_cast<O>(begin + b);
        });
    }
}

#define RAGGED_SPLIT(O, ONAME, DIR, RIGHT)                                                  \
    extern "C" __global__ void __launch_bounds__(256) split_count_##DIR##_##ONAME(          \
        StringInput col, uint64_t rows, const uint8_t* d, long long m, unsigned long long cuts, \
        int32_t* counts, unsigned long long* max_parts) {                                   \
        split_count<O, RIGHT>(col, rows, d, m, cuts, counts, max_parts);                    \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256) split_parts_##DIR##_##ONAME(          \
        StringInput col, uint64_t rows, const uint8_t* d, long long m, unsigned long long cuts, \
        const int32_t* counts, uint32_t columns, O* out_starts, O* out_stops, uint32_t* words, \
        unsigned long long* nulls) {                                                        \
        split_parts<O, RIGHT>(col, rows, d, m, cuts, counts, columns, out_starts, out_stops, words, nulls); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256) split_record_parts_##DIR##_##ONAME(   \
        StringInput col, uint64_t rows, const uint8_t* d, long long m, unsigned long long cuts, \
        const int32_t* counts, const O* list_offsets, O* out_starts, O* out_stops) {        \
        split_record_parts<O, RIGHT>(col, rows, d, m, cuts, counts, list_offsets, out_starts, out_stops); \
    }
RAGGED_SPLIT(int32_t, i32, left, false)
RAGGED_SPLIT(int64_t, i64, left, false)
RAGGED_SPLIT(int32_t, i32, right, true)
RAGGED_SPLIT(int64_t, i64, right, true)
