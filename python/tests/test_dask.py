"""ragged on Dask: partitions of text files by byte range (every record once at every
blocksize), partition-wise ops against the single-process calls and pyarrow.compute,
reductions across partitions, a loopback LocalCluster of worker processes (one killed in
the middle of a job), files that change or vanish, and a GPU worker on the GPU machine."""

from __future__ import annotations

import ctypes
import os
import random
import signal
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from conftest import make_strings  # noqa: E402

import ragged  # noqa: E402
import ragged.dask as rd  # noqa: E402
from ragged.errors import InvalidArgumentError, InvalidUtf8Error, RaggedIOError  # noqa: E402


def text_of(rows: list[str], delimiter: str, terminated: bool) -> str:
    return delimiter.join(rows) + (delimiter if terminated else "")


@pytest.fixture
def files(tmp_path):
    """Three files: many short records, one with records longer than the blocksizes
    tried, and an empty one; with the records each holds."""
    rng = random.Random(3)
    short = [f"{i} {'é' * (i % 4)}{'x' * rng.randint(0, 30)}" for i in range(2000)]
    long = ["L" * rng.randint(0, 300) for _ in range(40)] + ["", "end"]
    (tmp_path / "a.log").write_text(text_of(short, "\n", True), encoding="utf-8")
    (tmp_path / "b.log").write_text(text_of(long, "\n", False), encoding="utf-8")
    (tmp_path / "c.log").write_text("", encoding="utf-8")
    return tmp_path, short + long


def series(values, npartitions=3, type=None):
    array = pa.array(values, type=type)
    return dd.from_pandas(
        pd.Series(pd.arrays.ArrowExtensionArray(array)), npartitions=npartitions, sort=False
    )


@pytest.mark.parametrize("blocksize", [1, 2, 3, 5])
def test_tiny_blocks_every_record_once(tmp_path, blocksize):
    rows = ["", "a", "bcdefgh", "", "", "ijklmnopqrstu", "v"]
    for terminated in [True, False]:
        path = tmp_path / f"t{terminated}.txt"
        path.write_text(text_of(rows, "\n", terminated))
        assert rd.read_lines(path, blocksize=blocksize).compute()["line"].tolist() == rows
        assert rd.count_lines(path, blocksize=blocksize).compute() == len(rows)


@pytest.mark.parametrize("blocksize", [64, 997, "1 MiB"])
def test_read_lines_every_record_once(files, blocksize):
    root, rows = files
    frame = rd.read_lines(str(root / "*.log"), blocksize=blocksize)
    assert list(frame.columns) == ["line"]
    assert frame["line"].dtype == pd.ArrowDtype(pa.string())
    got = frame.compute()["line"].tolist()
    assert got == rows
    assert rd.count_lines(str(root / "*.log"), blocksize=blocksize).compute() == len(rows)


def test_read_lines_delimiters_and_paths(tmp_path):
    rows = ["alpha", "", "γάμμα", "delta"]
    for delimiter in ["\r\n", "||", b"\x00"]:
        text = (
            delimiter.join(rows)
            if isinstance(delimiter, str)
            else b"\x00".join(r.encode() for r in rows).decode()
        )
        path = tmp_path / "x.txt"
        path.write_text(text, encoding="utf-8")
        for blocksize in [1, 3, 100]:
            got = rd.read_lines([path], delimiter, blocksize=blocksize).compute()["line"]
            assert got.tolist() == rows
    kept = rd.read_lines(path, b"\x00", keep_delimiter=True, blocksize=2).compute()["line"]
    assert "".join(kept.tolist()) == path.read_text(encoding="utf-8")


def test_read_lines_through_fsspec(files):
    """A filesystem ragged cannot map (fsspec's in-memory one) goes through read_block
    and ragged.split_lines: the same records."""
    fsspec = pytest.importorskip("fsspec")
    root, rows = files
    memory = fsspec.filesystem("memory")
    for name in ["a.log", "b.log", "c.log"]:
        memory.pipe(f"/ragged-test/{name}", (root / name).read_bytes())
    for blocksize in [97, 333, 1 << 20]:
        frame = rd.read_lines("memory:///ragged-test/*.log", blocksize=blocksize)
        assert frame.compute()["line"].tolist() == rows
        assert rd.count_lines("memory:///ragged-test/*.log", blocksize=blocksize).compute() == len(
            rows
        )
    memory.pipe("/ragged-test/pipes.txt", b"ab||cd|||ef||")
    with pytest.raises(InvalidArgumentError, match="overlap"):
        rd.read_lines("memory:///ragged-test/pipes.txt", "||")


def test_split_lines_reads_bytes_in_place():
    data = "a\nbé\r\nc".encode()
    assert pa.array(ragged.split_lines(data)).to_pylist() == ["a", "bé", "c"]
    assert pa.array(ragged.split_lines(bytearray(data), "\r\n")).to_pylist() == ["a\nbé", "c"]
    assert pa.array(ragged.split_lines(data, byte_range=(1, 4))).to_pylist() == ["bé"]
    # Records kept with their delimiters are the bytes object's own memory.
    address = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value
    kept = pa.array(ragged.split_lines(data, keep_delimiter=True))
    assert kept.to_pylist() == ["a\n", "bé\r\n", "c"]
    assert kept.buffers()[2].address == address
    with pytest.raises(InvalidUtf8Error):
        ragged.split_lines(b"ok\n\xff\n")


def test_changed_and_vanished_files_fail_naming_the_range(tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("one\ntwo\nthree\n")
    frame = rd.read_lines(path, blocksize=4)
    path.write_text("one\ntwo\n")
    with pytest.raises(rd.FileChangedError, match=r"log.txt bytes \d+\.\.\d+: the file changed"):
        frame.compute()
    path.unlink()
    with pytest.raises(RaggedIOError, match=r"log.txt bytes \d+\.\.\d+: No such file"):
        frame.compute()
    with pytest.raises(RaggedIOError, match="no file matches"):
        rd.read_lines(tmp_path / "none-*.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\xfe\n")
    with pytest.raises(InvalidUtf8Error, match=r"bad.txt bytes 0\.\.100"):
        rd.read_lines(bad, blocksize=100).compute()
    with pytest.raises(InvalidArgumentError, match="blocksize"):
        rd.read_lines(bad, blocksize="lots")


STRING_OPS = [
    ("upper", (), {}),
    ("lower", (), {}),
    ("length", (), {}),
    ("length_bytes", (), {}),
    ("contains", ("a",), {}),
    ("starts_with", ("A",), {}),
    ("ends_with", ("a",), {}),
    ("find", ("a",), {}),
    ("rfind", ("a",), {}),
    ("count_matches", ("a",), {}),
    ("like", ("%a_",), {}),
    ("slice", (1, 4), {}),
    ("strip", (), {}),
    ("pad", (9,), {}),
    ("repeat", (2,), {}),
    ("replace", ("a", "ZZ"), {}),
    ("split_record", (" ",), {}),
]


@pytest.mark.parametrize(("op", "args", "kwargs"), STRING_OPS, ids=[o[0] for o in STRING_OPS])
def test_strings_partitionwise_equal_the_single_call(op, args, kwargs):
    rows = make_strings(1500, 11)
    s = series(rows, npartitions=4)
    got = getattr(rd.strings, op)(s, *args, **kwargs)
    assert isinstance(got, dd.Series)
    want = pa.array(getattr(ragged.strings, op)(pa.array(rows), *args, **kwargs))
    assert got.dtype == pd.ArrowDtype(want.type)
    computed = got.compute()
    assert computed.index.tolist() == list(range(len(rows)))
    assert pa.array(computed.array).to_pylist() == want.to_pylist()


def test_strings_against_pyarrow_compute():
    rows = make_strings(800, 5)
    s = series(rows, npartitions=5)
    lengths = rd.strings.length(s).compute()
    assert pa.array(lengths.array).to_pylist() == pc.utf8_length(pa.array(rows)).to_pylist()
    contains = rd.strings.contains(s, "Ada").compute()
    assert (
        pa.array(contains.array).to_pylist()
        == pc.match_substring(pa.array(rows), "Ada").to_pylist()
    )


def test_split_columns_join_concatenate_redact():
    rows = ["a b c", None, "d", "", "e f g h i"] * 7
    s = series(rows, npartitions=4)
    split = rd.strings.split(s, " ", max_splits=2).compute()
    assert list(split.columns) == [0, 1, 2]
    want = ragged.strings.split(pa.array(rows), " ", max_splits=2)
    for k in range(3):
        column = pa.array(want[k]).to_pylist() if k < len(want) else [None] * len(rows)
        assert pa.array(split[k].array).to_pylist() == column
    with pytest.raises(InvalidArgumentError, match="max_splits"):
        rd.strings.split(s, " ")
    joined = rd.strings.join(s, "|").compute()
    assert joined == "|".join(r for r in rows if r is not None)
    both = rd.strings.concatenate([s, "-", s], null_handling="skip").compute()
    want_cat = ragged.strings.concatenate(
        [pa.array(rows), "-", pa.array(rows)], null_handling="skip"
    )
    assert pa.array(both.array).to_pylist() == pa.array(want_cat).to_pylist()
    names = series(["Ada Lovelace", "Alan Turing", None, "Grace Hopper"] * 5, npartitions=3)
    visibility = series(["public", "private", "public", "x public"] * 5, npartitions=3)
    got = rd.redact(names, visibility).compute()
    want_redact = ragged.redact(
        pa.array(["Ada Lovelace", "Alan Turing", None, "Grace Hopper"] * 5),
        pa.array(["public", "private", "public", "x public"] * 5),
    )
    assert pa.array(got.array).to_pylist() == pa.array(want_redact).to_pylist()
    appended = rd.strings.append([s, s]).compute()
    assert pa.array(appended.array).to_pylist() == rows + rows


def test_object_strings_are_converted():
    rows = ["Ada", None, "Émilie"]
    s = dd.from_pandas(pd.Series(rows, dtype=object), npartitions=2)
    assert rd.strings.upper(s).compute().tolist() == ["ADA", pd.NA, "ÉMILIE"]


def test_lists_partitionwise_and_totals():
    rng = random.Random(9)
    rows = [
        None if rng.random() < 0.1 else [rng.randint(-50, 50) for _ in range(rng.randint(0, 6))]
        for _ in range(1000)
    ]
    s = series(rows, npartitions=6, type=pa.list_(pa.int64()))
    for op in ["sum", "min", "max", "mean", "counts", "count", "count_nonzero", "argmax"]:
        got = getattr(rd.lists, op)(s).compute()
        want = pa.array(getattr(ragged.lists, op)(pa.array(rows, pa.list_(pa.int64()))))
        assert pa.array(got.array).to_pylist() == want.to_pylist(), op
    flat = rd.lists.flatten(s).compute()
    assert flat.tolist() == [v for r in rows if r for v in r]
    total = rd.lists.sum(s).sum().compute()
    assert total == sum(v for r in rows if r for v in r)
    lengths = rd.strings.length(series(make_strings(500, 2), npartitions=4))
    want_lengths = [len(r) for r in make_strings(500, 2) if r is not None]
    assert rd.reduce_sum(lengths).compute() == sum(want_lengths)
    assert rd.reduce_max(lengths).compute() == max(want_lengths)
    assert rd.reduce_min(lengths).compute() == min(want_lengths)
    assert rd.reduce_count(lengths).compute() == len(want_lengths)
    empty = series([], npartitions=1, type=pa.int64())
    assert rd.reduce_sum(empty).compute() == 0
    assert rd.reduce_max(empty).compute() is None


def test_dask_awkward_arrays():
    ak = pytest.importorskip("awkward")
    dak = pytest.importorskip("dask_awkward")
    rows = [[1, 2, 3], [], None, [4, 5]] * 10
    array = dak.from_awkward(ak.Array(rows), npartitions=3)
    # dask-awkward's column optimization does not run on this Dask's graphs.
    with dask.config.set({"awkward.optimization.enabled": False}):
        got = rd.lists.sum(array)
        assert type(got).__module__.startswith("dask_awkward")
        assert got.compute().tolist() == ak.sum(ak.Array(rows), axis=1).tolist()
        assert rd.lists.counts(array).compute().tolist() == [3, 0, None, 2] * 10


def test_sketches_and_distances_across_partitions(tmp_path):
    rng = random.Random(4)
    seqs = ["".join(rng.choice("ACGT") for _ in range(rng.randint(5, 60))) for _ in range(90)]
    s = series(seqs, npartitions=4)
    sketches = rd.sketch(s, dim=16, seed=3)
    want = pa.array(ragged.sketch(pa.array(seqs), dim=16, seed=3))
    assert pa.array(sketches.compute().array).to_pylist() == want.to_pylist()
    matrix = rd.pairwise_distances(sketches)
    full = pa.array(ragged.pairwise_distances(want))
    expected = np.asarray(full.flatten()).reshape(len(seqs), len(seqs))
    np.testing.assert_allclose(matrix.compute(), expected, rtol=1e-5, atol=1e-4)
    fasta = []
    for k in range(3):
        path = tmp_path / f"g{k}.fa"
        path.write_text("".join(f">r{k}_{i}\n{seqs[k * 30 + i]}\n" for i in range(30)))
        fasta.append(path)
    per_file = rd.sketch(str(tmp_path / "g*.fa"), dim=16, seed=3)
    assert per_file.npartitions == 3
    got = per_file.compute()
    assert got["name"].tolist() == [f"r{k}_{i}" for k in range(3) for i in range(30)]
    assert pa.array(got["sketch"].array).to_pylist() == want.to_pylist()


def test_device_of_the_client_block_reaches_the_workers():
    """A ragged.device block around building the graph names the device every
    partition runs on (a device no machine here has fails on the worker)."""
    s = series(["a"], npartitions=1)
    with ragged.device("cuda:7"):
        upper = rd.strings.upper(s)
    with pytest.raises(ragged.RaggedError):
        upper.compute()
    assert rd.strings.upper(s).compute().tolist() == ["A"]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            worker_dashboard_address=None,
        ) as local,
        distributed.Client(local) as client,
    ):
        yield client


def slow(part):
    time.sleep(0.15)
    return part


def test_on_a_cluster_of_processes(cluster, files):
    root, rows = files
    frame = rd.read_lines(str(root / "*.log"), blocksize=997)
    upper = rd.strings.upper(frame["line"])
    assert cluster.compute(upper).result().tolist() == [r.upper() for r in rows]
    assert cluster.compute(rd.count_lines(str(root / "*.log"), blocksize=997)).result() == len(rows)


def test_a_killed_worker_loses_nothing(cluster, tmp_path):
    """One worker process killed while the partitions run: Dask reruns its tasks on a
    (restarted) worker and the result equals the single-process one, nothing lost and
    nothing repeated."""
    rows = [f"{i:06d} {'y' * (i % 13)}" for i in range(30000)]
    path = tmp_path / "big.log"
    path.write_text(text_of(rows, "\n", True))
    frame = rd.read_lines(path, blocksize=16 << 10)
    assert frame.npartitions > 20
    work = rd.strings.upper(frame["line"]).map_partitions(slow, meta=frame["line"]._meta)
    future = cluster.compute(work)
    deadline = time.time() + 30
    while time.time() < deadline and not any(cluster.processing().values()):
        time.sleep(0.05)
    time.sleep(0.5)
    pids = cluster.run(os.getpid)
    victim = sorted(pids)[0]
    assert not future.done()  # killed in the middle of the job
    os.kill(pids[victim], signal.SIGKILL)
    result = future.result(timeout=120)
    assert result.tolist() == [r.upper() for r in rows]
    # The nanny restarted the worker: a new process serves in its place.
    assert pids[victim] not in cluster.run(os.getpid).values()


@pytest.mark.skipif(os.environ.get("RAGGED_TEST_CUDA") != "1", reason="needs a CUDA GPU")
def test_gpu_worker(tmp_path):
    """One worker per GPU: partitions run on the worker's CUDA device (``auto``) and
    give what the CPU gives."""
    distributed = pytest.importorskip("distributed")
    rows = make_strings(5000, 8)
    path = tmp_path / "names.txt"
    path.write_text(text_of([r or "" for r in rows], "\n", True))
    with (
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            env={"CUDA_VISIBLE_DEVICES": "0"},
        ) as local,
        distributed.Client(local) as client,
    ):
        described = client.run(ragged.describe_device)
        assert all("CUDA" in d or "cuda" in d for d in described.values()), described
        frame = rd.read_lines(path, blocksize=4096)
        on_gpu = client.compute(rd.strings.upper(frame["line"])).result()
        on_cpu = rd.strings.upper(frame["line"], device="cpu").compute(scheduler="sync")
        assert on_gpu.tolist() == on_cpu.tolist()
        total = client.compute(rd.count_lines(path, blocksize=4096)).result()
        assert total == len(rows)


@pytest.mark.parametrize("window", [1, 5, 333])
def test_partitions_read_window_by_window(files, monkeypatch, window):
    """A partition is read in windows (the records starting in each, kept as chunks);
    small windows give the same records."""
    monkeypatch.setattr(rd, "_WINDOW", window)
    root, rows = files
    frame = rd.read_lines(str(root / "*.log"), blocksize=997)
    assert frame.compute()["line"].tolist() == rows
