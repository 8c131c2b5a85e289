"""ragged on Dask, whole jobs timed: a generated log counted and read by
``ragged.dask`` on a loopback LocalCluster of 1 and of N worker processes (one thread
each, ragged's own threads limited to one per worker by ``RAYON_NUM_THREADS``), beside
``ragged lines --count`` on the same file with N threads; then the scheduler's cost per
task (empty partitions).

    python python/benchmarks/dask_bench.py --ragged target/dist/ragged --size 4GiB \
        [--workers 2] [--blocksize "256 MiB"] [--runs 2] [--device cpu]

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


def best(runs: int, fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ragged", default="target/dist/ragged", help="the ragged CLI")
    parser.add_argument("--size", default="4GiB")
    parser.add_argument("--file", default=os.path.join(tempfile.gettempdir(), "ragged-dask-bench.log"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--blocksize", default="256 MiB")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tasks", type=int, default=2000, help="empty tasks for the per-task cost")
    args = parser.parse_args()

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
            # The scheduler's own cost: tasks that read nothing.
            import dask

            empty = [dask.delayed(int)(i) for i in range(args.tasks)]
            total = dask.delayed(sum)(empty)
            t = best(args.runs, lambda c=total: client.compute(c).result())
            per_task[workers] = t / args.tasks

    print(f"\n{gib:.2f} GiB, blocksize {args.blocksize}, device {args.device}, best of {args.runs}\n")
    print("| job | wall | result | GB/s |")
    print("|---|---:|---:|---:|")
    for name, t, result in rows:
        print(f"| {name} | {t:.2f} s | {result} | {gib * 2**30 / t / 1e9:.2f} |")
    print()
    for workers, cost in per_task.items():
        print(f"scheduler cost per task, {workers} worker(s): {cost * 1e3:.2f} ms ({args.tasks} tasks)")


if __name__ == "__main__":
    main()
