#!/usr/bin/env python3
"""A model of replace's stage write by pieces (experiments/replace_pieces.patch,
write_replaced_pieces): each warp's row slots, the warp scan of the rows' pieces, the
owner found by the kernel's binary search over the lanes' first pieces, the piece's ends
from the match bits (nth_bit, first_bit) and its place in the stage, lane by lane,
checked against bytes.replace (with a count limit) on random tiles with nulls, empty
rows and long rows (replace_tile of experiments/run_walk_model.py):

    python3 experiments/replace_pieces_model.py
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_walk_model import TILE_ROWS, TILE_THREADS, replace_tile  # noqa: E402

TILE_ITEMS = TILE_ROWS // TILE_THREADS
MASK = 0xFFFFFFFF


def pieces_case(rnd):
    case = replace_tile(rnd)
    if case is None:
        return None
    rows, tile, starts, rep, bits = case
    n = len(rows)
    max_count = rnd.choice([1 << 62, 0, 1, 2])
    grow = (len(rep) - 1) & MASK
    valid = [r < n and rows[r][1] for r in range(TILE_ROWS)]
    found = [min(bits.count(starts[r], starts[r + 1]), max_count) if valid[r] else 0 for r in range(TILE_ROWS)]
    at, total_bytes = [], 0
    for r in range(TILE_ROWS):
        at.append(total_bytes)
        if valid[r]:
            total_bytes += len(rows[r][0]) + (len(rep) - 1) * found[r]
    stage = bytearray(b"\xee" * (total_bytes + 8))
    for i in range(TILE_ITEMS):
        for warp in range(TILE_THREADS // 32):
            lanes = range(32)
            row_of = [i * TILE_THREADS + 32 * warp + lane for lane in lanes]
            occurrences = [found[r] if valid[r] else 0 for r in row_of]
            pieces = [occurrences[lane] + 1 if valid[row_of[lane]] else 0 for lane in lanes]
            before = [sum(pieces[:lane]) for lane in lanes]
            total = sum(pieces)
            for base in range(0, total, 32):
                for lane in lanes:
                    q = base + lane
                    owner = 0
                    for step in (16, 8, 4, 2, 1):
                        if before[owner + step] <= q:
                            owner += step
                    if q >= total:
                        continue
                    row = row_of[owner]
                    j = q - before[owner]
                    begin, size = starts[row], starts[row + 1] - starts[row]
                    previous = -1 if j == 0 else bits.nth(begin, begin + size, j - 1) - begin
                    start = previous + 1
                    stop = bits.nth(begin + start, begin + size, 0) - begin if j < occurrences[owner] else size
                    dst = (at[row] + start + j * grow) & MASK
                    stage[dst:dst + stop - start] = tile[begin + start:begin + stop]
                    if j < occurrences[owner]:
                        stage[dst + stop - start:dst + stop - start + len(rep)] = rep
    count = max_count if max_count < (1 << 62) else -1
    want = b"".join(row.replace(b"a", rep, count) for row, ok in rows if ok)
    return bytes(stage[:total_bytes]) == want and stage[total_bytes] == 0xEE


def main():
    results = [pieces_case(random.Random(seed)) for seed in range(300)]
    checked = [r for r in results if r is not None]
    print(f"write_replaced_pieces (replace): {sum(checked)} of {len(checked)} random tiles equal the reference")
    return 0 if all(checked) else 1


if __name__ == "__main__":
    sys.exit(main())
