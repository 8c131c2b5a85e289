#!/usr/bin/env python3
"""A model of the run walks in experiments/replace_expand_tile.patch (expand_tile) and
experiments/split_runs.patch (split_runs): the kernels' index arithmetic, thread by
thread (runs of an odd number of 4-byte words, the row found by the same binary search,
the match bits of a one-byte pattern), checked against bytes.replace / bytes.split on
random tiles with nulls, empty rows and long rows. Run it after changing either walk:

    python3 experiments/run_walk_model.py
"""
import random

TILE_THREADS, TILE_ROWS, TILE_BYTES = 256, 1024, 16384


def random_tile(rnd, alphabet):
    """Rows (bytes, valid) staged from a random 16-byte alignment, as RowTile holds them."""
    n = rnd.randint(1, TILE_ROWS)
    begin = rnd.randint(0, 15)
    rows = []
    for _ in range(n):
        length = rnd.choice([0, 1, 3, 15, 15, 15, 40, rnd.randint(0, 150)])
        rows.append((bytes(rnd.choice(alphabet) for _ in range(length)), rnd.random() > 0.1))
    tile = bytearray(rnd.randbytes(begin))
    starts = []
    for row, _ in rows:
        starts.append(len(tile))
        tile += row
    starts.append(len(tile))
    return rows, tile, starts


class Bits:
    """The match bits of one byte over the tile (tile_match_word for m = 1)."""

    def __init__(self, tile, byte):
        self.words = [0] * ((len(tile) + 31) // 32 + 1)
        for i, b in enumerate(tile):
            if b == byte:
                self.words[i >> 5] |= 1 << (i & 31)

    def bit(self, i):
        return (self.words[i >> 5] >> (i & 31)) & 1

    def count(self, a, b):
        return sum(self.bit(i) for i in range(a, b))

    def last(self, a, b):
        return next((i for i in range(b - 1, a - 1, -1) if self.bit(i)), -1)

    def nth(self, a, b, k):
        """The k-th set position (k from 0) in [a, b), or -1 (nth_bit)."""
        return next((i for i in range(a, b) if self.bit(i) and (k := k - 1) < 0), -1)


def replace_tile(rnd):
    """A random tile for replace of b"a" that fits TILE_BYTES: (rows, tile, starts, the
    replacement, the match bits), or None."""
    rows, tile, starts = random_tile(rnd, b"abcA a")
    if starts[len(rows)] > TILE_BYTES:
        return None
    return rows, tile, starts, rnd.choice([b"AA", b"", b"X", b"XYZ"]), Bits(tile, ord("a"))


def runs(starts, n):
    """Each thread's run [lo, hi) and the row holding lo, as the kernels compute them."""
    begin, end = starts[0], starts[n]
    run = 4 * (((end + 4 * TILE_THREADS - 1) // (4 * TILE_THREADS)) | 1)
    for t in range(TILE_THREADS):
        lo, hi = max(run * t, begin), min(run * t + run, end)
        r, step = 0, TILE_ROWS
        while step > 0:
            if r + step < n and starts[r + step] <= lo:
                r += step
            step >>= 1
        yield lo, hi, r


def replace_case(rnd):
    case = replace_tile(rnd)
    if case is None:
        return None
    rows, tile, starts, rep, bits = case
    n = len(rows)
    grow = len(rep) - 1
    at, total = [], 0
    for r in range(TILE_ROWS):
        at.append(total)
        if r < n and rows[r][1]:
            total += len(rows[r][0]) + grow * bits.count(starts[r], starts[r + 1])
    stage = bytearray(b"\xee" * (total + 8))
    own = [bits.count(lo, hi) if lo < hi else 0 for lo, hi, _ in runs(starts, n)]
    before = [sum(own[:t]) for t in range(TILE_THREADS)]
    for t, (lo, hi, r) in enumerate(runs(starts, n)):
        if lo >= hi:
            continue
        seen = before[t]

        def enter(row, start, matches):
            nxt = at[row + 1] if row + 1 < TILE_ROWS else total
            return nxt != at[row], at[row] - start - grow * matches

        writes, shift = enter(r, starts[r], seen - bits.count(starts[r], lo))
        nxt = starts[r + 1]
        for i in range(lo, hi):
            while i >= nxt:
                r += 1
                nxt = starts[r + 1]
                writes, shift = enter(r, i, seen)
            hit = bits.bit(i)
            if writes:
                o = shift + i + grow * seen
                if hit:
                    stage[o:o + grow + 1] = rep
                else:
                    stage[o] = tile[i]
            seen += hit
    want = b"".join(row.replace(b"a", rep) for row, valid in rows if valid)
    return bytes(stage[:total]) == want and stage[total] == 0xEE


def split_case(rnd):
    rows, tile, starts = random_tile(rnd, b"ab  cD")
    n = len(rows)
    if starts[n] > TILE_BYTES:
        return None
    bits = Bits(tile, ord(" "))
    k0 = rnd.randint(0, 3)
    k1 = k0 + 1 if rnd.random() < 0.7 else None

    def part(r, k):
        row, valid = rows[r]
        parts = row.split(b" ") if valid else []
        return parts[k] if k is not None and k < len(parts) else b""

    at0, at1, s0, s1 = [], [], 0, 0
    for r in range(TILE_ROWS):
        at0.append(s0)
        at1.append(s1)
        if r < n:
            s0 += len(part(r, k0))
            s1 += len(part(r, k1))
    out0, out1 = bytearray(b"\xee" * (s0 + 8)), bytearray(b"\xee" * (s1 + 8))
    for lo, hi, r in runs(starts, n):
        if lo >= hi:
            continue
        valid, a0, a1 = rows[r][1], at0[r], at1[r]
        p = bits.count(starts[r], lo)
        start = starts[r] if p == 0 else bits.last(starts[r], lo) + 1
        nxt = starts[r + 1]
        for i in range(lo, hi):
            while i >= nxt:
                r += 1
                nxt = starts[r + 1]
                valid, a0, a1, p, start = rows[r][1], at0[r], at1[r], 0, i
            if bits.bit(i):
                p += 1
                start = i + 1
            elif valid:
                if p == k0:
                    out0[a0 + i - start] = tile[i]
                elif p == k1:
                    out1[a1 + i - start] = tile[i]
    good = bytes(out0[:s0]) == b"".join(part(r, k0) for r in range(n)) and out0[s0] == 0xEE
    return good and bytes(out1[:s1]) == b"".join(part(r, k1) for r in range(n)) and out1[s1] == 0xEE


def main():
    for name, case in (("expand_tile (replace)", replace_case), ("split_runs (split)", split_case)):
        results = [case(random.Random(seed)) for seed in range(400)]
        checked = [r for r in results if r is not None]
        print(f"{name}: {sum(checked)} of {len(checked)} random tiles equal the reference")


if __name__ == "__main__":
    main()
