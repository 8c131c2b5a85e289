"""ragged: ragged (variable-length) columnar data — strings, lists, lines of text — in
Apache Arrow layout, on the CPU and on CUDA GPUs.

Inputs are Arrow objects (anything with ``__arrow_c_array__`` or ``__arrow_c_stream__``:
pyarrow, Polars, pandas with Arrow dtypes, nanoarrow, DuckDB results) or NumPy arrays of
numbers; they are read in place, not copied. Results are :class:`ragged.Array` objects,
which export ``__arrow_c_array__``: ``pyarrow.array(r)`` and ``polars.Series(r)`` take them
without copying.

>>> import pyarrow as pa, ragged
>>> ragged.strings.upper(pa.array(["Ada Lovelace", None])).to_pylist()
['ADA LOVELACE', None]
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, cast

from . import errors, lists, strings
from ._device import current_device, device
from ._device import resolve as _resolve
from ._ragged import Array, __version__
from ._ragged import count_lines as _count_lines
from ._ragged import describe_device as _describe_device
from ._ragged import info as _info
from ._ragged import pairwise_distances as _pairwise_distances
from ._ragged import read_lines as _read_lines
from ._ragged import redact as _redact
from ._ragged import reduce as _reduce
from ._ragged import scan as _scan
from ._ragged import segmented as _segmented
from ._ragged import select as _select
from ._ragged import sketch as _sketch
from ._ragged import sketch_file as _sketch_file
from ._ragged import split_lines as _split_lines
from ._ragged import strings_transform as _strings_transform
from .errors import RaggedError

__all__ = [
    "Array",
    "RaggedError",
    "__version__",
    "current_device",
    "describe_device",
    "device",
    "errors",
    "count_lines",
    "info",
    "iter_lines",
    "pairwise_distances",
    "read_lines",
    "lists",
    "redact",
    "reduce_argmax",
    "reduce_argmin",
    "reduce_count",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "scan_max",
    "scan_min",
    "scan_sum",
    "segmented_argmax",
    "segmented_argmin",
    "segmented_count",
    "segmented_max",
    "segmented_min",
    "segmented_sum",
    "select",
    "sketch",
    "split_lines",
    "strings",
    "transform_strings",
]

ArrayLike = Any
"""An Arrow array-like object (``__arrow_c_array__`` / ``__arrow_c_stream__``) or a NumPy
array of numbers."""


def info() -> str:
    """The report of ``ragged info``: version, backends, devices (or why none), the
    NVRTC toolkit, built-in kernels and the kernel cache."""
    return _info()


def describe_device(device: str | None = None) -> str:
    """A one-line description of the device a call would run on (``cpu (16
    threads)``, ``cuda:0 NVIDIA H100 …``)."""
    return _describe_device(_resolve(device))


def redact(names: ArrayLike, visibility: ArrayLike | str, *, device: str | None = None) -> Array:
    """Redact "First Last" names by a visibility: "L First" (the initial of the second
    space-separated part, a space, the first part) where the visibility contains
    "public", "X X" elsewhere; null names stay null.

    ``visibility`` is one string for every row or an array of one per row. The parts are
    those of ``name.split(" ")`` (single spaces), as the cuDF and Polars expressions of
    this op cut them.
    """
    return _redact(names, visibility, _resolve(device))


def reduce_sum(array: ArrayLike, *, device: str | None = None) -> int | float:
    """Sum of the valid values: exact ``int`` for integers (an error on overflow of
    int64 / uint64), ``float`` for floats; 0 when there is none (pyarrow gives None)."""
    return cast("int | float", _reduce(array, "sum", _resolve(device)))


def reduce_min(array: ArrayLike, *, device: str | None = None) -> int | float | None:
    """Least valid value (None when there is none); NaN is ignored unless every valid
    value is NaN."""
    return cast("int | float | None", _reduce(array, "min", _resolve(device)))


def reduce_max(array: ArrayLike, *, device: str | None = None) -> int | float | None:
    """Greatest valid value (None when there is none); NaN as in :func:`reduce_min`."""
    return cast("int | float | None", _reduce(array, "max", _resolve(device)))


def reduce_argmin(array: ArrayLike, *, device: str | None = None) -> int | None:
    """Position of the first least valid value (None when there is none)."""
    return cast("int | None", _reduce(array, "argmin", _resolve(device)))


def reduce_argmax(array: ArrayLike, *, device: str | None = None) -> int | None:
    """Position of the first greatest valid value (None when there is none)."""
    return cast("int | None", _reduce(array, "argmax", _resolve(device)))


def reduce_count(array: ArrayLike, *, device: str | None = None) -> int:
    """Number of valid values (``pyarrow.compute.count``)."""
    return cast("int", _reduce(array, "count", _resolve(device)))


def scan_sum(array: ArrayLike, *, exclusive: bool = False, device: str | None = None) -> Array:
    """Running sums in the sum type (int64, uint64, float64): a null row adds nothing
    and is null in the output, the running sum goes on past it
    (``pyarrow.compute.cumulative_sum`` with ``skip_nulls=True``). An overflowing prefix
    is an error. ``exclusive``: row ``i`` sums the rows before ``i``."""
    return _scan(array, "sum", exclusive, _resolve(device))


def scan_min(array: ArrayLike, *, exclusive: bool = False, device: str | None = None) -> Array:
    """Running minima (``pyarrow.compute.cumulative_min``); nulls as in :func:`scan_sum`."""
    return _scan(array, "min", exclusive, _resolve(device))


def scan_max(array: ArrayLike, *, exclusive: bool = False, device: str | None = None) -> Array:
    """Running maxima (``pyarrow.compute.cumulative_max``); nulls as in :func:`scan_sum`."""
    return _scan(array, "max", exclusive, _resolve(device))


def select(array: ArrayLike, mask: ArrayLike, *, device: str | None = None) -> Array:
    """The valid values of ``array`` where ``mask`` (booleans) is true, in order, with no
    nulls: a null value or a null mask row is left out (``pyarrow.compute.filter`` keeps
    null values)."""
    return _select(array, mask, _resolve(device))


def _segmented_doc(what: str) -> str:
    return (
        f"{what} of each segment ``array[offsets[i]:offsets[i + 1]]``; ``offsets`` is an "
        "int32 or int64 array (NumPy or Arrow) of ``segments + 1`` non-decreasing positions "
        "within the array, else an :class:`~ragged.errors.InvalidOffsetsError` names the "
        "first bad one. Null values are skipped."
    )


def segmented_sum(array: ArrayLike, offsets: ArrayLike, *, device: str | None = None) -> Array:
    return _segmented(array, offsets, "sum", _resolve(device))


def segmented_min(array: ArrayLike, offsets: ArrayLike, *, device: str | None = None) -> Array:
    return _segmented(array, offsets, "min", _resolve(device))


def segmented_max(array: ArrayLike, offsets: ArrayLike, *, device: str | None = None) -> Array:
    return _segmented(array, offsets, "max", _resolve(device))


def segmented_argmin(array: ArrayLike, offsets: ArrayLike, *, device: str | None = None) -> Array:
    return _segmented(array, offsets, "argmin", _resolve(device))


def segmented_argmax(array: ArrayLike, offsets: ArrayLike, *, device: str | None = None) -> Array:
    return _segmented(array, offsets, "argmax", _resolve(device))


def segmented_count(array: ArrayLike, offsets: ArrayLike, *, device: str | None = None) -> Array:
    return _segmented(array, offsets, "count", _resolve(device))


segmented_sum.__doc__ = _segmented_doc("The sum (in the sum type; 0 when empty)")
segmented_min.__doc__ = _segmented_doc("The least valid value (null when none)")
segmented_max.__doc__ = _segmented_doc("The greatest valid value (null when none)")
segmented_argmin.__doc__ = _segmented_doc("The position within its segment of the least value")
segmented_argmax.__doc__ = _segmented_doc("The position within its segment of the greatest value")
segmented_count.__doc__ = _segmented_doc("The number of valid values")


DEFAULT_CHUNK_SIZE = 64 << 20
"""Bytes per window of the line reader (a record longer than a window grows it)."""

PathLike = str | os.PathLike[str]


def read_lines(
    path: PathLike,
    delimiter: str | bytes = "\n",
    *,
    keep_delimiter: bool = False,
    byte_range: tuple[int, int] | None = None,
    device: str | None = None,
) -> Array:
    """The records of a text file as one strings array (``large_string`` beyond 2 GiB).

    ``delimiter``: ``"\n"`` (the default) also strips a ``\r`` before it (universal
    newlines); ``"\r\n"`` matches exactly that; any other str or bytes (up to 64 bytes)
    matches exactly. ``keep_delimiter`` keeps each record's delimiter. ``byte_range=(start,
    end)`` keeps only the records that *start* in ``[start, end)``, so consecutive ranges
    split a file with every record read exactly once (``ragged.dask`` partitions use it).
    The file is memory-mapped and read in 64 MiB windows; invalid UTF-8 is an error naming
    the record and byte. A file ending without a delimiter still ends its last record.
    """
    return _read_lines(
        os.fspath(path),
        delimiter,
        keep_delimiter,
        byte_range,
        DEFAULT_CHUNK_SIZE,
        False,
        _resolve(device),
    )


def count_lines(
    path: PathLike,
    delimiter: str | bytes = "\n",
    *,
    byte_range: tuple[int, int] | None = None,
    device: str | None = None,
) -> int:
    """The number of records :func:`read_lines` would return, without building them or
    checking UTF-8 (``ragged lines --count``; like ``wc -l`` plus an unterminated last
    line)."""
    return _count_lines(
        os.fspath(path), delimiter, byte_range, DEFAULT_CHUNK_SIZE, _resolve(device)
    )


def transform_strings(
    source: str,
    inputs: list[ArrayLike | str],
    *,
    rows: int | None = None,
    device: str | None = None,
) -> Array:
    """A strings array built on a CUDA GPU by your own CUDA C++ device function, run
    through ragged's two-pass engine (sizes, a scan into offsets, the bytes). ``source``
    defines::

        __device__ bool transform(uint64_t row, const ragged::StringInput* inputs,
                                  ragged::Writer& out);

    which writes row ``row`` through ``out`` (``out.str(view)``, ``out.bytes(p, n)``,
    ``out.byte(b)``) and returns whether the row is valid (a null row writes nothing).
    It runs twice per row, to size and to write, and must write the same valid UTF-8
    both times. ``inputs[k]`` in C++ is ``inputs[k]`` here — a strings array or one
    string for every row — with ``valid(row)`` and ``get(row)`` (a
    ``ragged::string_view`` with ``size``, ``operator[]``, ``find``, ``find_byte``,
    ``contains``, ``substr``, ``chars``). ``rows`` defaults to the first array's length.
    The source is compiled once by NVRTC and cached on disk; a compile error raises
    :class:`~ragged.errors.KernelCompileError` with NVRTC's log. Needs a CUDA device
    (``device="cpu"`` is an :class:`~ragged.errors.InvalidArgumentError`)::

        source = '''
        __device__ bool transform(uint64_t row, const ragged::StringInput* in,
                                  ragged::Writer& out) {
            if (!in[0].valid(row)) return false;
            out.str(in[0].get(row)); out.byte('@'); out.str(in[1].get(row));
            return true;
        }'''
        ragged.transform_strings(source, [users, "example.org"], device="cuda")
    """
    return _strings_transform(source, list(inputs), rows, _resolve(device))


def split_lines(
    data: bytes | bytearray | memoryview,
    delimiter: str | bytes = "\n",
    *,
    keep_delimiter: bool = False,
    byte_range: tuple[int, int] | None = None,
    device: str | None = None,
) -> Array:
    """The records of ``data`` (bytes already in memory: a block read from an object
    store, a network message) as one strings array, exactly as :func:`read_lines` gives
    them for a file holding those bytes; ``byte_range`` counts from the start of
    ``data``. A ``bytes`` object is read in place (with ``keep_delimiter`` the records
    share its memory); other bytes-like objects are copied once."""
    return _split_lines(
        data, delimiter, keep_delimiter, byte_range, DEFAULT_CHUNK_SIZE, _resolve(device)
    )


def iter_lines(
    path: PathLike,
    delimiter: str | bytes = "\n",
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    keep_delimiter: bool = False,
    device: str | None = None,
) -> Iterator[Array]:
    """The records of a file larger than memory, one record batch at a time: each item
    is an Arrow struct array with one field ``line`` (``pyarrow.record_batch(item)``
    takes it without copying) holding the records that start in the next ``chunk_size``
    bytes. Memory stays near one chunk plus the longest record; Ctrl-C stops between
    batches. Every record is yielded exactly once, in order.

    Delimiters that can overlap themselves (such as ``"aa"``) make each batch rescan the
    file from its start; prefer :func:`read_lines` for those.
    """
    if chunk_size < 1:
        from .errors import InvalidArgumentError

        raise InvalidArgumentError("invalid argument chunk_size: must be at least 1")
    size = os.path.getsize(path)
    name = _resolve(device)
    for start in range(0, max(size, 1), chunk_size):
        batch = _read_lines(
            os.fspath(path),
            delimiter,
            keep_delimiter,
            (start, start + chunk_size),
            chunk_size,
            True,
            name,
        )
        if len(batch):
            yield batch


def sketch(
    sequences: ArrayLike | PathLike,
    *,
    t: int = 4,
    dim: int = 96,
    seed: int = 0,
    alphabet: str = "dna",
    device: str | None = None,
) -> Array | tuple[Array, Array]:
    """Tensor Sketch embeddings (Joudaki et al.): one ``dim``-vector of float32 per
    sequence, whose squared L2 distances approximate the edit distance. ``sequences``
    is a strings array (one sequence per row; letters outside ``alphabet`` are skipped,
    case-insensitively; a null row is an error) — the result is then a
    ``fixed_size_list<float>[dim]`` array — or the path of a FASTA/FASTQ file (plain or
    gzip), for which the result is ``(names, sketches)``. ``alphabet``: ``"dna"``,
    ``"protein"`` or the symbols themselves. Equal ``t``, ``dim``, ``seed`` and
    alphabet give comparable sketches (``ragged sketch`` on the command line included).
    """
    name = _resolve(device)
    if isinstance(sequences, (str, os.PathLike)):
        return _sketch_file(os.fspath(sequences), t, dim, seed, alphabet, name)
    return _sketch(sequences, t, dim, seed, alphabet, name)


def pairwise_distances(
    queries: ArrayLike, references: ArrayLike | None = None, *, device: str | None = None
) -> Array:
    """Squared L2 distances between sketches (``fixed_size_list<float>`` arrays, as
    :func:`sketch` returns): one row per query holding its distance to every reference
    (to every query when ``references`` is None). ``numpy.asarray(pa.array(r).flatten())
    .reshape(len(r), -1)`` gives the matrix."""
    return _pairwise_distances(queries, references, _resolve(device))
