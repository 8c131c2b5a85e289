#!/usr/bin/env python3
"""Time Awkward Array 2.x on the data of `ragged bench --suite lists` and compare.

The data are built exactly as crates/ragged/src/bench/lists.rs builds them (SplitMix64
counter hashes, vectorized here with numpy), so both tools see the same arrays. Each
case is timed as the median of --runs runs after one warm-up, with the same case names
as ragged's bench table. With --ragged FILE (the JSON array written by
`ragged bench --suite lists --device cpu --json FILE`), a third column gives ragged's time
and the speed-up.

With --interleave ROUNDS and --ragged-bin PATH, each case alternates the two tools ROUNDS
times: `PATH --device cpu bench --suite lists --filter CASE` in a child process (its
median), then Awkward (median of --runs), so that both see the machine in the same
state; the table gives the median of each tool's times and the median and range of the
per-round speed-ups. --filter TEXT keeps the cases whose name contains TEXT (repeatable).

    pip install awkward numpy
    python3 scripts/awkward-compare.py --log2 28 --ragged ragged-lists.json
    python3 scripts/awkward-compare.py --log2 28 --interleave 5 \
        --ragged-bin target/release/ragged --filter compact_offsets --filter /avg64/
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import awkward as ak
import numpy as np

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def hash64(seed, i):
    """SplitMix64 of i * golden + seed, elementwise over a uint64 array."""
    with np.errstate(over="ignore"):
        z = i * np.uint64(0x9E3779B97F4A7C15) + np.uint64(seed)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def list_lengths(average, j):
    if average is not None:
        return hash64(2 + average, j) % np.uint64(2 * average + 1)
    pick = hash64(7, j)
    out = hash64(3, j) % np.uint64(8)
    out = np.where(pick % np.uint64(64) == 0, hash64(4, j) % np.uint64(4096), out)
    return np.where(pick % np.uint64(4096) == 0, hash64(5, j) % np.uint64(1_000_000), out)


def offsets_for(n, average):
    count = max(16, int(n / (average or 200) * 1.2) + 1024)
    while True:
        lengths = list_lengths(average, np.arange(count, dtype=np.uint64))
        ends = np.cumsum(lengths.astype(np.int64))
        if ends[-1] >= n:
            last = int(np.searchsorted(ends, n))  # first end reaching n
            ends = np.minimum(ends[: last + 1], n)
            return np.concatenate([[0], ends]).astype(np.int32)
        count *= 2


def timed(runs, fn):
    fn()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def ragged_seconds(binary, name):
    """One `ragged bench` run of the case `name` on the CPU: its median, in seconds."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "ragged.json")
        subprocess.run(
            [binary, "--device", "cpu", "bench", "--suite", "lists", "--quiet",
             "--filter", name, "--json", path],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        with open(path) as f:
            records = [r for r in json.load(f) if r["case"] == name and r["backend"] == "cpu"]
    if len(records) != 1:
        sys.exit(f"ragged bench gave {len(records)} records for {name}")
    return records[0]["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=28, help="child elements = 2^LOG2")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ragged", help="JSON from `ragged bench --json FILE`")
    parser.add_argument("--interleave", type=int, default=0, metavar="ROUNDS",
                        help="alternate ragged and Awkward ROUNDS times per case")
    parser.add_argument("--ragged-bin", help="the ragged binary --interleave runs")
    parser.add_argument("--filter", action="append", default=[],
                        help="only the cases whose name contains this text (repeatable)")
    args = parser.parse_args()
    if args.interleave and not args.ragged_bin:
        parser.error("--interleave needs --ragged-bin")
    n = 1 << args.log2
    label = f"2^{args.log2}"
    i = np.arange(n, dtype=np.uint64)
    ints = (hash64(1, i) >> np.uint64(40)).astype(np.int32)
    del i
    floats = ints.astype(np.float32) / np.float32(1 << 24)
    ci = ak.contents.NumpyArray(ints)
    cf = ak.contents.NumpyArray(floats)
    results = {}
    rounds = {}

    def wanted(name):
        return not args.filter or any(f in name for f in args.filter)

    def case(name, fn):
        if not wanted(name):
            return
        if args.interleave:
            pairs = []
            for _ in range(args.interleave):
                mine = ragged_seconds(args.ragged_bin, name)
                theirs = timed(args.runs, fn)
                pairs.append((theirs, mine))
                print(f"{name:40} Awkward {theirs * 1e3:10.2f} ms  ragged {mine * 1e3:10.2f} ms",
                      file=sys.stderr)
            rounds[name] = pairs
            return
        results[name] = timed(args.runs, fn)
        print(f"{name:40} {results[name] * 1e3:10.2f} ms", file=sys.stderr)

    for name, average in [("avg4", 4), ("avg64", 64), ("avg10000", 10_000), ("skewed", None)]:
        offsets = offsets_for(n, average)
        index = ak.index.Index32(offsets)
        li = ak.Array(ak.contents.ListOffsetArray(index, ci))
        lf = ak.Array(ak.contents.ListOffsetArray(index, cf))
        case(f"lists/sum/{name}/i32/{label}", lambda: ak.sum(li, axis=1))
        case(f"lists/min/{name}/i32/{label}", lambda: ak.min(li, axis=1))
        case(f"lists/max/{name}/f32/{label}", lambda: ak.max(lf, axis=1))
        case(f"lists/mean/{name}/f32/{label}", lambda: ak.mean(lf, axis=1))
        if name in ("avg64", "skewed"):
            case(f"lists/counts/{name}/{label}", lambda: ak.num(li, axis=1))
            case(f"lists/local_index/{name}/{label}", lambda: ak.local_index(li, axis=1))
            # Awkward raises on an empty list; mask them first (null, like ragged's
            # OutOfRange::Null).
            case(
                f"lists/get_last/{name}/i32/{label}",
                lambda: li.mask[ak.num(li, axis=1) > 0][:, -1],
            )
            case(f"lists/slice/{name}/{label}", lambda: li[:, 1:-1])
        if name == "avg64":
            m = len(offsets) - 1
            valid = np.arange(m) % 16 != 0
            masked = ak.mask(li, valid)
            case(f"lists/flatten/nulls/i32/{label}", lambda: ak.flatten(masked, axis=1))
            starts = offsets[:-1] + (offsets[1:] - offsets[:-1]) // 4
            view = ak.Array(
                ak.contents.ListArray(
                    ak.index.Index32(starts.astype(np.int32)),
                    ak.index.Index32(offsets[1:].copy()),
                    ci,
                )
            )
            case(f"lists/to_compact/gaps/i32/{label}", lambda: ak.to_packed(view))

    compact = f"lists/compact_offsets/i64/{label}"
    if not wanted(compact):
        return report(args, results, rounds)
    j = np.arange(n, dtype=np.uint64)
    lengths = (hash64(6, j) % np.uint64(9)).astype(np.int64)
    del j
    stops = np.cumsum(lengths + 1)
    starts = stops - lengths
    child_len = int(stops[-1])
    layout = ak.contents.ListArray(
        ak.index.Index64(starts),
        ak.index.Index64(stops),
        ak.contents.NumpyArray(np.zeros(child_len, dtype=np.int8)),
    )
    case(compact, lambda: layout._compact_offsets64(True))
    report(args, results, rounds)


def report(args, results, rounds):
    """The table: Awkward against ragged's JSON, or the interleaved rounds."""
    if args.interleave:
        print(f"| case | Awkward {ak.__version__} (median) | ragged (median) "
              f"| speed-up: median (range) of {args.interleave} rounds |")
        print("|---|---:|---:|---:|")
        for name, pairs in rounds.items():
            ratios = sorted(a / r for a, r in pairs)
            print(f"| {name} | {statistics.median(a for a, _ in pairs) * 1e3:.2f} ms "
                  f"| {statistics.median(r for _, r in pairs) * 1e3:.2f} ms "
                  f"| {statistics.median(ratios):.2f}× ({ratios[0]:.2f}–{ratios[-1]:.2f}) |")
        return

    ragged = {}
    if args.ragged:
        with open(args.ragged) as f:
            for record in json.load(f):
                if record["backend"] == "cpu":
                    ragged[record["case"]] = record["seconds"]
    print(f"| case | Awkward {ak.__version__} | ragged | ragged speed-up |")
    print("|---|---:|---:|---:|")
    for name, seconds in results.items():
        mine = ragged.get(name)
        extra = f"{mine * 1e3:.2f} ms | {seconds / mine:.2f}×" if mine else "– | –"
        print(f"| {name} | {seconds * 1e3:.2f} ms | {extra} |")


if __name__ == "__main__":
    main()
