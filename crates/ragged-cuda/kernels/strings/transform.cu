// transform: the strings ops built on the two-pass helper (common/two_pass.cuh), one
// functor each; every row is computed by one thread, once to size it and once to
// write it.
//
// copy_if_else: row i of `left` where mask[i] is valid and true, else row i of
//   `right`; a chosen null row is null.
// concatenate: the `count` inputs of row i with `separator` between consecutive ones;
//   a null input makes the row null (nulls = 0), is left out with its separator
//   (nulls = 1), or is replaced by `replacement` (nulls = 2).
// redact: "L First" — the first character of the second space-separated part of the
//   name, a space, the first part — where the visibility contains "public", "X X"
//   elsewhere; a public row whose name is null or has no space is null (the
//   composition contains → split → slice → concatenate → copy_if_else, fused).
// Complexity: O(bytes read + bytes written) per pass.
#include "common/two_pass.cuh"

using namespace ragged;

struct CopyIfElse {
    BoolInput mask;
    StringInput left;
    StringInput right;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        const StringInput& side = mask.is_true(row) ? left : right;
        if (!side.valid(row)) return false;
        w.str(side.get(row));
        return true;
    }
};
RAGGED_TWO_PASS(CopyIfElse, copy_if_else)

struct Concatenate {
    const StringInput* inputs;
    uint32_t count;
    uint32_t nulls;
    StringInput separator;
    StringInput replacement;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        bool first = true;
        for (uint32_t k = 0; k < count; ++k) {
            const StringInput& in = inputs[k];
            string_view value;
            if (in.valid(row)) {
                value = in.get(row);
            } else if (nulls == 0) {
                return false;
            } else if (nulls == 1) {
                continue;
            } else {
                value = replacement.get(0);
            }
            if (!first) w.str(separator.get(0));
            w.str(value);
            first = false;
        }
        return true;
    }
};
RAGGED_TWO_PASS(Concatenate, concatenate)

struct Redact {
    StringInput names;
    StringInput visibility;

    __device__ bool operator()(uint64_t row, Writer& w) const {
        const uint8_t public_bytes[6] = {'p', 'u', 'b', 'l', 'i', 'c'};
        if (!(visibility.valid(row) && visibility.get(row).contains(string_view{public_bytes, 6}))) {
            const uint8_t redacted[3] = {'X', ' ', 'X'};
            w.bytes(redacted, 3);
            return true;
        }
        if (!names.valid(row)) return false;
        const string_view name = names.get(row);
        const long long space = name.find_byte(' ');
        if (space < 0) return false;
        if (space + 1 < name.size && name[space + 1] != ' ') w.bytes(name.data + space + 1, name.char_bytes_at(space + 1));
        w.byte(' ');
        w.bytes(name.data, space);
        return true;
    }
};
RAGGED_TWO_PASS(Redact, redact)
