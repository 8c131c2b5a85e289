"""Whole Python calls of ragged beside pyarrow.compute and Polars on the same in-memory
data; prints a Markdown table (PERFORMANCE.md keeps the figures).

    python python/benchmarks/bench.py [--rows 6000000] [--runs 5] [--device cpu]

Each case is timed as the user calls it (input objects built beforehand, result
returned as the library's own object), median of ``--runs`` after one warm-up call.
The per-call overhead case times ``length`` of 1 000 rows over many calls (the least
of five repeats), beside the same Rust call timed inside the extension
(``_ragged.time_length_ns``).
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import ragged
from ragged import _ragged

FIRST = ["Maria", "José", "Anne-Marie", "Zoë", "Li", "Mohammed", "Olga", "Ærin", "Ming", "Sam"]
LAST = ["Smith", "García", "Müller", "Nguyễn", "Ivanova", "O'Brien", "Kowalski", "Tanaka", "Li"]


def names(rows: int, seed: int = 1) -> pa.Array:
    rng = np.random.default_rng(seed)
    first = np.array(FIRST, dtype=object)[rng.integers(0, len(FIRST), rows)]
    last = np.array(LAST, dtype=object)[rng.integers(0, len(LAST), rows)]
    return pa.array(first + " " + last, pa.string())


def median_seconds(f: Callable[[], object], runs: int) -> float:
    f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=6_000_000)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--device", default="cpu")
    a = p.parse_args()
    dev = a.device
    print(ragged.describe_device(dev))

    # Per-call overhead: 1 000 rows.
    small = names(1000)
    calls = 3000

    def per_call(f: Callable[[], object]) -> float:
        # The least of 5 repeats of `calls` calls (timeit's rule: noise only adds).
        return min(timeit.repeat(f, number=calls, repeat=5)) / calls

    t_ragged = per_call(lambda: ragged.strings.length(small, device=dev))
    t_arrow = per_call(lambda: pc.utf8_length(small))
    rust_ns = min(_ragged.time_length_ns(small, calls, dev) for _ in range(5))
    print()
    print("| 1 000-row `length`, per call | µs |")
    print("|---|---:|")
    print(f"| ragged.strings.length (Python call) | {t_ragged * 1e6:.2f} |")
    print(f"| the same Rust call (ragged::compute, median in Rust) | {rust_ns / 1e3:.2f} |")
    print(f"| overhead of the Python call | {t_ragged * 1e6 - rust_ns / 1e3:.2f} |")
    print(f"| pyarrow.compute.utf8_length | {t_arrow * 1e6:.2f} |")

    # Bulk ops on --rows names.
    s = names(a.rows)
    rng = np.random.default_rng(2)
    vis = pa.array(np.where(rng.random(a.rows) < 0.5, "public", "private"), pa.string())
    try:
        import polars as pl
    except ImportError:
        pl = None
    rows = []

    def case(
        name: str,
        ours: Callable[[], object],
        arrow: Callable[[], object] | None,
        polars: Callable[[], object] | None,
    ) -> None:
        r = median_seconds(ours, a.runs)
        w = median_seconds(arrow, a.runs) if arrow else None
        q = median_seconds(polars, a.runs) if polars else None
        rows.append((name, r, w, q))

    if pl is not None:
        df = pl.DataFrame({"name": pl.Series(s), "vis": pl.Series(vis)})
        ps = df["name"]
        parts = pl.col("name").str.split_exact(" ", 1)
        redact_expr = (
            pl.when(pl.col("vis").str.contains("public", literal=True))
            .then(
                pl.concat_str(
                    [parts.struct.field("field_1").str.slice(0, 1), parts.struct.field("field_0")],
                    separator=" ",
                )
            )
            .otherwise(pl.lit("X X"))
        )
    case(
        "redact (pyarrow arrays in)",
        lambda: ragged.redact(s, vis, device=dev),
        None,
        (lambda: df.select(redact_expr)) if pl else None,
    )
    if pl is not None:
        case(
            "redact (Polars columns in: string_view cast)",
            lambda: ragged.redact(df["name"], df["vis"], device=dev),
            None,
            lambda: df.select(redact_expr),
        )
    case(
        "upper",
        lambda: ragged.strings.upper(s, device=dev),
        lambda: pc.utf8_upper(s),
        (lambda: ps.str.to_uppercase()) if pl else None,
    )
    case(
        "lower",
        lambda: ragged.strings.lower(s, device=dev),
        lambda: pc.utf8_lower(s),
        (lambda: ps.str.to_lowercase()) if pl else None,
    )
    case(
        "contains",
        lambda: ragged.strings.contains(s, "an", device=dev),
        lambda: pc.match_substring(s, "an"),
        (lambda: ps.str.contains("an", literal=True)) if pl else None,
    )
    case(
        "split_record",
        lambda: ragged.strings.split_record(s, " ", device=dev),
        lambda: pc.split_pattern(s, " "),
        (lambda: ps.str.split(" ")) if pl else None,
    )
    case(
        "length",
        lambda: ragged.strings.length(s, device=dev),
        lambda: pc.utf8_length(s),
        (lambda: ps.str.len_chars()) if pl else None,
    )

    print()
    header = "| ragged | pyarrow.compute | Polars | × pyarrow | × Polars |"
    print(f"| {a.rows:,} names, in memory {header}")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r, w, q in rows:
        fw = f"{w * 1e3:.1f} ms" if w else "–"
        fq = f"{q * 1e3:.1f} ms" if q else "–"
        xw = f"{w / r:.2f}" if w else "–"
        xq = f"{q / r:.2f}" if q else "–"
        print(f"| {name} | {r * 1e3:.1f} ms | {fw} | {fq} | {xw} | {xq} |")


if __name__ == "__main__":
    main()
