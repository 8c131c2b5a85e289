"""ragged on Dask, whole jobs timed: a generated log counted and read by
``ragged.dask`` on a loopback LocalCluster of 1 and of N worker processes (one thread
each, ragged's own threads limited to one per worker by ``RAYON_NUM_THREADS``), beside
``ragged lines --count`` on the same file with N threads; then the scheduler's cost per
task (empty partitions).

    python python/benchmarks/dask_bench.py --ragged target/dist/ragged --size 4GiB \
        [--workers 2] [--blocksize "256 MiB"] [--runs 2] [--device cpu]

    python python/benchmarks/dask_bench.py --redact 60000000 [--cpu-workers 16]

times redact over a partitioned table instead (names "First Last" + visibility, one
Parquet file per million rows, read with pyarrow dtypes): one worker on the GPU against
``--cpu-workers`` workers on the CPU, each partition redacted and its result's bytes
summed on the worker (nothing large comes back to the client).

Prints a Markdown table (best of ``--runs``, wall clock from submitting the graph to
the result, the cluster already started and warmed by one small job).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time


def generate(path: str, size: int) -> None:
    """Log-like lines (30–120 bytes) repeated up to ``size`` bytes."""
    import random

    rng = random.Random(1)
    block = "".join(
        f"{rng.choice(['public', 'private'])}|user{i}|GET /item/{i} {'x' * rng.randint(0, 90)}\n"
        for i in range(20_000)
    ).encode()
    with open(path + ".tmp", "wb") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block)
    os.replace(path + ".tmp", path)


def people(directory: str, rows: int) -> None:
    """``rows`` generated people, one Parquet file (snappy) per million rows."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(1)
    syl = ["ka", "lo", "ve", "ti", "mu", "ra", "sen", "do", "ba", "ë", "ñ", "美", "el", "an"]

    def words(k: int, lo: int, hi: int) -> np.ndarray:  # type: ignore[type-arg]
        return np.array(
            [
                "".join(
                    syl[i] for i in rng.integers(0, len(syl), rng.integers(lo, hi))
                ).capitalize()
                for _ in range(k)
            ]
        )

    first, last = words(5000, 2, 4), words(50000, 2, 5)
    step = 1_000_000
    for k, start in enumerate(range(0, rows, step)):
        n = min(step, rows - start)
        names = pc.binary_join_element_wise(
            pa.array(first[rng.integers(0, len(first), n)]),
            pa.array(last[rng.integers(0, len(last), n)]),
            " ",
        )
        vis = pa.array(np.where(rng.integers(0, 2, n) == 0, "public", "private"))
        pq.write_table(
            pa.table({"name": names, "visibility": vis}), f"{directory}/part-{k:05d}.parquet"
        )


def redact_table(args: argparse.Namespace) -> None:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import ragged.dask as rd

    directory = os.path.join(tempfile.gettempdir(), f"ragged-people-{args.redact}")
    if not os.path.exists(os.path.join(directory, "done")):
        people(directory, args.redact)
        open(os.path.join(directory, "done"), "w").close()
    setups = [("GPU", 1, "cuda", {}), ("CPU", args.cpu_workers, "cpu", {"RAYON_NUM_THREADS": "1"})]
    rows = []
    for label, workers, device, env in setups:
        if device == "cuda":
            import ragged

            try:
                ragged.describe_device("cuda")
            except ragged.RaggedError as e:
                print(f"no GPU row: {e}")
                continue
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                env=env,
            ) as cluster,
            Client(cluster) as client,
        ):
            table = dd.read_parquet(directory, dtype_backend="pyarrow")
            redacted = rd.redact(table["name"], table["visibility"], device=device)
            size = rd.strings.length_bytes(redacted, device=device).sum()
            read_only = rd.strings.length_bytes(table["name"], device=device).sum()
            client.compute(size).result()  # warm: imports, kernels, page cache
            t_read = best(args.runs, lambda c=read_only: client.compute(c).result())
            t = best(args.runs, lambda c=size: client.compute(c).result())
            rows.append((label, workers, t_read, t, table.npartitions))
            cost = task_cost(client, args.tasks, args.runs)
            print(f"scheduler cost per task, {workers} worker(s): {cost * 1e3:.2f} ms")
    print(f"\nredact over {args.redact:,} rows ({directory}), best of {args.runs}\n")
    print(
        "| workers | read + bytes of names | read + redact + bytes | partitions "
        "| M rows/s (redact) |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, workers, t_read, t, parts in rows:
        print(
            f"| {workers} × {label} | {t_read:.2f} s | {t:.2f} s | {parts} | "
            f"{args.redact / t / 1e6:.1f} |"
        )


def task_cost(client: object, tasks: int, runs: int) -> float:
    """The scheduler's own cost per task, in seconds: ``tasks`` tasks that read nothing,
    summed by one more, best of ``runs``."""
    import dask

    def run() -> None:
        # Impure: fresh keys each run.
        total = dask.delayed(sum, pure=False)(
            [dask.delayed(int, pure=False)(i) for i in range(tasks)]
        )
        client.compute(total).result()  # type: ignore[attr-defined]

    return best(runs, run) / tasks


def _peak_rss() -> int:
    """This process's peak resident set, in bytes (Linux: ru_maxrss is KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def best(runs: int, fn) -> float:  # type: ignore[no-untyped-def]
    """The least wall time of ``runs`` calls of ``fn``, with a second's pause before
    each so that a cluster has forgotten the last run's results (a graph computed again
    while its keys are still held would be answered from memory)."""
    times = []
    for _ in range(runs):
        time.sleep(1)
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ragged", default="target/dist/ragged", help="the ragged CLI")
    parser.add_argument("--size", default="4GiB")
    parser.add_argument(
        "--file", default=os.path.join(tempfile.gettempdir(), "ragged-dask-bench.log")
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--blocksize", default="256 MiB")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tasks", type=int, default=2000, help="empty tasks for the per-task cost")
    parser.add_argument("--redact", type=int, default=0, help="rows of the redact table mode")
    parser.add_argument("--cpu-workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.redact:
        redact_table(args)
        return

    import dask.dataframe  # noqa: F401
    from distributed import Client, LocalCluster

    import ragged.dask as rd

    size = rd.parse_blocksize(args.size)
    if not os.path.exists(args.file) or os.path.getsize(args.file) < size:
        generate(args.file, size)
    gib = os.path.getsize(args.file) / 2**30
    with open(args.file, "rb") as f:  # into the page cache
        while f.read(1 << 26):
            pass

    rows = []
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.workers))
    cli = [args.ragged, "lines", "--count", "--device", args.device, args.file]
    out = subprocess.run(cli, env=env, capture_output=True, text=True, check=True).stdout
    t_cli = best(args.runs, lambda: subprocess.run(cli, env=env, capture_output=True, check=True))
    rows.append((f"`ragged lines --count` ({args.workers} threads)", t_cli, out.strip().split()[0]))

    per_task = {}
    for workers in sorted({1, args.workers}):
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                env={"RAYON_NUM_THREADS": "1"},
            ) as cluster,
            Client(cluster) as client,
        ):
            client.compute(rd.count_lines(args.file, blocksize=64 << 20)).result()
            count = rd.count_lines(args.file, blocksize=args.blocksize, device=args.device)
            n = client.compute(count).result()
            t = best(args.runs, lambda c=count: client.compute(c).result())
            rows.append((f"`ragged.dask.count_lines`, {workers} worker(s)", t, f"{n:,}"))
            frame = rd.read_lines(args.file, blocksize=args.blocksize, device=args.device)
            lengths = frame.map_partitions(len, meta=(None, "int64")).sum()
            n = client.compute(lengths).result()
            t = best(args.runs, lambda c=lengths: client.compute(c).result())
            rows.append((f"`ragged.dask.read_lines` + row count, {workers} worker(s)", t, f"{n:,}"))
            peaks = client.run(_peak_rss)
            print(
                f"{workers} worker(s): peak RSS per worker "
                + ", ".join(f"{v / 2**20:.0f} MiB" for v in peaks.values())
                + f" (blocksize {args.blocksize})"
            )
            per_task[workers] = task_cost(client, args.tasks, args.runs)

    print(
        f"\n{gib:.2f} GiB, blocksize {args.blocksize}, device {args.device}, best of {args.runs}\n"
    )
    print("| job | wall | result | GB/s |")
    print("|---|---:|---:|---:|")
    for name, t, result in rows:
        print(f"| {name} | {t:.2f} s | {result} | {gib * 2**30 / t / 1e9:.2f} |")
    print()
    for workers, cost in per_task.items():
        print(
            f"scheduler cost per task, {workers} worker(s): {cost * 1e3:.2f} ms "
            f"({args.tasks} tasks)"
        )


if __name__ == "__main__":
    main()
