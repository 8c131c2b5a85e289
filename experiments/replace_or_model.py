#!/usr/bin/env python3
"""A model of replace's stage write by byte permutes (or_replaced_rows and
fill_replace_selectors in kernels/strings/transform.cu): a staged tile at a random
alignment, the one-byte pattern's match bits (with garbage in the words past the tile,
which the kernel may read), each valid row read four bytes at a time by funnel shifts,
its match bits masked to the row and to the row's first found occurrences (max_count,
__fns), the output made by __byte_perm with the 16-entry selector table, shifted to
its place and ORed into W + 1 zeroed stage words; checked against bytes.replace (with
a count limit) on random tiles: null rows, empty rows, NUL and 0xFF bytes, patterns of
those, replacements of 0 to 4 bytes, max_count 0 to 3 and none.

    python3 experiments/replace_or_model.py
"""
import random

MASK = 0xFFFFFFFF


def funnelshift_r(lo, hi, shift):
    return ((hi << 32 | lo) >> (shift & 31)) & MASK


def funnelshift_l(lo, hi, shift):
    return (((hi << 32 | lo) << (shift & 31)) >> 32) & MASK


def low_bits(n):
    return 0 if n <= 0 else (MASK if n >= 32 else (1 << n) - 1)


def fns(k, n):
    """The position of the n-th (from 1) set bit of k (__fns(k, 0, n))."""
    seen = 0
    for i in range(32):
        if k >> i & 1:
            seen += 1
            if seen == n:
                return i
    raise ValueError("fewer set bits")


def byte_perm(x, y, selector):
    source = (y << 32 | x).to_bytes(8, "little")
    return sum(source[(selector >> (4 * i)) & 7] << (8 * i) for i in range(4))


def selectors(size):
    """fill_replace_selectors: entry 4 k + i for k = 0..15, i = 0..3."""
    table = []
    for k in range(16):
        nibbles, o = 0x7777777777777777, 0
        for j in range(4):
            hit = k >> j & 1
            for r in range(size if hit else 1):
                nibbles = (nibbles & ~(0xF << (4 * o))) | (4 + r if hit else j) << (4 * o)
                o += 1
        table += [(nibbles >> (16 * i)) & 0xFFFF for i in range(4)]
    return table


def check(rnd, rows, pattern, rep, max_count):
    tile = bytearray(rnd.randint(0, 15))
    starts = []
    for row in rows:
        starts.append(len(tile))
        tile += row
    starts.append(len(tile))
    span = len(tile)
    tile += bytes(48 + (32 - len(tile) % 32) % 32)
    words = [int.from_bytes(tile[4 * i:4 * i + 4], "little") for i in range(len(tile) // 4)]
    match = [0] * (len(tile) // 32 + 2)
    for i in range(span):
        if tile[i] == pattern:
            match[i >> 5] |= 1 << (i & 31)
    for c in range((span + 31) // 32, len(match)):
        match[c] = rnd.getrandbits(32)
    valid = [rnd.random() > 0.1 for _ in rows]
    found, at, total = [], [], 0
    for row, ok in zip(rows, valid):
        c = min(row.count(bytes([pattern])), max_count) if ok else 0
        found.append(c)
        at.append(total)
        total += len(row) + c * (len(rep) - 1) if ok else 0
    out = [0] * (total // 4 + 8)
    size_r = len(rep)
    width = max(size_r, 1)
    rep_word = int.from_bytes(rep + bytes(4 - size_r), "little")
    table = selectors(size_r)
    for r, ok in enumerate(valid):
        if not ok:
            continue
        b, size = starts[r], starts[r + 1] - starts[r]
        shift, p, left, lo = 8 * (b & 3), at[r], found[r], words[b >> 2]
        for q in range(0, size, 4):
            t = b + q
            hi = words[(t >> 2) + 1]
            v = min(4, size - q)
            x = funnelshift_r(lo, hi, shift) & low_bits(8 * v)
            lo = hi
            k = funnelshift_r(match[t >> 5], match[(t >> 5) + 1], t & 31) & ((1 << v) - 1)
            if bin(k).count("1") > left:
                k &= (1 << fns(k, left + 1)) - 1
            left -= bin(k).count("1")
            length = v + (size_r - 1) * bin(k).count("1")
            made = []
            for w in range(width):
                m = byte_perm(x, rep_word, table[4 * k + w])
                if width == 4:
                    m &= low_bits(8 * length - 32 * w)
                made.append(m)
            made.append(0)
            s, d = 8 * (p & 3), p >> 2
            out[d] |= (made[0] << s) & MASK
            for w in range(1, width + 1):
                out[d + w] |= funnelshift_l(made[w - 1], made[w], s)
            p += length
    got = b"".join(w.to_bytes(4, "little") for w in out)[:total]
    expected = b"".join(row.replace(bytes([pattern]), rep, max_count) for row, ok in zip(rows, valid) if ok)
    assert got == expected, (rows, pattern, rep, max_count, got, expected)


def main():
    rnd = random.Random(2)
    for _ in range(4000):
        alphabet = b"ab a\x00\xff"
        rows = [bytes(rnd.choice(alphabet) for _ in range(rnd.choice([0, 1, 2, 3, 4, 5, 8, 15, 23, 40])))
                for _ in range(rnd.randint(1, 60))]
        rep = bytes(rnd.choice(b"XYa\x00\xff") for _ in range(rnd.randint(0, 4)))
        check(rnd, rows, rnd.choice(b"a \x00\xff"), rep, rnd.choice([0, 1, 2, 3, 1 << 62]))
    print("or_replaced_rows model: 4000 random tiles equal bytes.replace")


if __name__ == "__main__":
    main()
