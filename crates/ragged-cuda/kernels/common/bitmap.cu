// bitmap: pack one validity flag byte per row into an Arrow validity bitmap (LSB bit
// order) and count the nulls.
//
// Mapping: one thread per row; a warp's 32 flags become one 32-bit word through
// __ballot_sync, written by lane 0; each warp adds its zero bits (within n) to the null
// count with one atomicAdd.
// Complexity: O(n) work, n bytes read, n / 8 bytes written.
#include "common/ragged.cuh"

extern "C" __global__ void pack_flags(const uint8_t* flags, uint64_t n, uint32_t* words,
                                      unsigned long long* null_count) {
    const uint64_t stride = ragged::grid_threads();
    // Every lane of a warp takes the same number of iterations (n rounded up to warps).
    const uint64_t rounded = (n + 31) / 32 * 32;
    for (uint64_t i = ragged::global_thread(); i < rounded; i += stride) {
        const bool in_range = i < n;
        const bool valid = in_range && flags[i] != 0;
        const unsigned word = __ballot_sync(0xffffffffu, valid);
        const unsigned present = __ballot_sync(0xffffffffu, in_range);
        if ((threadIdx.x & 31u) == 0) {
            words[i / 32] = word;
            const int nulls = __popc(present) - __popc(word);
            if (nulls > 0) atomicAdd(null_count, static_cast<unsigned long long>(nulls));
        }
    }
}
