"""Files split into records: against Python's own splitting, at every window size."""

from __future__ import annotations

import os
import signal
import threading
import time

import pyarrow as pa
import pytest

import ragged


@pytest.fixture
def log(tmp_path):
    lines = [f"GET /item/{i} {'é' * (i % 5)}" for i in range(3000)] + ["", "last without newline"]
    text = "\n".join(lines[:-1]) + "\r\n" + lines[-1]
    path = tmp_path / "access.log"
    path.write_bytes(text.encode())
    return path, text


def expected(text: str) -> list:
    records = text.split("\n")
    return [r[:-1] if r.endswith("\r") else r for r in records]


def test_read_and_count(log, device):
    path, text = log
    got = pa.array(ragged.read_lines(path, device=device)).to_pylist()
    assert got == expected(text)
    assert ragged.count_lines(path, device=device) == len(expected(text))
    kept = pa.array(ragged.read_lines(path, "\n", keep_delimiter=True, device=device)).to_pylist()
    assert "".join(kept) == text


@pytest.mark.parametrize("chunk", [1, 7, 100, 4096, 1 << 20])
def test_iter_lines_yields_every_record_once(log, device, chunk):
    path, text = log
    records = []
    for item in ragged.iter_lines(path, chunk_size=chunk, device=device):
        batch = pa.record_batch(item)
        assert batch.schema.names == ["line"]
        records.extend(batch.column(0).to_pylist())
    assert records == expected(text)


def test_byte_ranges_partition_the_records(log, device):
    path, text = log
    size = len(text.encode())
    cuts = [0, 13, 500, 501, size // 2, size]
    parts = []
    for start, end in zip(cuts, cuts[1:], strict=False):
        arr = ragged.read_lines(path, byte_range=(start, end), device=device)
        parts.extend(pa.array(arr).to_pylist())
    assert parts == expected(text)


def test_other_delimiters(tmp_path, device):
    path = tmp_path / "records.bin"
    path.write_bytes(b"a||b||||c")
    assert pa.array(ragged.read_lines(path, "||", device=device)).to_pylist() == ["a", "b", "", "c"]
    assert pa.array(ragged.read_lines(path, b"|", device=device)).to_pylist() == [
        "a",
        "",
        "b",
        "",
        "",
        "",
        "c",
    ]


def test_errors(tmp_path, device):
    with pytest.raises(ragged.errors.RaggedIOError) as info:
        ragged.read_lines(tmp_path / "missing.txt", device=device)
    assert isinstance(info.value, OSError) and "missing.txt" in str(info.value)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nbad \xff here\n")
    with pytest.raises(ragged.errors.InvalidUtf8Error) as info:
        ragged.read_lines(bad, device=device)
    assert isinstance(info.value, ValueError)
    assert "row 1 at byte 4" in str(info.value)
    with pytest.raises(ragged.errors.InvalidArgumentError):
        ragged.read_lines(bad, "", device=device)


def test_ctrl_c_stops_a_long_read_between_windows(tmp_path):
    """SIGINT while read_lines / count_lines work through many windows raises
    KeyboardInterrupt from inside the call (checked between windows)."""
    from ragged import _ragged

    path = tmp_path / "many.txt"
    path.write_bytes(b"ACGTACGTAC some text\n" * 1_000_000)  # 21 MB, 5 000+ windows of 4 KiB
    calls = {
        "read_lines": lambda: _ragged.read_lines(str(path), "\n", False, None, 4096, False, "cpu"),
        "count_lines": lambda: _ragged.count_lines(str(path), "\n", None, 4096, "cpu"),
    }
    # Python's own Ctrl-C handler, also where SIGINT came ignored (a background job).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            whole = time.perf_counter() - start
            timer = threading.Timer(whole / 10, os.kill, (os.getpid(), signal.SIGINT))
            returned = []
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                call()
                returned.append(name)
                time.sleep(5)  # a signal that came after the call would land here
            timer.join()
            assert not returned, f"{name} ran to its end before the interrupt"
    finally:
        signal.signal(signal.SIGINT, previous)
