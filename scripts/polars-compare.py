#!/usr/bin/env python3
"""Time Polars on the strings bench data of `ragged bench --suite strings`.

Builds the same names column as crates/ragged/src/bench/strings.rs (the same
SplitMix64 hash) with numpy, hands it to Polars through Arrow, and times each search
with the same pattern (median of --runs after a warm-up). With --ragged FILE (the JSON
of `ragged --device cpu bench --suite strings --json FILE`) it prints ragged's time and
the speed-up next to each case.

    pip install polars pyarrow numpy
    python3 scripts/polars-compare.py --rows 6000000 --ragged cpu-strings.json
"""
import argparse
import json
import time

import numpy as np
import polars as pl
import pyarrow as pa

G, C1, C2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def hash64(seed, i):
    with np.errstate(over="ignore"):
        z = i * G + np.uint64(seed)
        z = (z ^ (z >> np.uint64(30))) * C1
        z = (z ^ (z >> np.uint64(27))) * C2
    return z ^ (z >> np.uint64(31))


def names(rows):
    r = np.arange(rows, dtype=np.uint64)
    h = hash64(10, r)
    first = (3 + h % np.uint64(8)).astype(np.int64)
    last = (3 + (h >> np.uint64(8)) % np.uint64(10)).astype(np.int64)
    n = first + last
    width = 23
    m = np.zeros((rows, width), dtype=np.uint8)
    words = [hash64(11, r), hash64(12, r)]
    for k in range(22):
        bits = words[k // 12] >> np.uint64(5 * (k % 12))
        c = (ord("a") + bits % np.uint64(26)).astype(np.uint8)
        upper = (k == 0) | (first == k)
        c = np.where(upper, c - 32, c).astype(np.uint8)
        col = np.where(k < first, k, k + 1)
        ok = k < n
        m[np.nonzero(ok)[0], col[ok]] = c[ok]
    m[np.arange(rows), first] = ord(" ")
    lengths = n + 1
    mask = np.arange(width)[None, :] < lengths[:, None]
    values = m[mask]
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    arr = pa.Array.from_buffers(pa.utf8(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(values)])
    return pl.from_arrow(arr)


def timed(f, runs):
    f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=6_000_000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--ragged")
    a = p.parse_args()
    s = names(a.rows)
    vis = pl.Series(np.where(hash64(20, np.arange(a.rows, dtype=np.uint64)) % np.uint64(2) == 0, "public", "private"))
    df = pl.DataFrame({"name": s, "vis": vis})
    # redact as one Polars expression: the first character of the second part, a
    # space, the first part where the visibility contains "public", "X X" elsewhere.
    parts = pl.col("name").str.split_exact(" ", 1)
    redact = (
        pl.when(pl.col("vis").str.contains("public", literal=True))
        .then(pl.concat_str([parts.struct.field("field_1").str.slice(0, 1), parts.struct.field("field_0")], separator=" "))
        .otherwise(pl.lit("X X"))
    )
    cases = {
        "length": lambda: s.str.len_chars(),
        "contains": lambda: s.str.contains("an", literal=True),
        "starts_with": lambda: s.str.starts_with("Ma"),
        "ends_with": lambda: s.str.ends_with("son"),
        "find": lambda: s.str.find("e", literal=True),
        "count_matches": lambda: s.str.count_matches("a", literal=True),
        "contains/visibility": lambda: vis.str.contains("public", literal=True),
        "like": lambda: df.select(pl.col("name").str.contains(r"^.*an.*o.$")),
        "slice_chars/1:-1": lambda: s.str.slice(1, s.str.len_chars() - 2),
        "slice_bytes/0:4": lambda: s.str.slice(0, 4),
        "redact": lambda: df.select(redact),
        "copy_if_else": lambda: df.select(
            pl.when(pl.col("vis").str.contains("public", literal=True)).then(pl.col("name")).otherwise(pl.lit("X X"))
        ),
        "concatenate": lambda: df.select(pl.concat_str([pl.col("name"), pl.col("vis")], separator=" ")),
        "split": lambda: s.str.split_exact(" ", 1),
        "split_record": lambda: s.str.split(" "),
        "upper": lambda: s.str.to_uppercase(),
        "lower": lambda: s.str.to_lowercase(),
        "strip": lambda: s.str.strip_chars("Ma"),
        "pad/20": lambda: s.str.pad_start(20, "."),
        "replace": lambda: s.str.replace_all("a", "AA", literal=True),
    }
    ragged = {}
    if a.ragged:
        ragged = {r["case"]: r["seconds"] for r in json.load(open(a.ragged))}
    print(f"polars {pl.__version__}, {a.rows} rows, first rows {s.head(3).to_list()}")
    print(f"{'case':<28} {'polars':>10} {'ragged':>10} {'speed-up':>9}")
    for name, f in cases.items():
        t = timed(f, a.runs)
        r = ragged.get(f"strings/{name}/{a.rows}")
        extra = f"{r * 1e3:9.1f}ms {t / r:8.2f}x" if r else ""
        print(f"{name:<28} {t * 1e3:9.1f}ms {extra}")


if __name__ == "__main__":
    main()
