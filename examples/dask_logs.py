"""Count and redact a generated multi-GiB log across a local Dask cluster with ragged.

    pip install ./python "dask[dataframe]" distributed bokeh   # bokeh: the dashboard
    python examples/dask_logs.py --size 2GiB --workers 2 [--device cuda] [--out DIR]

Writes ``--log`` (default: a file under the temporary directory) unless it exists with
the asked size, starts a ``distributed.LocalCluster`` (processes on 127.0.0.1; the
dashboard's address is printed: open it to watch the tasks), then

1. counts the log's lines (``ragged.dask.count_lines``: one task per 256 MiB, no
   strings built, the counts summed by Dask),
2. reads the lines (``ragged.dask.read_lines``), splits each ``visibility|First
   Last|message`` line into its three fields, redacts the names whose visibility is not
   ``public`` (``ragged.dask.redact``) and counts the redacted rows, with
   ``distributed.progress`` on the terminal,
3. writes the redacted names to Parquet under ``--out`` when given.

With ``--device cuda`` and one worker per GPU (``CUDA_VISIBLE_DEVICES`` set per worker,
as dask-cuda's ``LocalCUDACluster`` does), the partitions run on the GPUs.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Émilie", "Katherine", "Dennis"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "du Châtelet", "Johnson"]
VISIBILITY = ["public", "private", "friends"]


def size_of(text: str) -> int:
    from ragged.dask import parse_blocksize

    return parse_blocksize(text)


def generate(path: str, size: int) -> None:
    """A log of ``size`` bytes (rounded up to whole lines): blocks of 10 000 random lines
    repeated, written in 64 MiB pieces."""
    rng = random.Random(0)
    lines = [
        f"{rng.choice(VISIBILITY)}|{rng.choice(FIRST)} {rng.choice(LAST)}|GET /item/{i} "
        f"{rng.randint(200, 504)} {rng.randint(1, 99999)}ms\n"
        for i in range(10_000)
    ]
    block = "".join(lines).encode()
    written = 0
    with open(path + ".tmp", "wb") as f:
        while written < size:
            piece = block * max(1, (64 << 20) // len(block))
            f.write(piece)
            written += len(piece)
    os.replace(path + ".tmp", path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="2GiB", help="log size (default 2GiB)")
    parser.add_argument("--log", default=os.path.join(tempfile.gettempdir(), "ragged-dask.log"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="threads per worker")
    parser.add_argument("--blocksize", default="256 MiB")
    parser.add_argument("--device", default=None, help="auto (default), cpu, cuda")
    parser.add_argument("--out", default=None, help="write the redacted names here (Parquet)")
    args = parser.parse_args()

    import dask.dataframe  # noqa: F401  (checks the extra is installed)
    from distributed import Client, LocalCluster, progress

    import ragged.dask as rd

    size = size_of(args.size)
    if not os.path.exists(args.log) or os.path.getsize(args.log) < size:
        print(f"writing {args.log} ({size / 2**30:.1f} GiB) …")
        generate(args.log, size)
    print(f"log: {args.log}, {os.path.getsize(args.log) / 2**30:.2f} GiB")

    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=args.threads,
            processes=True,
            host="127.0.0.1",
        ) as cluster,
        Client(cluster) as client,
    ):
        print(f"dashboard: {client.dashboard_link}")
        start = time.perf_counter()
        count = rd.count_lines(args.log, blocksize=args.blocksize, device=args.device)
        lines = client.compute(count).result()
        print(f"{lines:,} lines counted in {time.perf_counter() - start:.2f} s")

        start = time.perf_counter()
        frame = rd.read_lines(args.log, blocksize=args.blocksize, device=args.device)
        fields = rd.strings.split(frame["line"], "|", max_splits=2, device=args.device)
        redacted = rd.redact(fields[1], fields[0], device=args.device)
        hidden = (rd.strings.contains(redacted, "X X", device=args.device)).astype(bool).sum()
        if args.out:
            written = redacted.to_frame("name").to_parquet(args.out, compute=False)
            future = client.compute([hidden, written])
            progress(future)
            result = future[0].result()
        else:
            future = client.compute(hidden)
            progress(future)
            result = future.result()
        print(
            f"\n{result:,} of {lines:,} names redacted in {time.perf_counter() - start:.2f} s "
            f"({frame.npartitions} partitions on {args.workers} workers)"
        )


if __name__ == "__main__":
    main()
