// split: the parts of every row of a strings column cut at a literal delimiter
// (m > 0 bytes) or at runs of ASCII whitespace (m = 0), at most `cuts` cuts counted
// from the left (split) or from the right (rsplit), as ragged_core::ops::split_ranges
// defines them (PartWalk below is that rule). Parts are numbered from the left either
// way. The tile kernels (common/tiles.cuh) stage a tile of rows and find a literal
// delimiter's matches as bits of the tile; a tile that does not fit walks its rows'
// bytes in global memory.
//
// split_count_<dir>_<O>: over tiles of rows (grid-stride), the most parts of a valid
//   row (atomicMax into stats[0]) and, by `sums` (SplitSums): the bytes of part k of
//   all rows for k < SPLIT_COLUMNS (stats[1 + k]: the chars of output column k, or,
//   over a sample of the rows, the host's guess at them), or all the parts and their
//   bytes (stats[1], stats[2]: split_record's child); each row's part count (0 for a
//   null row) into `counts` when that is not null. A one-byte delimiter with no limit
//   is counted, not walked.
// split_totals: split_record's totals for a one-byte delimiter with no limit (every
//   occurrence cuts): the delimiters and bytes of the valid rows, the chars counted at
//   the read rate less the null rows' own (totals[0], totals[1]).
// split_columns_<dir>_<O>: all `columns` (<= SPLIT_COLUMNS) output columns of split in
//   one kernel, one block per tile: each row's walk is resumed column by column (its
//   position kept between columns); the columns go two at a time: the block packs
//   each one's validity (valid row with that part) by warp ballots, scans the pair's
//   part sizes together (packed in one word), copies the parts' bytes into the shared
//   stage (by words, copy_shared), then takes the earlier tiles' totals by one
//   look-back, writes both columns' offsets and stores the stage. The rows are read
//   from DRAM once for all the columns.
// split_record_<dir>_<O>: split_record's list offsets and child, one block per tile:
//   each row's parts and bytes scanned together (packed in one word) by one look-back;
//   the list offsets written from the parts' positions, the child's chars through the
//   shared stage and each part's offset in the child at list_offsets[row] + k. For
//   chars of at most u32::MAX bytes and fewer than 2^32 parts.
// SplitRecord (split_record_one_pass_<O>, split_record_sizes / _fill_<O>): the same
//   output by the string transform helpers, a thread per row, for larger chars.
// split_parts_<dir>_<O>: when there are more than SPLIT_COLUMNS columns, part k of row
//   i as a byte range out_starts[k * rows + i], out_stops[k * rows + i] for k < columns
//   (empty at the row's start where the row has no part k), and the validity of each
//   output column (valid row and k < parts), packed by warp ballots into words[k *
//   words_per_column ..], its unset bits counted into nulls[k]; the host gathers each
//   column from them (each row counts its own parts). One thread per row, grid-stride.
// Complexity: O(bytes × delimiter length) worst case, O(bytes) typically, per kernel.
#include "common/one_pass.cuh"
#include "common/tiles.cuh"

using namespace ragged;

/// The most output columns split_columns builds (src/strings/split.rs knows it).
constexpr int SPLIT_COLUMNS = 8;

__device__ __forceinline__ bool split_ws(uint8_t b) {
    return b == ' ' || b == '\t' || b == '\n' || b == 0x0b || b == 0x0c || b == '\r';
}

/// The parts of a row cut at `d` with at most `cuts` cuts, one at a time in discovery
/// order (left to right, or right to left when RIGHT): the split rule itself, which
/// every kernel here walks.
template <bool RIGHT> struct PartWalk {
    string_view row;
    /// The delimiter's matches as bits of a staged tile (tile_match_word), with the
    /// row at tile position `begin`; nullptr: the row's bytes are searched.
    const uint32_t* match;
    int begin;
    /// From the left: where the next part starts; from the right: where it ends.
    long long pos;
    /// Parts found so far.
    long long found;
    bool done;

    /// A walk over `row` from its start.
    __device__ __forceinline__ explicit PartWalk(string_view row_, const uint32_t* match_ = nullptr, int begin_ = 0)
        : row(row_), match(match_), begin(begin_), pos(RIGHT ? row_.size : 0), found(0), done(false) {}

    /// A walk resumed at a saved position and count.
    __device__ __forceinline__ PartWalk(string_view row_, const uint32_t* match_, int begin_, long long pos_,
                                        long long found_)
        : row(row_), match(match_), begin(begin_), pos(pos_), found(found_), done(false) {}

    /// The next part as bytes [a, b) of the row; false when there is none.
    __device__ __forceinline__ bool next(string_view d, unsigned long long cuts, long long& a, long long& b) {
        if (done) return false;
        const long long n = row.size, m = d.size;
        const bool more = static_cast<unsigned long long>(found) < cuts;
        if (m > 0) {
            const long long at = !more ? -1 : (RIGHT ? rfind_in_row(row, match, begin, d, pos) : find_in_row(row, match, begin, d, pos));
            if (at < 0) {
                a = RIGHT ? 0 : pos;
                b = RIGHT ? pos : n;
                done = true;
            } else if (RIGHT) {
                a = at + m;
                b = pos;
                pos = at;
            } else {
                a = pos;
                b = at;
                pos = at + m;
            }
            ++found;
            return true;
        }
        // Runs of ASCII whitespace: none at either end of a part; after the last cut the
        // rest of the row (its outer whitespace stripped on the side walked from).
        if (RIGHT) {
            while (pos > 0 && split_ws(row[pos - 1])) --pos;
            if (pos == 0) {
                done = true;
                return false;
            }
            long long start = 0;
            if (more) {
                start = pos;
                while (start > 0 && !split_ws(row[start - 1])) --start;
            } else {
                done = true;
            }
            a = start;
            b = pos;
            pos = start;
        } else {
            while (pos < n && split_ws(row[pos])) ++pos;
            if (pos == n) {
                done = true;
                return false;
            }
            long long end = n;
            if (more) {
                end = pos;
                while (end < n && !split_ws(row[end])) ++end;
            } else {
                done = true;
            }
            a = pos;
            b = end;
            pos = end;
        }
        ++found;
        return true;
    }
};

/// Call emit(j, a, b) for the row's parts (bytes [a, b)) in discovery order until it
/// returns false; returns the number of parts emitted (all of them when emit never
/// stops).
template <bool RIGHT, typename Emit>
__device__ __forceinline__ long long for_each_part(string_view row, string_view d, unsigned long long cuts, Emit emit,
                                                   const uint32_t* match = nullptr, int begin = 0) {
    PartWalk<RIGHT> walk(row, match, begin);
    long long a = 0, b = 0;
    while (walk.next(d, cuts, a, b))
        if (!emit(walk.found - 1, a, b)) break;
    return walk.found;
}

/// The number of parts of a valid row: a one-byte delimiter's occurrences counted four
/// bytes at a time (they never overlap, so from either end they are the same), else
/// by walking the parts.
template <bool RIGHT>
__device__ __forceinline__ long long part_count(string_view row, string_view d, unsigned long long cuts,
                                                const uint32_t* match = nullptr, int begin = 0) {
    if (d.size == 1) {
        const unsigned long long found = static_cast<unsigned long long>(
            match != nullptr ? count_bits(match, begin, begin + static_cast<int>(row.size)) : row.count_byte(d.data[0]));
        return static_cast<long long>(found < cuts ? found : cuts) + 1;
    }
    return for_each_part<RIGHT>(row, d, cuts, [](long long, long long, long long) { return true; }, match, begin);
}

/// The number of parts of a valid row, with their bytes added to `bytes`: the row less
/// its parts - 1 delimiters, or its parts walked for whitespace (runs of any length).
template <bool RIGHT>
__device__ __forceinline__ long long parts_and_bytes(string_view row, string_view d, unsigned long long cuts,
                                                     const uint32_t* match, int begin, long long& bytes) {
    if (d.size > 0) {
        const long long parts = part_count<RIGHT>(row, d, cuts, match, begin);
        bytes += row.size - d.size * (parts - 1);
        return parts;
    }
    return for_each_part<RIGHT>(
        row, d, cuts,
        [&](long long, long long a, long long b) {
            bytes += b - a;
            return true;
        },
        match, begin);
}

/// What split_count adds up besides the most parts: nothing, the bytes of part k of
/// all rows for k < SPLIT_COLUMNS (split's columns), or all the parts and their bytes
/// (split_record's child).
enum SplitSums : uint32_t { SUM_NONE = 0, SUM_COLUMNS = 1, SUM_TOTALS = 2 };

template <typename O, bool RIGHT>
__device__ void split_count(StringInput col, uint64_t rows, uint32_t tile_rows, string_view d,
                            unsigned long long cuts, int32_t* counts, uint32_t sums, unsigned long long* stats) {
    __shared__ RowTile tile;
    __shared__ uint32_t match[TILE_BYTES / 32 + 1];
    unsigned long long most = 0;
    unsigned long long bytes[SPLIT_COLUMNS] = {};
    // Adds a part's bytes to its column's count (unrolled: bytes stays in registers).
    const auto add = [&](long long column, long long size) {
#pragma unroll
        for (int k = 0; k < SPLIT_COLUMNS; ++k)
            if (k == column) bytes[k] += static_cast<unsigned long long>(size);
    };
    const uint64_t tiles = (rows + tile_rows - 1) / tile_rows;
    for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const TileSpan span(rows, tile_rows, t);
        const uint64_t first = span.first;
        const int n = span.n;
        const TileRows<O> staged(col, tile, match, first, n, d);
        for (int r = threadIdx.x; r < n; r += blockDim.x) {
            const uint64_t row = first + r;
            long long parts = 0;
            if (col.valid(row)) {
                const string_view s = staged.get(r);
                const int at = staged.begin(r);
                if (sums == SUM_NONE) {
                    parts = part_count<RIGHT>(s, d, cuts, staged.match, at);
                } else if (sums == SUM_TOTALS) {
                    // bytes[0]: the parts; bytes[1]: their bytes.
                    long long part_bytes = 0;
                    parts = parts_and_bytes<RIGHT>(s, d, cuts, staged.match, at, part_bytes);
                    bytes[0] += static_cast<unsigned long long>(parts);
                    bytes[1] += static_cast<unsigned long long>(part_bytes);
                } else if (!RIGHT) {
                    parts = for_each_part<false>(
                        s, d, cuts,
                        [&](long long j, long long a, long long b) {
                            add(j, b - a);
                            return true;
                        },
                        staged.match, at);
                } else {
                    // Columns are numbered from the left: the count comes first.
                    parts = part_count<true>(s, d, cuts, staged.match, at);
                    for_each_part<true>(
                        s, d, cuts,
                        [&](long long j, long long a, long long b) {
                            add(parts - 1 - j, b - a);
                            return true;
                        },
                        staged.match, at);
                }
            }
            if (counts != nullptr) counts[row] = static_cast<int32_t>(parts);
            most = static_cast<unsigned long long>(parts) > most ? static_cast<unsigned long long>(parts) : most;
        }
        __syncthreads();  // before the tile is staged again
    }
#pragma unroll
    for (int s = 16; s > 0; s >>= 1) {
        const unsigned long long other = __shfl_xor_sync(0xffffffffu, most, s);
        most = other > most ? other : most;
    }
    if ((threadIdx.x & 31u) == 0 && most > 0) atomicMax(stats, most);
    if (sums == SUM_NONE) return;
#pragma unroll
    for (int k = 0; k < SPLIT_COLUMNS; ++k) {
        unsigned long long sum = bytes[k];
#pragma unroll
        for (int s = 16; s > 0; s >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, s);
        if ((threadIdx.x & 31u) == 0 && sum > 0) atomicAdd(stats + 1 + k, sum);
    }
}

/// The number of bytes equal to `byte` in chars [a, b): 16-byte aligned chunks by
/// vector loads, four at a time per thread (grid-stride), the chunks at the two ends
/// byte by byte.
__device__ __forceinline__ unsigned long long count_byte_range(const uint8_t* chars, long long a, long long b,
                                                               uint8_t byte) {
    const uint32_t pattern = 0x01010101u * byte;
    const auto in_chunk = [&](uint4 v) {
        return __popc(equal_flags(v.x, pattern)) + __popc(equal_flags(v.y, pattern)) +
               __popc(equal_flags(v.z, pattern)) + __popc(equal_flags(v.w, pattern));
    };
    if (a >= b) return 0;
    // Chunk c's 16 bytes, those outside [a, b) replaced by a byte that never matches.
    const auto load = [&](long long lo) {
        if (lo >= a && lo + 16 <= b) return *reinterpret_cast<const uint4*>(chars + lo);
        uint4 v = make_uint4(~pattern, ~pattern, ~pattern, ~pattern);
        uint8_t* w = reinterpret_cast<uint8_t*>(&v);
        for (int j = 0; j < 16; ++j)
            if (lo + j >= a && lo + j < b) w[j] = chars[lo + j];
        return v;
    };
    unsigned long long found = 0;
    const long long base = aligned_base(chars, a);
    const uint64_t chunks = static_cast<uint64_t>((b - base + 15) / 16);
    const uint64_t step = grid_threads();
    uint64_t c = global_thread();
    // Four chunks in flight per thread.
    for (; c + 3 * step < chunks; c += 4 * step) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = load(base + 16ll * static_cast<long long>(c + u * step));
#pragma unroll
        for (int u = 0; u < 4; ++u) found += in_chunk(v[u]);
    }
    for (; c < chunks; c += step) found += in_chunk(load(base + 16ll * static_cast<long long>(c)));
    return found;
}

/// split_record's totals for a one-byte delimiter and no limit, without walking the
/// rows: every occurrence cuts, so the parts of the valid rows are their delimiters
/// plus one each. totals[0] (zeroed by the host) gets the delimiters in the valid
/// rows, totals[1] the valid rows' bytes: the chars between the first and last
/// offsets counted at the read rate (count_byte_range), less the null rows' own
/// (a thread per row, rows whose validity word is all ones skipped by a warp test).
__device__ void record_totals(StringInput col, uint64_t rows, uint8_t byte, unsigned long long* totals) {
    const long long a = col.offset(0), b = col.offset(rows);
    unsigned long long found = count_byte_range(col.chars, a, b, byte);
    unsigned long long bytes = global_thread() == 0 ? static_cast<unsigned long long>(b - a) : 0;
    if (col.bits != nullptr) {
        const uint64_t rounded = (rows + 31) / 32 * 32;
        for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
            const bool null_row = row < rows && !col.valid(row);
            if (!__any_sync(0xffffffffu, null_row)) continue;
            if (null_row) {
                const string_view s = col.get(row);
                // Subtracted modulo 2^64: the sums end right.
                found -= static_cast<unsigned long long>(s.count_byte(byte));
                bytes -= static_cast<unsigned long long>(s.size);
            }
        }
    }
#pragma unroll
    for (int s = 16; s > 0; s >>= 1) {
        found += __shfl_xor_sync(0xffffffffu, found, s);
        bytes += __shfl_xor_sync(0xffffffffu, bytes, s);
    }
    if ((threadIdx.x & 31u) == 0) {
        if (found != 0) atomicAdd(totals, found);
        if (bytes != 0) atomicAdd(totals + 1, bytes);
    }
}

/// Where split_columns writes column k: its offsets (O), chars (capacity[k] bytes: the
/// count pass's stats[1 + k], or the host's guess), validity words and look-back tile
/// state.
struct SplitOutputs {
    void* offsets[SPLIT_COLUMNS];
    uint8_t* chars[SPLIT_COLUMNS];
    uint32_t* validity[SPLIT_COLUMNS];
    void* states[SPLIT_COLUMNS];
    unsigned long long capacity[SPLIT_COLUMNS];
};


// counts[k]: column k's nulls; counts[SPLIT_COLUMNS + k]: its bytes (the last tile).
// A row with more parts than `columns`, or a column's bytes past its capacity (a
// wrong guess, or the count pass and this one disagree), is reported through the
// error word (code 2) and not written. The columns go two at a time: the pair's part
// sizes scanned together, packed in one word (the second column in the high half),
// the tile's totals published, both columns' bytes written into the stage, and only
// then the earlier tiles' totals taken by one look-back over the first column's tile
// state (TileScan) and the stage stored realigned (flush_stage_words).
template <typename O, bool RIGHT>
__device__ void split_columns(StringInput col, uint64_t rows, uint32_t tile_rows, string_view d,
                              unsigned long long cuts, uint32_t columns, const SplitOutputs& out,
                              unsigned long long* counts, uint64_t state_bytes, uint64_t* error_word) {
    typedef unsigned long long Acc;
    __shared__ TileShared shared;
    // `at` and `at_second` (over the stage, which is free until the bytes are copied):
    // the sizes of the tile's rows' parts in the pair's two columns, then their
    // positions in each column's tile output.
    uint32_t* const at = shared.at;
    uint32_t* const at_second = reinterpret_cast<uint32_t*>(shared.stage);
    static_assert(sizeof(shared.stage) >= TILE_ROWS * sizeof(uint32_t), "the sizes fit the stage");
    uint8_t* const stage = shared.stage;
    const TileSpan span(rows, tile_rows, blockIdx.x);
    const int tiles = span.tiles, t = span.t, n = span.n;
    const uint64_t first = span.first;
    const unsigned tid = threadIdx.x;
    const TileRows<O> staged(col, shared.tile, shared.match, first, n, d);
    __shared__ TileScan<unsigned long long>::Storage scan_temp;
    TileScan<unsigned long long> scan{scan_temp, nullptr, state_bytes, tiles};

    // Each row's walk, resumed column by column: from the left columns go 0, 1, ...;
    // from the right the parts come last column first, so columns go down from the
    // last, and a row with p parts starts at column p - 1. Kept per row between
    // pairs of columns: the walk's position and parts found (DONE set when it has
    // ended) and the part count (from the right). The first pair from the left starts
    // its walks in registers: these arrays live in local memory, whose loads missed
    // the L1 left beside the shared memory (PERFORMANCE v0.39), and two columns
    // (one pair) never touch them.
    constexpr uint32_t DONE = 0x80000000u;
    uint32_t pos[TILE_ITEMS], found[TILE_ITEMS], parts[TILE_ITEMS];
    // Row slot i's walk from its start: found DONE for a null row or none.
    const auto start_walk = [&](int i, uint32_t& walk_pos, uint32_t& walk_found) {
        const int r = i * TILE_THREADS + tid;
        walk_pos = 0;
        walk_found = DONE;
        if (r < n && col.valid(first + r)) {
            walk_found = 0;
            walk_pos = static_cast<uint32_t>(PartWalk<RIGHT>(staged.get(r)).pos);
        }
    };
    if (RIGHT) {
#pragma unroll 1
        for (int i = 0; i < TILE_ITEMS; ++i) {
            const int r = i * TILE_THREADS + tid;
            start_walk(i, pos[i], found[i]);
            parts[i] = 0;
            if (!(found[i] & DONE)) {
                const long long p = part_count<true>(staged.get(r), d, cuts, staged.match, staged.begin(r));
                parts[i] = static_cast<uint32_t>(p);
                if (p > static_cast<long long>(columns)) {
                    report_error(error_word, first + r, 2);
                    found[i] = DONE;
                }
            }
        }
    }
    // Row slot i's part k, resumed from its walk (walk_pos, walk_found, advanced): its
    // start and size; false when the row has none.
    const auto next_part = [&](int i, uint32_t k, uint32_t& walk_pos, uint32_t& walk_found, uint32_t& start,
                               uint32_t& size) {
        const int r = i * TILE_THREADS + tid;
        long long x = 0, y = 0;
        bool has = false;
        if (!(walk_found & DONE) && (!RIGHT || k < parts[i])) {
            PartWalk<RIGHT> walk(staged.get(r), staged.match, staged.begin(r), walk_pos, walk_found);
            has = walk.next(d, cuts, x, y);
            walk_pos = static_cast<uint32_t>(walk.pos);
            walk_found = static_cast<uint32_t>(walk.found) | (walk.done ? DONE : 0u);
        }
        start = static_cast<uint32_t>(x);
        size = static_cast<uint32_t>(y - x);
        return has;
    };

    for (uint32_t c = 0; c < columns; c += 2) {
        const bool pair = c + 1 < columns;
        const bool last = c + 2 >= columns;
        // The pair's columns k0, then k1 (when `pair`).
        const uint32_t k0 = RIGHT ? columns - 1 - c : c;
        const uint32_t k1 = RIGHT ? k0 - 1 : k0 + 1;
        unsigned long long nulls0 = 0, nulls1 = 0;
        uint32_t start0[TILE_ITEMS], start1[TILE_ITEMS];
#pragma unroll 1
        for (int i = 0; i < TILE_ITEMS; ++i) {
            const int r = i * TILE_THREADS + tid;
            uint32_t walk_pos, walk_found;
            if (RIGHT || c > 0) {  // uniform
                walk_pos = pos[i];
                walk_found = found[i];
            } else {
                start_walk(i, walk_pos, walk_found);
            }
            uint32_t size0 = 0, size1 = 0;
            start1[i] = 0;
            const bool has0 = next_part(i, k0, walk_pos, walk_found, start0[i], size0);
            const bool has1 = pair && next_part(i, k1, walk_pos, walk_found, start1[i], size1);
            if (!last) {
                pos[i] = walk_pos;
                found[i] = walk_found;
            } else if (!RIGHT && !(walk_found & DONE)) {
                // Every row's parts must have run out by the last column.
                long long x, y;
                if (PartWalk<false>(staged.get(r), staged.match, staged.begin(r), walk_pos, walk_found).next(d, cuts, x, y))
                    report_error(error_word, first + r, 2);
            }
            at[r] = size0;
            at_second[r] = size1;
            // Uniform per warp: a warp whose first row is past the tile has no word.
            if (r - static_cast<int>(tid & 31u) < n) {
                ballot_word(first + r, rows, has0, out.validity[k0], nulls0);
                if (pair) ballot_word(first + r, rows, has1, out.validity[k1], nulls1);
            }
        }
        flush_count(counts + k0, nulls0);
        if (pair) flush_count(counts + k1, nulls1);
        __syncthreads();

        // The tile's positions in both columns (k1's half zero without a pair), its
        // totals published.
        Acc aggregate;
        scan.state_mem = out.states[k0];
        publish_tile_pairs(scan, at, at_second, aggregate);
        const uint32_t size0 = static_cast<uint32_t>(aggregate), size1 = static_cast<uint32_t>(aggregate >> 32);
        // Column k1's positions and sizes, read before the stage is written.
        uint32_t at1[TILE_ITEMS], part1[TILE_ITEMS];
#pragma unroll
        for (int i = 0; i < TILE_ITEMS; ++i) {
            const int r = i * TILE_THREADS + tid;
            at1[i] = at_second[r];
            part1[i] = (r + 1 < TILE_ROWS ? at_second[r + 1] : size1) - at1[i];
        }
        __syncthreads();  // at_second read; the stage is free
        // Before the look-back, the parts into the stage at their places in the tile's
        // output: column k0's from stage[0], column k1's from the next 16-byte boundary,
        // as far as they fit (flush_stage_words realigns them).
        const int second = (static_cast<int>(size0) + 15) & ~15;
        const bool stage0 = static_cast<long long>(size0) <= TWO_PASS_STAGE;
        const bool stage1 = pair && stage0 && second + static_cast<long long>(size1) <= TWO_PASS_STAGE;
        // Part `size` bytes from `start` of row slot r to dst: the stage (to_stage) or
        // the chars.
        const auto copy_part = [&](uint8_t* dst, int r, uint32_t start, uint32_t size, bool to_stage) {
            if (staged.staged && to_stage) {
                copy_shared(dst, staged.staged_bytes(r) + start, size);
            } else {
                const uint8_t* src = staged.get(r).data + start;
                for (uint32_t j = 0; j < size; ++j) dst[j] = src[j];
            }
        };
        // Each slot's local-memory values loaded one slot ahead (their loads missed L1).
        uint32_t s0 = start0[0], s1 = start1[0], a1 = at1[0], p1 = part1[0];
#pragma unroll 1
        for (int i = 0; i < TILE_ITEMS; ++i) {
            const int r = i * TILE_THREADS + tid;
            const bool more = i + 1 < TILE_ITEMS;
            const uint32_t ns0 = more ? start0[i + 1] : 0, ns1 = more ? start1[i + 1] : 0;
            const uint32_t na1 = more ? at1[i + 1] : 0, np1 = more ? part1[i + 1] : 0;
            const uint32_t part0 = (r + 1 < TILE_ROWS ? at[r + 1] : size0) - at[r];
            if (stage0 && part0 != 0) copy_part(stage + at[r], r, s0, part0, true);
            if (stage1 && p1 != 0) copy_part(stage + second + a1, r, s1, p1, true);
            s0 = ns0, s1 = ns1, a1 = na1, p1 = np1;
        }
        const Acc base = scan.look_back(aggregate);
        const uint32_t base0 = static_cast<uint32_t>(base), base1 = static_cast<uint32_t>(base >> 32);
        O* offsets0 = static_cast<O*>(out.offsets[k0]);
        O* offsets1 = static_cast<O*>(out.offsets[k1 < SPLIT_COLUMNS ? k1 : k0]);
#pragma unroll
        for (int i = 0; i < TILE_ITEMS; ++i) {
            const int r = i * TILE_THREADS + tid;
            if (r < n) {
                offsets0[first + r] = static_cast<O>(base0 + at[r]);
                if (pair) offsets1[first + r] = static_cast<O>(base1 + at1[i]);
            }
        }
        if (t == tiles - 1 && tid == 0) {
            offsets0[rows] = static_cast<O>(base0 + size0);
            counts[SPLIT_COLUMNS + k0] = base0 + size0;
            if (pair) {
                offsets1[rows] = static_cast<O>(base1 + size1);
                counts[SPLIT_COLUMNS + k1] = base1 + size1;
            }
        }
        const bool fits0 = base0 + size0 <= out.capacity[k0];
        const bool fits1 = pair && base1 + size1 <= out.capacity[k1];
        if ((!fits0 || (pair && !fits1)) && tid == 0) report_error(error_word, first, 2);
        uint8_t* const chars0 = out.chars[k0] + base0;
        uint8_t* const chars1 = pair ? out.chars[k1] + base1 : chars0;
        // The columns that did not fit the stage go straight to their chars.
        if (!stage0 || (pair && !stage1)) {
#pragma unroll 1
            for (int i = 0; i < TILE_ITEMS; ++i) {
                const int r = i * TILE_THREADS + tid;
                const uint32_t part0 = (r + 1 < TILE_ROWS ? at[r + 1] : size0) - at[r];
                if (!stage0 && fits0 && part0 != 0) copy_part(chars0 + at[r], r, start0[i], part0, false);
                if (!stage1 && fits1 && part1[i] != 0) copy_part(chars1 + at1[i], r, start1[i], part1[i], false);
            }
        }
        if (stage0 && fits0) flush_stage_words(stage, chars0, static_cast<long long>(size0));
        if (stage1 && fits1) flush_stage_words(stage + second, chars1, static_cast<long long>(size1));
        // The next pair reuses the scan storage, `at` and the stage.
        __syncthreads();
    }
}

// split_record's list offsets (rows + 1), child offsets (`part_capacity` + 1) and
// child chars (`capacity` bytes), all found here: each row's parts and bytes scanned
// together by one look-back. counts[0]: the child's bytes, counts[1]: its parts (the
// last tile). A tile whose parts or bytes end past the capacities (the host's totals
// are wrong) is reported through the error word (code 2) and not written.
template <typename O, bool RIGHT>
__device__ void split_record(StringInput col, uint64_t rows, uint32_t tile_rows, string_view d,
                             unsigned long long cuts, O* list_offsets, O* part_offsets,
                             unsigned long long part_capacity, uint8_t* chars, unsigned long long capacity,
                             void* state_mem, uint64_t state_bytes, unsigned long long* counts,
                             uint64_t* error_word) {
    typedef unsigned long long Acc;
    __shared__ TileShared shared;
    // `at`: the tile's rows' bytes, then their positions in the tile's output; until
    // the stage is written, `first_parts` (over it): the rows' parts, then their
    // positions among the tile's parts.
    uint32_t* const at = shared.at;
    uint8_t* const stage = shared.stage;
    uint32_t* const first_parts = reinterpret_cast<uint32_t*>(shared.stage);
    static_assert(sizeof(shared.stage) >= TILE_ROWS * sizeof(uint32_t), "the parts fit the stage");
    const TileSpan span(rows, tile_rows, blockIdx.x);
    const int tiles = span.tiles, t = span.t, n = span.n;
    const uint64_t first = span.first;
    const unsigned tid = threadIdx.x;
    const TileRows<O> staged(col, shared.tile, shared.match, first, n, d);

    // Each row's parts and bytes.
    uint32_t size[TILE_ITEMS], parts[TILE_ITEMS];
#pragma unroll 1
    for (int i = 0; i < TILE_ITEMS; ++i) {
        const int r = i * TILE_THREADS + tid;
        long long p = 0, bytes = 0;
        if (r < n && col.valid(first + r)) {
            p = parts_and_bytes<RIGHT>(staged.get(r), d, cuts, staged.match, staged.begin(r), bytes);
        }
        size[i] = static_cast<uint32_t>(bytes);
        parts[i] = static_cast<uint32_t>(p);
        at[r] = size[i];
        first_parts[r] = parts[i];
    }
    __syncthreads();

    // Parts in the high half, bytes in the low.
    Acc aggregate;
    const Acc base = scan_tile_pairs(at, first_parts, state_mem, state_bytes, tiles, aggregate);
    const Acc end = base + aggregate;
    const uint32_t base_bytes = static_cast<uint32_t>(base), end_bytes = static_cast<uint32_t>(end);
    const Acc base_parts = base >> 32, end_parts = end >> 32;
    if (t == tiles - 1 && tid == 0) {
        counts[0] = end_bytes;
        counts[1] = end_parts;
    }
    if (end_bytes > capacity || end_parts > part_capacity) {  // uniform
        if (tid == 0) report_error(error_word, first, 2);
        return;
    }
    if (t == tiles - 1 && tid == 0) list_offsets[rows] = static_cast<O>(end_parts);
    // Each row's first part, then the stage is free for the output.
    long long row_first_part[TILE_ITEMS];
#pragma unroll
    for (int i = 0; i < TILE_ITEMS; ++i) {
        const int r = i * TILE_THREADS + tid;
        row_first_part[i] = static_cast<long long>(base_parts + first_parts[r]);
        if (r < n) list_offsets[first + r] = static_cast<O>(row_first_part[i]);
    }
    __syncthreads();
    const uint32_t tile_bytes = static_cast<uint32_t>(aggregate);
    const int shift = static_cast<int>(reinterpret_cast<unsigned long long>(chars + base_bytes) & 15u);
    const bool to_stage = static_cast<long long>(tile_bytes) + shift <= TWO_PASS_STAGE;
#pragma unroll 1
    for (int i = 0; i < TILE_ITEMS; ++i) {
        const int r = i * TILE_THREADS + tid;
        if (r >= n || !col.valid(first + r)) continue;
        const long long first_part = row_first_part[i];
        const long long in_tile = at[r];
        const long long row_at = static_cast<long long>(base_bytes) + in_tile;
        const long long total = size[i];
        const long long row_parts = parts[i];
        uint8_t* dst = to_stage ? stage + shift + in_tile : chars + row_at;
        // Part k (from the left) goes after the bytes of parts 0..k: from the left
        // that is the bytes emitted so far, from the right the total less those and
        // the part's own.
        long long emitted = 0;
        const string_view s = staged.get(r);
        for_each_part<RIGHT>(
            s, d, cuts,
            [&](long long j, long long a, long long b) {
                const long long pos = RIGHT ? total - emitted - (b - a) : emitted;
                part_offsets[first_part + (RIGHT ? row_parts - 1 - j : j)] = static_cast<O>(row_at + pos);
                for (long long q = 0; q < b - a; ++q) dst[pos + q] = s.data[a + q];
                emitted += b - a;
                return true;
            },
            staged.match, staged.begin(r));
        // The end of the last part (the next row's first part starts there too).
        part_offsets[first_part + row_parts] = static_cast<O>(row_at + total);
    }
    if (to_stage) {
        __syncthreads();
        flush_stage(stage, chars + base_bytes, static_cast<long long>(tile_bytes), shift);
    }
}

template <typename O, bool RIGHT>
__device__ void split_parts(StringInput col, uint64_t rows, string_view d, unsigned long long cuts,
                            uint32_t columns, O* out_starts, O* out_stops, uint32_t* words,
                            unsigned long long* nulls) {
    const uint64_t rounded = (rows + 31) / 32 * 32;
    const uint64_t words_per_column = (rows + 31) / 32;
    for (uint64_t row = global_thread(); row < rounded; row += grid_threads()) {
        long long parts = 0;
        if (row < rows) {
            const long long begin = col.offset(row);
            if (col.valid(row)) {
                const string_view s = col.get(row);
                // Columns are numbered from the left: from the right the count comes
                // first; from the left the walk counts them.
                const long long known = RIGHT ? part_count<true>(s, d, cuts) : 0;
                parts = for_each_part<RIGHT>(s, d, cuts, [&](long long j, long long a, long long b) {
                    const uint64_t k = RIGHT ? static_cast<uint64_t>(known - 1 - j) : static_cast<uint64_t>(j);
                    if (k < columns) {
                        out_starts[k * rows + row] = static_cast<O>(begin + a);
                        out_stops[k * rows + row] = static_cast<O>(begin + b);
                    }
                    return true;
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

struct SplitRecord {
    StringInput col;
    const uint8_t* d;
    long long m;
    unsigned long long cuts;
    /// The scan of the rows' part counts (rows + 1 values, int32 or int64 as `wide`).
    const void* list_offsets;
    /// The child column's offsets (total parts + 1 values, the same width).
    void* part_offsets;
    uint32_t wide;
    uint32_t right;
    /// Rows of no bytes still have parts to record.
    static constexpr bool FILL_EMPTY_ROWS = true;

    __device__ __forceinline__ long long list_offset(uint64_t i) const {
        return wide ? static_cast<const long long*>(list_offsets)[i]
                    : static_cast<long long>(static_cast<const int32_t*>(list_offsets)[i]);
    }

    __device__ __forceinline__ void set_part_offset(long long i, long long value) const {
        if (wide) static_cast<long long*>(part_offsets)[i] = value;
        else static_cast<int32_t*>(part_offsets)[i] = static_cast<int32_t>(value);
    }

    template <bool RIGHT> __device__ __forceinline__ void write(string_view s, long long first, long long parts, Writer& w) const {
        const string_view delim{d, m};
        // The parts' bytes: the row less its parts - 1 delimiters, or walked for
        // whitespace (runs of any length).
        long long total = 0;
        if (m > 0) {
            total = s.size - m * (parts - 1);
        } else {
            for_each_part<RIGHT>(s, delim, cuts, [&](long long, long long a, long long b) {
                total += b - a;
                return true;
            });
        }
        if (!w.filling()) {
            w.pos = total;
            return;
        }
        // Part k (from the left) goes after the bytes of parts 0..k: from the left
        // that is the bytes emitted so far, from the right the total less those and
        // the part's own.
        long long emitted = 0;
        for_each_part<RIGHT>(s, delim, cuts, [&](long long j, long long a, long long b) {
            const long long at = RIGHT ? total - emitted - (b - a) : emitted;
            set_part_offset(first + (RIGHT ? parts - 1 - j : j), w.start + at);
            w.pos = at;
            w.bytes(s.data + a, b - a);
            emitted += b - a;
            return true;
        });
        // The end of the last part (the next row's first part starts there too).
        set_part_offset(first + parts, w.start + total);
        w.pos = total;
    }

    __device__ bool operator()(uint64_t row, Writer& w) const {
        if (!col.valid(row)) return false;
        const long long first = list_offset(row);
        const long long parts = list_offset(row + 1) - first;
        if (right) write<true>(col.get(row), first, parts, w);
        else write<false>(col.get(row), first, parts, w);
        return true;
    }
};
RAGGED_TWO_PASS(SplitRecord, split_record)
RAGGED_ONE_PASS(SplitRecord, split_record)

#define RAGGED_SPLIT(O, ONAME, DIR, RIGHT)                                                  \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS) split_count_##DIR##_##ONAME( \
        StringInput col, uint64_t rows, uint32_t tile_rows, const uint8_t* d, long long m,  \
        unsigned long long cuts, int32_t* counts, uint32_t sums, unsigned long long* stats) { \
        split_count<O, RIGHT>(col, rows, tile_rows, string_view{d, m}, cuts, counts, sums, stats); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS) split_columns_##DIR##_##ONAME( \
        StringInput col, uint64_t rows, uint32_t tile_rows, const uint8_t* d, long long m,  \
        unsigned long long cuts, uint32_t columns, SplitOutputs out, unsigned long long* counts, \
        uint64_t state_bytes, uint64_t* error_word) {                                       \
        split_columns<O, RIGHT>(col, rows, tile_rows, string_view{d, m}, cuts, columns, out, counts, \
                                state_bytes, error_word);                                   \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(TILE_THREADS) split_record_##DIR##_##ONAME( \
        StringInput col, uint64_t rows, uint32_t tile_rows, const uint8_t* d, long long m,  \
        unsigned long long cuts, O* list_offsets, O* part_offsets, unsigned long long part_capacity, \
        uint8_t* chars, unsigned long long capacity, void* state, uint64_t state_bytes,     \
        unsigned long long* counts, uint64_t* error_word) {                                 \
        split_record<O, RIGHT>(col, rows, tile_rows, string_view{d, m}, cuts, list_offsets, part_offsets, \
                               part_capacity, chars, capacity, state, state_bytes, counts, error_word); \
    }                                                                                       \
    extern "C" __global__ void __launch_bounds__(256) split_parts_##DIR##_##ONAME(          \
        StringInput col, uint64_t rows, const uint8_t* d, long long m, unsigned long long cuts, \
        uint32_t columns, O* out_starts, O* out_stops, uint32_t* words, unsigned long long* nulls) { \
        split_parts<O, RIGHT>(col, rows, string_view{d, m}, cuts, columns, out_starts, out_stops, words, \
                              nulls);                                                       \
    }
extern "C" __global__ void __launch_bounds__(256)
    split_totals(StringInput col, uint64_t rows, uint32_t byte, unsigned long long* totals) {
    record_totals(col, rows, static_cast<uint8_t>(byte), totals);
}
RAGGED_SPLIT(int32_t, i32, left, false)
RAGGED_SPLIT(int64_t, i64, left, false)
RAGGED_SPLIT(int32_t, i32, right, true)
RAGGED_SPLIT(int64_t, i64, right, true)
