// gather: move the elements of lists into a compact child — the kernels behind
// to_compact and flatten (element values, bit-packed booleans and validity, strings),
// local_index (each element's position in its list), and a null count of a bitmap
// range (for zero-copy slices).
//
// Input: n lists, list l holding the source elements starts[l] .. starts[l] + size(l),
// and the compact offsets of the output (offsets[0] = 0, offsets[l + 1] = offsets[l] +
// size(l), offsets[n] = total; from compact_offsets.cu). Output element j belongs to
// the list l with offsets[l] <= j < offsets[l + 1] and copies source element
// starts[l] + (j - offsets[l]).
//
// Mapping (load-balanced over OUTPUT elements, whatever the list lengths). Element
// values of 4 and 8 bytes take gather_runs (one warp per run of 2048 outputs, the lists
// in registers; see its section). The others: one block of
// 256 threads per tile of 256 * G * K consecutive output elements (G = 4 groups per
// thread for element values and local_index, 2 for bits and ranges), where K elements
// make one 16-byte group (16 / element size; 32 bits of a bitmap word). A first launch finds
// (gather_partition, one thread per tile, all in parallel, before the gather) the
// first and last list of each tile by binary search in the offsets; a block stages its
// tile's lists' offsets and starts in shared memory (up to 2048 lists; beyond
// that the searches read global memory). Each thread takes G groups of K consecutive
// outputs (neighbouring threads neighbouring groups, so stores are coalesced 16-byte
// vector stores) and binary-searches the list of each group's first output in shared
// memory (32-bit keys relative to the tile, a step count the same for every lane);
// within a group it moves to the next list only when an element passes the current
// list's end. Element values and local_index first locate all of a thread's groups
// (each search once), then move every group lying whole in one list, or in two (the
// second after any empty lists), at once (the loads of all of them in flight together,
// then 16-byte stores; see ValueBatch); the other groups go element by element,
// walking from the list found to the next staged ones. Groups passing a list end are
// about one in twenty at lists of 64, but one lane's is enough for its whole warp to take
// the element path: the two-list groups keep most warps off it.
// Pseudo-code: for j in tile: l = upper_bound(offsets, j) - 1; out[j] = src[starts[l] + j - offsets[l]]
// Complexity: O(total + lists) work plus O(tiles * log n) for the tile searches; each
// output element written once, each gathered element read once (gather_runs: its
// warps' lists' offsets read once more, 32 at a time).
#include "common/ragged.cuh"

using namespace ragged;

constexpr int GATHER_BLOCK = 256;
/// Groups of K elements per thread per tile (bits and string ranges).
constexpr int GATHER_GROUPS = 2;
/// Groups per thread per tile of the element-value gathers and local_index: a longer
/// tile spreads the tile's setup (partition and offsets staging, two dependent global
/// reads) over more output.
constexpr int GATHER_GROUPS_WIDE = 4;
/// Lists of one tile staged in shared memory (a tile of average-64 lists holds about
/// 64; beyond the cap the searches read global memory).
constexpr int GATHER_CAP = 1024;

/// The largest l in [lo, hi] with offsets[l] <= j (offsets non-decreasing, offsets[lo] <= j).
template <typename O>
__device__ __forceinline__ uint64_t last_at_or_below(const O* offsets, uint64_t lo, uint64_t hi, long long j) {
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (static_cast<long long>(offsets[mid]) <= j) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/// partition[t] = the list holding output element t * tile (t < tiles), partition[tiles]
/// = the list holding the last element (total - 1): tile t's lists lie in
/// partition[t] ..= partition[t + 1]. One thread per entry, each a binary search over
/// the offsets, all in parallel (so no gather block waits on a search).
template <typename O>
__device__ void gather_partition(const O* offsets, uint64_t n, uint64_t total, uint64_t tile, uint64_t tiles,
                                 uint64_t* partition) {
    for (uint64_t t = global_thread(); t <= tiles; t += grid_threads()) {
        const uint64_t j = t < tiles ? t * tile : total - 1;
        partition[t] = last_at_or_below(offsets, 0, n - 1, static_cast<long long>(j));
    }
}

#define RAGGED_GATHER_PARTITION(O, ONAME)                                                   \
    extern "C" __global__ void __launch_bounds__(GATHER_BLOCK) gather_partition_##ONAME(    \
        const O* offsets, uint64_t n, uint64_t total, uint64_t tile, uint64_t tiles,        \
        uint64_t* partition) {                                                              \
        gather_partition<O>(offsets, n, total, tile, tiles, partition);                     \
    }
RAGGED_GATHER_PARTITION(int32_t, i32)
RAGGED_GATHER_PARTITION(int64_t, i64)

/// A batch that claims no group: every group goes through visit / flush (gather_tile
/// never calls its claim or run).
struct NoBatch {
    static constexpr bool ENABLED = false;
};

/// Visit the output elements of this block's tile in groups of K consecutive outputs
/// (GROUPS groups per thread; neighbouring threads neighbouring groups, so a warp's
/// 16-byte stores are coalesced). Each group's first output finds its list by a binary
/// search over the tile's lists staged in shared memory: 32-bit positions relative to
/// the tile and a number of steps set by the tile's list count alone, so the lanes of
/// a warp do not diverge. When Batch::ENABLED, every group lying whole in one list, or
/// in two (the second after any number of empty lists), is offered to
/// `batch.claim(g, j0, source, split, second)`: outputs j0 + k take source + k for
/// k < split and second + (k - split) from there (split = K for one list); then
/// `batch.run(claimed, j0)` moves all claimed groups at once (so that their loads are
/// in flight together). Every other group goes element by element, walking forward
/// from its first output's list: `visit(k, j, list, position, source)` for each of its
/// `count` elements (k < count, in order), then `flush(j0, count)`. `starts` may be
/// null (source = position). `partition` is gather_partition's output for this K.
/// Launch one block of GATHER_BLOCK threads per tile of GATHER_BLOCK * GROUPS * K
/// outputs; total > 0 and n > 0.
template <typename O, int K, int GROUPS, typename Batch, typename Visit, typename Flush>
__device__ __forceinline__ void gather_tile(const O* starts, const O* offsets, const uint64_t* partition,
                                            uint64_t total, Batch& batch, Visit visit, Flush flush) {
    constexpr uint64_t TILE = static_cast<uint64_t>(GATHER_BLOCK) * GROUPS * K;
    __shared__ long long s_offsets[GATHER_CAP + 1];
    __shared__ long long s_starts[GATHER_CAP];
    // offsets[l0 + i] - tile_first, clamped to [-1, TILE] (the searches' keys).
    __shared__ int s_rel[GATHER_CAP + 1];
    const uint64_t tile_first = static_cast<uint64_t>(blockIdx.x) * TILE;
    const uint64_t tile_end = min(total, tile_first + TILE);
    // The tile's lists: l0 holds its first element; every list holding one of its
    // elements is at most l1 (gather_partition).
    const uint64_t l0 = partition[blockIdx.x], l1 = partition[blockIdx.x + 1];
    const uint64_t count = l1 - l0 + 1;
    const bool cached = count <= static_cast<uint64_t>(GATHER_CAP);
    if (cached) {
        for (uint64_t i = threadIdx.x; i <= count; i += GATHER_BLOCK) {
            const long long o = static_cast<long long>(offsets[l0 + i]);
            s_offsets[i] = o;
            const long long rel = o - static_cast<long long>(tile_first);
            s_rel[i] = static_cast<int>(rel < 0 ? -1 : rel > static_cast<long long>(TILE) ? TILE : rel);
        }
        if (starts != nullptr)
            for (uint64_t i = threadIdx.x; i < count; i += GATHER_BLOCK) s_starts[i] = static_cast<long long>(starts[l0 + i]);
    }
    __syncthreads();
    // offset_of(l1 + 1) exists: l1 < n.
    auto offset_of = [&](uint64_t l) -> long long {
        return cached ? s_offsets[l - l0] : static_cast<long long>(offsets[l]);
    };
    auto start_of = [&](uint64_t l) -> long long {
        if (starts == nullptr) return 0;
        return cached ? s_starts[l - l0] : static_cast<long long>(starts[l]);
    };
    // The largest list in [lo, l1] starting at or before j.
    auto find = [&](uint64_t lo, long long j) -> uint64_t {
        if (cached) {
            // Largest r in [lo - l0, count) with s_rel[r] <= j - tile_first: the step
            // count depends on the range alone.
            const int key = static_cast<int>(j - static_cast<long long>(tile_first));
            int r = static_cast<int>(lo - l0), n = static_cast<int>(count) - r;
            while (n > 1) {
                const int half = n >> 1;
                if (s_rel[r + half] <= key) r += half;
                n -= half;
            }
            return l0 + static_cast<uint64_t>(r);
        }
        uint64_t hi = l1;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo + 1) / 2;
            if (static_cast<long long>(offsets[mid]) <= j) lo = mid;
            else hi = mid - 1;
        }
        return lo;
    };
    // The first output of the thread's group g.
    auto first_of = [&](int g) -> uint64_t {
        return tile_first + (static_cast<uint64_t>(g) * GATHER_BLOCK + threadIdx.x) * K;
    };
    uint32_t claimed = 0;
    // The list of each group's first output, found once (by the batch's pass when
    // there is one, else in the element loop).
    uint64_t found[GROUPS];
    if constexpr (Batch::ENABLED) {
        uint64_t firsts[GROUPS];
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) {
            const uint64_t j0 = first_of(g);
            firsts[g] = j0;
            found[g] = l0;
            if (j0 < tile_end) {
                const uint64_t l = find(l0, static_cast<long long>(j0));
                found[g] = l;
                const long long at = static_cast<long long>(j0), end = offset_of(l + 1);
                const long long source = start_of(l) + (at - offset_of(l));
                if (j0 + K <= tile_end) {
                    if (at + K <= end) {
                        if (batch.claim(g, j0, source, K, source)) claimed |= 1u << g;
                    } else if (cached) {
                        // The list holding output `end` (after any empty lists; it is at
                        // most l1, since the tile holds that output) starts there. The
                        // walk passes at most the tile's GATHER_CAP staged lists (an
                        // uncached tile's groups take the element path, which searches).
                        uint64_t m = l + 1;
                        while (offset_of(m + 1) <= end) ++m;
                        if (at + K <= offset_of(m + 1) &&
                            batch.claim(g, j0, source, static_cast<int>(end - at), start_of(m)))
                            claimed |= 1u << g;
                    }
                }
            }
        }
        batch.run(claimed, firsts);
    }
#pragma unroll
    for (int g = 0; g < GROUPS; ++g) {
        const uint64_t j0 = first_of(g);
        if (j0 >= tile_end) break;
        if ((claimed >> g) & 1u) continue;
        const int count_here = static_cast<int>(min(static_cast<uint64_t>(K), tile_end - j0));
        uint64_t l = Batch::ENABLED ? found[g] : find(l0, static_cast<long long>(j0));
        long long base = offset_of(l), next = offset_of(l + 1), source = start_of(l);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (k < count_here) {
                const long long j = static_cast<long long>(j0) + k;
                if (j >= next) {
                    // Lists l + 1 .. (the one holding j) start at or before j: l + 1 <= l1.
                    // Staged, the next lists are walked (a group passes few list ends);
                    // else searched.
                    if (cached) {
                        do {
                            ++l;
                        } while (offset_of(l + 1) <= j);
                    } else {
                        l = find(l + 1, j);
                    }
                    base = offset_of(l);
                    next = offset_of(l + 1);
                    source = start_of(l);
                }
                visit(k, j, l, j - base, source + (j - base));
            }
        }
        flush(j0, count_here);
    }
}

/// K elements of U as one 16-byte store.
template <typename U> struct alignas(16) Pack {
    static constexpr int K = 16 / sizeof(U);
    U v[K];
};

/// Store a group: one 16-byte store when full and aligned, else element by element.
template <typename U>
__device__ __forceinline__ void store_group(U* dst, uint64_t j0, int count, const Pack<U>& p) {
    constexpr int K = Pack<U>::K;
    if (count == K && (reinterpret_cast<uint64_t>(dst + j0) & 15) == 0) {
        *reinterpret_cast<Pack<U>*>(dst + j0) = p;
    } else {
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (k < count) dst[j0 + k] = p.v[k];
    }
}

// ---- element values of 1 and 2 bytes ------------------------------------------------------

/// The claimed groups of gather_values, moved with all their loads issued before any
/// store (each group then one 16-byte store; the destination is 16-byte aligned, or
/// nothing is claimed). A group lying in one list comes from the one or two aligned
/// 16-byte blocks of the source covering it (`block`, and `shift` bytes into the
/// first), shifted into place with __byte_perm; such a group is claimed only when both
/// blocks lie inside the source (`src_len` elements), so nothing outside it is read.
/// (Elements of 4 and 8 bytes take gather_runs below.)
template <typename U, int GROUPS> struct ValueBatch {
    static_assert(sizeof(U) <= 2, "elements of 4 and 8 bytes take gather_runs");
    static constexpr bool ENABLED = true;
    static constexpr int K = Pack<U>::K;
    const U* src;
    uint64_t src_len;
    U* dst;
    bool aligned_dst;
    const uint4* block[GROUPS];
    uint32_t shift[GROUPS];

    __device__ __forceinline__ bool claim(int g, uint64_t, long long s, int cut, long long) {
        if (!aligned_dst || cut != K) return false;
        const uint64_t addr = reinterpret_cast<uint64_t>(src + s);
        const uint64_t off = addr & 15;
        if (off != 0 && addr - off + 32 > reinterpret_cast<uint64_t>(src + src_len)) return false;
        block[g] = reinterpret_cast<const uint4*>(addr - off);
        shift[g] = static_cast<uint32_t>(off);
        return true;
    }

    __device__ __forceinline__ void run(uint32_t claimed, const uint64_t (&firsts)[GROUPS]) {
        uint4 a[GROUPS], b[GROUPS];
#pragma unroll
        for (int g = 0; g < GROUPS; ++g)
            if ((claimed >> g) & 1u) a[g] = block[g][0];
#pragma unroll
        for (int g = 0; g < GROUPS; ++g)
            if ((claimed >> g) & 1u) b[g] = shift[g] != 0 ? block[g][1] : a[g];
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) {
            if ((claimed >> g) & 1u) {
                const uint32_t w[8] = {a[g].x, a[g].y, a[g].z, a[g].w, b[g].x, b[g].y, b[g].z, b[g].w};
                const uint32_t q = shift[g] >> 2;
                const uint32_t selector = 0x3210u + 0x1111u * (shift[g] & 3u);
                // Words q .. q + 4 of w, without dynamic indexing (q is 0..3).
                uint32_t x[5];
#pragma unroll
                for (int i = 0; i < 5; ++i) x[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
                uint32_t r[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) r[i] = __byte_perm(x[i], x[i + 1], selector);
                *reinterpret_cast<uint4*>(dst + firsts[g]) = make_uint4(r[0], r[1], r[2], r[3]);
            }
        }
    }
};

template <typename O, typename U>
__device__ void gather_values(const O* starts, const O* offsets, const uint64_t* partition, uint64_t total,
                              const U* src, uint64_t src_len, U* dst) {
    Pack<U> p;
    ValueBatch<U, GATHER_GROUPS_WIDE> batch;
    batch.src = src;
    batch.src_len = src_len;
    batch.dst = dst;
    batch.aligned_dst = (reinterpret_cast<uint64_t>(dst) & 15) == 0;
    gather_tile<O, Pack<U>::K, GATHER_GROUPS_WIDE>(
        starts, offsets, partition, total, batch,
        [&](int k, long long, uint64_t, long long, long long s) { p.v[k] = src[s]; },
        [&](uint64_t j0, int count) { store_group(dst, j0, count, p); });
}

// At least 4 blocks per SM: without the bound ptxas kept the 2-byte gather at 48
// registers and spilled the batch's addresses to local memory.
#define RAGGED_GATHER_VALUES(O, ONAME, U, UNAME)                                            \
    extern "C" __global__ void __launch_bounds__(GATHER_BLOCK, 4) gather_values_##ONAME##_##UNAME( \
        const O* starts, const O* offsets, const uint64_t* partition, uint64_t total,       \
        const U* src, uint64_t src_len, U* dst) {                                           \
        gather_values<O, U>(starts, offsets, partition, total, src, src_len, dst);         \
    }
#define RAGGED_GATHER_VALUES_ALL(O, ONAME)                                                  \
    RAGGED_GATHER_VALUES(O, ONAME, uint8_t, b1)                                             \
    RAGGED_GATHER_VALUES(O, ONAME, uint16_t, b2)
RAGGED_GATHER_VALUES_ALL(int32_t, i32)
RAGGED_GATHER_VALUES_ALL(int64_t, i64)

// ---- element values of 4 and 8 bytes: one warp per run of outputs --------------------------
//
// Mapping: one warp per warp tile of RUN_TILE consecutive outputs (gather_partition
// with tile = RUN_TILE gives its lists, partition[w] ..= partition[w + 1]), with no
// shared memory and no block barrier. The warp holds 32 consecutive lists in registers
// (a RunLists: lane i list lb + i's first output and source) and moves its outputs in
// windows of 32 groups of K = 16 / element size consecutive outputs (lane k group k;
// one 16-byte store each), RUN_WINDOWS windows with their loads issued before the
// first store. Each lane finds its group's first list by a five-step search over the
// lanes (shuffles) and takes the next list's start and source too, so a group lying in
// one or two lists (every group, at lists longer than K) loads its elements at once;
// when some group of the window passes three lists or more, each element is searched.
// A window passing the last staged list goes 32 outputs at a time in order, staging
// the next 32 lists (a 32-way search over the global offsets when it skips more).
// Compared with the tiled gather above, a warp waits for nothing but its own loads
// (no block barrier between its loads and a tile's setup), and one search serves K
// outputs: with one search per output the schedulers issued 0.78 of the cycles
// (Nsight Compute, H200), limiting the gather to 0.70 x copy; now 0.49 at 0.75.

/// Outputs per warp tile of gather_runs.
constexpr int RUN_TILE = 2048;
/// Windows of 32 groups whose loads a warp issues before it stores them (more spill or
/// cost occupancy).
constexpr int RUN_WINDOWS = 2;

/// 32 consecutive lists lb .. lb + 31 of a warp tile, lane i holding list lb + i.
template <typename O, typename U> struct RunLists {
    /// The first list.
    uint64_t lb;
    /// This lane's list's first output relative to the tile, clamped to [-1, RUN_TILE]
    /// (RUN_TILE for a lane past the tile's last list): a search key never reaches it.
    int rel;
    /// Where output `first + key` of this lane's list is read: from[key].
    const U* from;
    /// Keys (outputs relative to the tile) below this lie in these lists (RUN_TILE when
    /// they hold the tile's last list; same in every lane).
    int end;

    /// Stage lists b .. b + 31 (those up to `last`, the tile's last list).
    __device__ __forceinline__ void load(const O* starts, const O* offsets, const U* src, uint64_t b, uint64_t last,
                                         uint64_t first, uint32_t lane) {
        lb = b;
        rel = RUN_TILE;
        from = src;
        if (b + lane <= last) {
            const long long o = static_cast<long long>(offsets[b + lane]);
            const long long r = o - static_cast<long long>(first);
            rel = static_cast<int>(r < 0 ? -1 : r > RUN_TILE ? RUN_TILE : r);
            const long long start = starts != nullptr ? static_cast<long long>(starts[b + lane]) : 0;
            // Source element start + (first + key - o); the pointer may lie outside
            // the source, the element read never does.
            from = src + (start - r);
        }
        end = RUN_TILE;
        if (b + 32 <= last) {
            const long long r = static_cast<long long>(offsets[b + 32]) - static_cast<long long>(first);
            end = static_cast<int>(r > RUN_TILE ? RUN_TILE : r);
        }
    }

    /// The lane whose list holds key (lb's list starts at or before it, key < end): the
    /// largest i with rel_i <= key, in five shuffles.
    __device__ __forceinline__ int find(int key) const {
        int i = 0;
#pragma unroll
        for (int step = 16; step >= 1; step >>= 1) {
            const int probe = i | step;
            if (__shfl_sync(0xffffffffu, rel, probe) <= key) i = probe;
        }
        return i;
    }
};

/// The largest list in [lo, hi] whose first output is at or before j (offsets[lo] <= j),
/// 32 probes per step (one per lane; the same result in every lane).
template <typename O>
__device__ __forceinline__ uint64_t run_search(const O* offsets, uint64_t lo, uint64_t hi, long long j, uint32_t lane) {
    while (lo < hi) {
        // Probes lo + step .. lo + 32 * step (>= hi); the true ones are a prefix.
        const uint64_t step = (hi - lo + 31) / 32;
        const uint64_t probe = lo + (lane + 1) * step;
        const bool at_or_before = probe <= hi && static_cast<long long>(offsets[probe]) <= j;
        const uint64_t below = __popc(__ballot_sync(0xffffffffu, at_or_before));
        hi = min(hi, lo + (below + 1) * step - 1);
        lo += below * step;
    }
    return lo;
}

/// Move this warp's tile of outputs (see the section comment). Launch one warp per
/// RUN_TILE outputs (blocks of GATHER_BLOCK threads).
template <typename O, typename U>
__device__ void gather_runs(const O* __restrict__ starts, const O* __restrict__ offsets,
                            const uint64_t* __restrict__ partition, uint64_t total, const U* __restrict__ src,
                            U* __restrict__ dst) {
    constexpr int K = Pack<U>::K;
    constexpr int WINDOW = 32 * K;
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t warp = global_thread() >> 5;
    const uint64_t first = warp * RUN_TILE;
    if (first >= total) return;
    const int count = static_cast<int>(min(static_cast<uint64_t>(RUN_TILE), total - first));
    const uint64_t last = partition[warp + 1];
    U* const out = dst + first;
    // Groups are 16-byte aligned when the output is (first is a multiple of RUN_TILE).
    const bool aligned = (reinterpret_cast<uint64_t>(dst) & 15) == 0;
    RunLists<O, U> lists;
    lists.load(starts, offsets, src, partition[warp], last, first, lane);
    auto from_of = [&](int i) {
        return reinterpret_cast<const U*>(
            __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(lists.from), i));
    };
    for (int batch = 0; batch < count; batch += WINDOW * RUN_WINDOWS) {
        Pack<U> v[RUN_WINDOWS];
        // Windows already stored (those passing the staged lists).
        uint32_t stored = 0;
#pragma unroll
        for (int w = 0; w < RUN_WINDOWS; ++w) {
            const int window = batch + WINDOW * w;
            // This lane's group: outputs key .. key + K - 1 (those below count).
            const int key = window + K * static_cast<int>(lane);
            if (min(window + WINDOW - 1, count - 1) < lists.end) {
                // The common case: every output of the window lies in the staged lists.
                // The group's first list i holds outputs up to next - 1, list i + 1 up
                // to after - 1.
                const int i = lists.find(key);
                const int rel1 = __shfl_sync(0xffffffffu, lists.rel, min(i + 1, 31));
                const int rel2 = __shfl_sync(0xffffffffu, lists.rel, min(i + 2, 31));
                const int next = i < 31 ? rel1 : lists.end;
                const int after = i < 30 ? rel2 : lists.end;
                const U* first_list = from_of(i);
                const U* second_list = from_of(min(i + 1, 31));
                const bool in_two = key + K - 1 < after || key >= count;
                if (__all_sync(0xffffffffu, in_two)) {
#pragma unroll
                    for (int e = 0; e < K; ++e) {
                        const int j = key + e;
                        if (j < count) v[w].v[e] = __ldg((j < next ? first_list : second_list) + j);
                    }
                } else {
                    // Some group passes three lists or more (short or empty lists): a
                    // search for each element.
#pragma unroll
                    for (int e = 0; e < K; ++e) {
                        const int j = key + e;
                        const U* list = from_of(lists.find(j));
                        if (j < count) v[w].v[e] = __ldg(list + j);
                    }
                }
            } else {
                // The window passes the staged lists: its outputs go in order, 32 at a
                // time (lane k output k), each taking the staged lists' outputs, then
                // staging the lists from the one holding the first output left (a
                // search when it is not the next list), until none is left; stored at
                // once.
                stored |= 1u << w;
#pragma unroll
                for (int part = 0; part < K; ++part) {
                    const int j = window + 32 * part + static_cast<int>(lane);
                    bool pending = j < count;
                    while (true) {
                        const U* list = from_of(lists.find(j));
                        if (pending && j < lists.end) {
                            out[j] = __ldg(list + j);
                            pending = false;
                        }
                        const uint32_t left = __ballot_sync(0xffffffffu, pending);
                        if (left == 0) break;
                        const int low = window + 32 * part + (__ffs(left) - 1);
                        const uint64_t b = run_search(offsets, lists.lb + 32, last, static_cast<long long>(first) + low, lane);
                        lists.load(starts, offsets, src, b, last, first, lane);
                    }
                }
            }
        }
#pragma unroll
        for (int w = 0; w < RUN_WINDOWS; ++w) {
            if ((stored >> w) & 1u) continue;
            const int key = batch + WINDOW * w + K * static_cast<int>(lane);
            if (aligned && key + K <= count) {
                *reinterpret_cast<Pack<U>*>(out + key) = v[w];
            } else {
#pragma unroll
                for (int e = 0; e < K; ++e)
                    if (key + e < count) out[key + e] = v[w].v[e];
            }
        }
    }
}

// Six blocks per SM (40 registers; at 32 the two windows' loads spill to local memory).
#define RAGGED_GATHER_RUNS(O, ONAME, U, UNAME)                                              \
    extern "C" __global__ void __launch_bounds__(GATHER_BLOCK, 6) gather_runs_##ONAME##_##UNAME( \
        const O* starts, const O* offsets, const uint64_t* partition, uint64_t total, const U* src, \
        U* dst) {                                                                           \
        gather_runs<O, U>(starts, offsets, partition, total, src, dst);                     \
    }
RAGGED_GATHER_RUNS(int32_t, i32, uint32_t, b4)
RAGGED_GATHER_RUNS(int32_t, i32, uint64_t, b8)
RAGGED_GATHER_RUNS(int64_t, i64, uint32_t, b4)
RAGGED_GATHER_RUNS(int64_t, i64, uint64_t, b8)

// ---- bits (boolean values, validity) -------------------------------------------------------

/// Add this block's count to `counter`: one atomic per warp with a non-zero count.
__device__ __forceinline__ void add_count(unsigned long long* counter, uint32_t mine) {
    const uint32_t warp_total = __reduce_add_sync(0xffffffffu, mine);
    if ((threadIdx.x & 31u) == 0 && warp_total > 0)
        atomicAdd(counter, static_cast<unsigned long long>(warp_total));
}

/// Output bit j = source bit starts[l] + (j - offsets[l]) of a bitmap starting at bit
/// `src_bit_offset`; whole 32-bit words are written (bits past the total are 0), and the
/// number of unset bits among the `total` is added to `unset` (zeroed by the host).
template <typename O>
__device__ void gather_bits(const O* starts, const O* offsets, const uint64_t* partition, uint64_t total,
                            const uint8_t* src, uint64_t src_bit_offset, uint32_t* dst, unsigned long long* unset) {
    uint32_t word = 0, zeros = 0;
    NoBatch none;
    gather_tile<O, 32, GATHER_GROUPS>(
        starts, offsets, partition, total, none,
        [&](int k, long long, uint64_t, long long, long long s) {
            const uint64_t b = src_bit_offset + static_cast<uint64_t>(s);
            word |= static_cast<uint32_t>((src[b >> 3] >> (b & 7)) & 1) << k;
        },
        [&](uint64_t j0, int count) {
            dst[j0 / 32] = word;
            zeros += static_cast<uint32_t>(count - __popc(word));
            word = 0;
        });
    add_count(unset, zeros);
}

#define RAGGED_GATHER_BITS(O, ONAME)                                                        \
    extern "C" __global__ void __launch_bounds__(GATHER_BLOCK) gather_bits_##ONAME(         \
        const O* starts, const O* offsets, const uint64_t* partition, uint64_t total,       \
        const uint8_t* src, uint64_t src_bit_offset, uint32_t* dst, unsigned long long* unset) { \
        gather_bits<O>(starts, offsets, partition, total, src, src_bit_offset, dst, unset); \
    }
RAGGED_GATHER_BITS(int32_t, i32)
RAGGED_GATHER_BITS(int64_t, i64)

// ---- strings: the byte ranges of the gathered rows -----------------------------------------

/// For a strings child with offsets `row_offsets` (type S): output row j takes the
/// source row r = starts[l] + (j - offsets[l]) and gets its byte range
/// out_starts[j] = row_offsets[r], out_stops[j] = row_offsets[r + 1] (then
/// compact_offsets gives the new row offsets and gather_values_<S>_b1 the bytes).
template <typename O, typename S>
__device__ void gather_ranges(const O* starts, const O* offsets, const uint64_t* partition, uint64_t total,
                              const S* row_offsets, S* out_starts, S* out_stops) {
    NoBatch none;
    gather_tile<O, 4, GATHER_GROUPS>(
        starts, offsets, partition, total, none,
        [&](int, long long j, uint64_t, long long, long long r) {
            out_starts[j] = row_offsets[r];
            out_stops[j] = row_offsets[r + 1];
        },
        [](uint64_t, int) {});
}

#define RAGGED_GATHER_RANGES(O, ONAME, S, SNAME)                                            \
    extern "C" __global__ void __launch_bounds__(GATHER_BLOCK) gather_ranges_##ONAME##_##SNAME( \
        const O* starts, const O* offsets, const uint64_t* partition, uint64_t total,       \
        const S* row_offsets, S* out_starts, S* out_stops) {                                \
        gather_ranges<O, S>(starts, offsets, partition, total, row_offsets, out_starts, out_stops); \
    }
RAGGED_GATHER_RANGES(int32_t, i32, int32_t, i32)
RAGGED_GATHER_RANGES(int32_t, i32, int64_t, i64)
RAGGED_GATHER_RANGES(int64_t, i64, int32_t, i32)
RAGGED_GATHER_RANGES(int64_t, i64, int64_t, i64)

// ---- local_index ---------------------------------------------------------------------------

/// The claimed groups of local_index: consecutive positions from the group's first,
/// restarting at 0 where a second list begins.
template <int GROUPS> struct PositionBatch {
    static constexpr bool ENABLED = true;
    long long* out;
    long long first[GROUPS];
    int split[GROUPS];
    __device__ __forceinline__ bool claim(int g, uint64_t, long long position, int cut, long long) {
        first[g] = position;
        split[g] = cut;
        return true;
    }
    __device__ __forceinline__ void run(uint32_t claimed, const uint64_t (&firsts)[GROUPS]) {
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) {
            if ((claimed >> g) & 1u) {
                Pack<long long> p;
#pragma unroll
                for (int k = 0; k < Pack<long long>::K; ++k) p.v[k] = k < split[g] ? first[g] + k : k - split[g];
                store_group(out, firsts[g], Pack<long long>::K, p);
            }
        }
    }
};

/// out[j] = j - offsets[l]: each element's position in its list (as int64).
template <typename O>
__device__ void local_index(const O* offsets, const uint64_t* partition, uint64_t total, long long* out) {
    Pack<long long> p;
    PositionBatch<GATHER_GROUPS_WIDE> batch;
    batch.out = out;
    gather_tile<O, Pack<long long>::K, GATHER_GROUPS_WIDE>(
        static_cast<const O*>(nullptr), offsets, partition, total, batch,
        [&](int k, long long, uint64_t, long long position, long long) { p.v[k] = position; },
        [&](uint64_t j0, int count) { store_group(out, j0, count, p); });
}

// The bound as for the value gathers (without it: 32 registers and a spill).
#define RAGGED_LOCAL_INDEX(O, ONAME)                                                        \
    extern "C" __global__ void __launch_bounds__(GATHER_BLOCK, 4) local_index_##ONAME(         \
        const O* offsets, const uint64_t* partition, uint64_t total, long long* out) {      \
        local_index<O>(offsets, partition, total, out);                                     \
    }
RAGGED_LOCAL_INDEX(int32_t, i32)
RAGGED_LOCAL_INDEX(int64_t, i64)

// ---- null count of a bitmap range ----------------------------------------------------------

/// Add the number of unset bits among slots 0 .. n of a bitmap starting at bit
/// `bit_offset` to `unset` (zeroed by the host). One thread per 32 slots, grid-stride;
/// never reads past the bitmap's last byte.
extern "C" __global__ void __launch_bounds__(GATHER_BLOCK) bitmap_count_unset(const uint8_t* bits, uint64_t bit_offset,
                                                                         uint64_t n, unsigned long long* unset) {
    const uint64_t words = (n + 31) / 32;
    const uint64_t end_byte = (bit_offset + n + 7) >> 3;
    uint32_t zeros = 0;
    for (uint64_t w = global_thread(); w < words; w += grid_threads()) {
        const uint64_t first = w * 32;
        const uint64_t slots = min(static_cast<uint64_t>(32), n - first);
        const uint64_t b = bit_offset + first;
        const uint64_t byte = b >> 3;
        unsigned long long raw = 0;
#pragma unroll
        for (int k = 0; k < 5; ++k)
            if (byte + k < end_byte) raw |= static_cast<unsigned long long>(bits[byte + k]) << (8 * k);
        const unsigned long long mask = slots == 64 ? ~0ull : ((1ull << slots) - 1);
        const unsigned long long set = (raw >> (b & 7)) & mask;
        zeros += static_cast<uint32_t>(slots) - static_cast<uint32_t>(__popcll(set));
    }
    add_count(unset, zeros);
}
