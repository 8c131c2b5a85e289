"""Inputs and outputs without copies (proved by buffer addresses), the libraries users
hold their data in, devices, errors and the GIL."""

from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa
import pytest

import ragged
from ragged import _ragged


def addresses(array: pa.Array) -> list:
    return [b.address for b in array.buffers() if b is not None]


def test_pyarrow_input_is_not_copied():
    array = pa.array(["a", None, "ccc"] * 100)
    assert _ragged.input_buffer_addresses(array) == addresses(array)
    ints = pa.array(list(range(1000)), pa.int64())
    assert _ragged.input_buffer_addresses(ints) == addresses(ints)
    lists = pa.array([[1, 2], [3]])
    assert (
        _ragged.input_buffer_addresses(lists)
        == addresses(lists)[: len(_ragged.input_buffer_addresses(lists))]
    )


def test_numpy_input_is_not_copied():
    values = np.arange(1000, dtype=np.int64)
    assert _ragged.input_buffer_addresses(values) == [values.ctypes.data]
    # A view keeps its base alive through ragged's array.
    view = np.arange(10, dtype=np.int32)[2:]
    assert _ragged.input_buffer_addresses(view) == [view.ctypes.data]
    with pytest.raises(ValueError, match="contiguous"):
        _ragged.input_buffer_addresses(np.arange(10)[::2])


def test_output_is_shared_with_pyarrow():
    result = ragged.strings.upper(pa.array(["a", "b", None]))
    exported = pa.array(result)
    assert addresses(exported) == result.buffer_addresses()
    assert exported.to_pylist() == ["A", "B", None]
    assert len(result) == 3 and result.null_count == 1 and result.type == "Utf8"


def test_conversions():
    lengths = ragged.strings.length(pa.array(["ab", "cde", ""]))
    assert lengths.to_pyarrow().to_pylist() == [2, 3, 0]
    values = lengths.to_numpy()
    assert values.tolist() == [2, 3, 0]
    # Fixed-width without nulls: NumPy views ragged's buffer.
    assert values.ctypes.data == lengths.buffer_addresses()[-1]
    with_null = ragged.strings.length(pa.array(["ab", None])).to_numpy()
    assert with_null[0] == 2 and np.isnan(with_null[1])
    pl = pytest.importorskip("polars")
    assert lengths.to_polars().to_list() == [2, 3, 0]
    assert isinstance(lengths.to_polars(), pl.Series)


def test_polars_and_pandas_inputs():
    pl = pytest.importorskip("polars")
    series = pl.Series(["Ada Lovelace", None, "Grace Hopper"])
    out = pl.Series(ragged.redact(series, "public"))
    assert out.to_list() == ["L Ada", None, "H Grace"]
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": pd.array(["a", "bb", None], dtype="string[pyarrow]")})
    assert pa.array(ragged.strings.length(pa.array(frame["x"]))).to_pylist() == [1, 2, None]


def test_devices_and_context():
    assert ragged.current_device() == "auto"
    with ragged.device("cpu"):
        assert ragged.current_device() == "cpu"
        assert ragged.describe_device().startswith("cpu")
    assert ragged.current_device() == "auto"
    with pytest.raises(ragged.errors.InvalidArgumentError):
        ragged.strings.upper(pa.array(["a"]), device="tpu")
    with pytest.raises(ValueError):
        ragged.device("gpu:x").__enter__()


def test_errors_are_typed_with_the_rust_message():
    with pytest.raises(ragged.errors.TypeMismatchError) as info:
        ragged.strings.upper(pa.array([1, 2]))
    assert isinstance(info.value, TypeError) and isinstance(info.value, ragged.RaggedError)
    with pytest.raises(ragged.errors.InvalidArgumentError):
        ragged.strings.replace(pa.array(["a"]), "", "b")
    with pytest.raises(ragged.errors.LengthMismatchError):
        ragged.strings.contains(pa.array(["a", "b"]), pa.array(["a"]))
    with pytest.raises(TypeError, match="Arrow array"):
        ragged.strings.upper(["plain", "list"])


def test_the_gil_is_released_while_ragged_computes():
    big = pa.array(["Ada Lovelace " * 4] * 400_000)
    done = threading.Event()
    ticks = 0

    def work():
        for _ in range(3):
            ragged.strings.upper(big, device="cpu")
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    while not done.is_set():
        ticks += 1
    thread.join()
    # With the GIL held during the op, this loop would only run between the calls.
    assert ticks > 1000


def test_help_is_useful():
    doc = ragged.strings.split.__doc__ or ""
    assert "separator" in doc and "whitespace" in doc
    assert (
        ragged.lists.compact_offsets.__doc__
        and "InvalidOffsetsError" in ragged.lists.compact_offsets.__doc__
    )
