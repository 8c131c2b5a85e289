"""ragged on Dask: text files read by byte ranges into partitions, and every strings,
lists, redact and sketch op applied partition by partition on the workers — CPU or GPU —
with Dask's own scheduler, retries and reductions.

>>> import ragged.dask
>>> lines = ragged.dask.read_lines("logs/*.txt", blocksize="256 MiB")   # doctest: +SKIP
>>> ragged.dask.redact(lines["line"], "public").head()                  # doctest: +SKIP

The same call that runs on a laptop runs on a cluster: start a
``distributed.Client`` (``LocalCluster``, or one worker per GPU — README, "On a
cluster") and compute. Each partition runs on its worker's device: ``"auto"`` (its CUDA
device when it has one, else its CPUs) unless ``device=`` or a :func:`ragged.device`
block on the client names one. Results are Dask Series of ``pd.ArrowDtype`` whose
partitions share ragged's Arrow buffers (no conversion through Python objects).

Importing this module imports Dask (``pip install "dask[dataframe]" distributed``);
``import ragged`` alone does not.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa

from .. import pairwise_distances as _pairwise_distances
from .. import read_lines as _read_lines
from .. import redact as _redact
from .. import reduce_count as _reduce_count
from .. import reduce_max as _reduce_max
from .. import reduce_min as _reduce_min
from .. import reduce_sum as _reduce_sum
from .. import sketch as _sketch
from .. import split_lines as _split_lines
from ..errors import InvalidArgumentError, RaggedError, RaggedIOError
from . import lists, strings
from ._core import partitionwise, reduce_partitions, to_arrow, worker_device

__all__ = [
    "FileChangedError",
    "count_lines",
    "lists",
    "pairwise_distances",
    "parse_blocksize",
    "read_lines",
    "redact",
    "reduce_count",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "sketch",
    "strings",
]

_WINDOW = 64 << 20
"""Bytes read per call within a partition (ragged's window): a partition's records are
built as chunks of this many bytes' records."""

DEFAULT_BLOCKSIZE = 256 << 20
"""Bytes of a file per partition of :func:`read_lines` (``"256 MiB"``)."""


class FileChangedError(RaggedIOError):
    """A file whose size or modification time changed between planning the partitions
    and reading one of them (its records could be lost or repeated)."""


# ---- partitions of text files -----------------------------------------------------


@dataclass(frozen=True)
class _Range:
    """One partition of :func:`read_lines`: the records that start in ``[start, end)``
    of ``path``, planned when the file had identity ``key``."""

    fs: Any
    path: str
    start: int
    end: int
    size: int
    key: str

    def where(self) -> str:
        return f"{self.path} bytes {self.start}..{self.end}"


_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


def parse_blocksize(blocksize: int | str) -> int:
    """``blocksize`` in bytes: an int, or a string such as ``"256 MiB"`` / ``"1GB"``."""
    if isinstance(blocksize, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", blocksize)
        unit = m.group(2).lower() if m else ""
        if m is None or unit not in _UNITS:
            raise InvalidArgumentError(
                f"invalid argument blocksize: {blocksize!r} is not a size such as '256 MiB'"
            )
        blocksize = int(float(m.group(1)) * _UNITS[unit])
    if not isinstance(blocksize, int) or blocksize < 1:
        raise InvalidArgumentError(
            f"invalid argument blocksize: {blocksize!r} must be at least 1 byte"
        )
    return blocksize


def _overlaps_itself(delimiter: bytes) -> bool:
    """Whether a proper prefix of ``delimiter`` is also its suffix (``"||"``, ``"aba"``):
    where such a delimiter's occurrences begin then depends on where a scan starts."""
    return any(delimiter[:k] == delimiter[-k:] for k in range(1, len(delimiter)))


def _plan(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    blocksize: int | str,
    storage_options: dict[str, Any] | None,
    delimiter: str | bytes = "\n",
) -> list[_Range]:
    """The byte ranges of every file matched by ``paths`` (globs expanded by fsspec),
    in order, each file's identity recorded."""
    import fsspec

    size = parse_blocksize(blocksize)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    names = [os.fspath(p) for p in paths]
    fs, _, found = fsspec.core.get_fs_token_paths(
        names, mode="rb", storage_options=storage_options or {}
    )
    if not found:
        raise RaggedIOError(f"read_lines: no file matches {', '.join(names)}")
    if not _is_local(fs) and _overlaps_itself(_raw(delimiter)):
        raise InvalidArgumentError(
            f"invalid argument delimiter: {delimiter!r} can overlap itself, which byte ranges "
            "of a file outside the local filesystem cannot split consistently"
        )
    ranges = []
    for path in found:
        info = fs.info(path)
        if info.get("type") == "directory":
            raise RaggedIOError(f"read {path}: Is a directory")
        total = int(info["size"])
        key = fs.ukey(path)
        for start in range(0, max(total, 1), size):
            ranges.append(_Range(fs, path, start, start + size, total, key))
    return ranges


def _is_local(fs: Any) -> bool:
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def _check_unchanged(part: _Range) -> None:
    """Raise :class:`FileChangedError` (or ragged's I/O error for a vanished file) when
    the file is not the one the partitions were planned on."""
    try:
        info = part.fs.info(part.path)
    except FileNotFoundError as e:
        raise RaggedIOError(f"read {part.where()}: No such file or directory") from e
    if int(info["size"]) != part.size or part.fs.ukey(part.path) != part.key:
        raise FileChangedError(
            f"read {part.where()}: the file changed after the partitions were planned "
            f"(size {part.size} then, {info['size']} now)"
        )


def _after_delimiter(part: _Range, position: int, delimiter: bytes) -> int:
    """The position just after the first ``delimiter`` at or after ``position`` in a
    file outside the local filesystem (its size when there is none), read by ranged
    ``cat_file`` calls, which share no file position between tasks."""
    step = 1 << 16
    tail = b""
    pos = position
    while pos < part.size:
        piece = part.fs.cat_file(part.path, start=pos, end=min(pos + step, part.size))
        if not piece:
            break
        window = tail + piece
        found = window.find(delimiter)
        if found >= 0:
            return pos - len(tail) + found + len(delimiter)
        tail = window[len(window) - (len(delimiter) - 1) :] if len(delimiter) > 1 else b""
        pos += len(piece)
    return part.size


def _remote_block(part: _Range, delimiter: bytes) -> bytes:
    """The records of a partition of a file outside the local filesystem, with fsspec's
    ``read_block`` rule: from just after the first delimiter at or after ``start`` (the
    file's start for the first partition) to just after the first at or after ``end``,
    so that every record is in exactly one partition."""
    first = 0 if part.start == 0 else _after_delimiter(part, part.start, delimiter)
    last = _after_delimiter(part, part.end, delimiter)
    if first >= last:
        return b""
    return bytes(part.fs.cat_file(part.path, start=first, end=last))


@contextlib.contextmanager
def _naming(part: _Range) -> Iterator[None]:
    """ragged's errors raised inside re-raised (same class) with the file and byte range
    of the partition in their message; the file checked unchanged first."""
    try:
        _check_unchanged(part)
        yield
    except FileChangedError:
        raise
    except RaggedError as e:
        message = str(e)
        if part.where() not in message:
            message = f"{part.where()}: {message}"
        raise type(e)(message) from e


def _raw(delimiter: str | bytes) -> bytes:
    return delimiter.encode() if isinstance(delimiter, str) else bytes(delimiter)


def _lines_of(
    part: _Range, delimiter: str | bytes, keep_delimiter: bool, device: str | None
) -> Any:
    """One partition's records as ragged's strings array, errors naming the range."""
    with _naming(part):
        if _is_local(part.fs):
            # Window by window (the records starting in each), kept as chunks: the
            # partition's strings exist once, never beside a concatenated copy.
            pieces = [
                pa.array(
                    _read_lines(
                        part.path,
                        delimiter,
                        keep_delimiter=keep_delimiter,
                        byte_range=(start, min(start + _WINDOW, part.end)),
                        device=device,
                    )
                )
                for start in range(part.start, min(part.end, max(part.size, 1)), _WINDOW)
            ]
            pieces = [p for p in pieces if len(p)] or pieces[:1]
            if any(p.type == pa.large_string() for p in pieces):  # a record beyond 2 GiB
                pieces = [p.cast(pa.large_string()) for p in pieces]
            return pa.chunked_array(pieces, pieces[0].type if pieces else pa.string())
        block = _remote_block(part, _raw(delimiter))
        return _split_lines(block, delimiter, keep_delimiter=keep_delimiter, device=device)


def _read_partition(
    part: _Range, delimiter: str | bytes, keep_delimiter: bool, device: str | None, column: str
) -> pd.DataFrame:
    lines = _lines_of(part, delimiter, keep_delimiter, device)
    if not isinstance(lines, pa.ChunkedArray):
        lines = pa.array(lines)
    series = pd.Series(pd.arrays.ArrowExtensionArray(lines), name=column, copy=False)
    return series.to_frame()


def _count_partition(part: _Range, delimiter: str | bytes, device: str | None) -> pd.Series:
    from .. import count_lines as _count_lines

    with _naming(part):
        if _is_local(part.fs):
            n = _count_lines(part.path, delimiter, byte_range=(part.start, part.end), device=device)
        else:
            n = len(_split_lines(_remote_block(part, _raw(delimiter)), delimiter, device=device))
    return pd.Series([n], dtype="int64")


def read_lines(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    delimiter: str | bytes = "\n",
    *,
    blocksize: int | str = DEFAULT_BLOCKSIZE,
    keep_delimiter: bool = False,
    column: str = "line",
    device: str | None = None,
    storage_options: dict[str, Any] | None = None,
) -> dd.DataFrame:
    """The records of text files as a Dask DataFrame with one ``string[pyarrow]``
    column (``pd.ArrowDtype(pa.string())``, ``large_string`` for a partition beyond 2 GiB)
    named ``column``: one partition per ``blocksize`` bytes of each file, in file order
    (globs expanded, several paths allowed; ``storage_options`` and URLs go to fsspec).

    A partition holds the records that *start* in its byte range, read on the worker by
    :func:`ragged.read_lines` with ``byte_range`` (memory-mapped, only that range and the
    end of its last record touched): no record is lost or repeated at any blocksize,
    including records longer than a block (the partitions they cover are empty).
    Delimiters as :func:`ragged.read_lines`. Files outside the local filesystem are read
    by fsspec's ``read_block`` and split by :func:`ragged.split_lines`.

    Each file's size and modification time are recorded when the partitions are planned;
    a partition whose file changed or vanished since fails with a
    :class:`~ragged.errors.RaggedIOError` (:class:`FileChangedError`) naming the file and
    byte range. A DataFrame, not a Bag: dask-cudf's and Dask's ``read_csv``/``read_text``
    users get a frame of Arrow strings they can filter, join and write to Parquet.
    """
    parts = _plan(paths, blocksize, storage_options, delimiter)
    name = worker_device(device)
    meta = pd.Series(
        pd.arrays.ArrowExtensionArray(pa.array([], type=pa.string())), name=column
    ).to_frame()
    return dd.from_map(
        functools.partial(
            _read_partition,
            delimiter=delimiter,
            keep_delimiter=keep_delimiter,
            device=name,
            column=column,
        ),
        parts,
        meta=meta,
        label="ragged-read-lines",
        enforce_metadata=False,
    )


def count_lines(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    delimiter: str | bytes = "\n",
    *,
    blocksize: int | str = DEFAULT_BLOCKSIZE,
    device: str | None = None,
    storage_options: dict[str, Any] | None = None,
) -> Any:
    """The number of records :func:`read_lines` would give, as a Dask scalar: each
    partition counted on its worker by :func:`ragged.count_lines` (no strings built, no
    UTF-8 check), the counts summed by Dask's reduction."""
    parts = _plan(paths, blocksize, storage_options, delimiter)
    counts = dd.from_map(
        functools.partial(_count_partition, delimiter=delimiter, device=worker_device(device)),
        parts,
        meta=pd.Series([], dtype="int64"),
        label="ragged-count-lines",
        enforce_metadata=False,
    )
    return counts.sum()


# ---- ops ---------------------------------------------------------------------------

redact = partitionwise(_redact)


def _sketch_file(path: str, t: int, dim: int, seed: int, alphabet: str, device: str | None) -> Any:
    result = _sketch(path, t=t, dim=dim, seed=seed, alphabet=alphabet, device=device)
    assert isinstance(result, tuple)  # a path gives (names, sketches)
    names, sketches = result
    return pd.DataFrame(
        {
            "name": pd.arrays.ArrowExtensionArray(pa.array(names)),
            "sketch": pd.arrays.ArrowExtensionArray(pa.array(sketches)),
        }
    )


def sketch(
    sequences: Any,
    *,
    t: int = 4,
    dim: int = 96,
    seed: int = 0,
    alphabet: str = "dna",
    device: str | None = None,
) -> Any:
    """Tensor Sketch embeddings (:func:`ragged.sketch`) of a Dask Series of sequences,
    partition by partition — a Dask Series of ``fixed_size_list<float>[dim]`` — or of
    FASTA/FASTQ files (a path, a glob or a list of them; plain or gzip), one partition
    per file: a Dask DataFrame with columns ``name`` and ``sketch``."""
    if isinstance(sequences, (str, os.PathLike)) or (
        isinstance(sequences, (list, tuple))
        and all(isinstance(s, (str, os.PathLike)) for s in sequences)
    ):
        import fsspec

        names = [sequences] if isinstance(sequences, (str, os.PathLike)) else list(sequences)
        _, _, files = fsspec.core.get_fs_token_paths([os.fspath(n) for n in names], mode="rb")
        if not files:
            raise RaggedIOError(f"sketch: no file matches {', '.join(str(n) for n in names)}")
        meta = pd.DataFrame(
            {
                "name": pd.arrays.ArrowExtensionArray(pa.array([], type=pa.string())),
                "sketch": pd.arrays.ArrowExtensionArray(
                    pa.array([], type=pa.list_(pa.float32(), dim))
                ),
            }
        )
        return dd.from_map(
            functools.partial(
                _sketch_file,
                t=t,
                dim=dim,
                seed=seed,
                alphabet=alphabet,
                device=worker_device(device),
            ),
            files,
            meta=meta,
            label="ragged-sketch",
            enforce_metadata=False,
        )
    return _sketch_partitionwise(
        sequences, t=t, dim=dim, seed=seed, alphabet=alphabet, device=device
    )


_sketch_partitionwise = partitionwise(_sketch)


def _distance_block(queries: Any, references: Any, device: str | None) -> np.ndarray[Any, Any]:
    q = to_arrow(queries)
    r = to_arrow(references)
    rows = len(queries)
    cols = len(references)
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols), dtype=np.float32)
    out = pa.array(_pairwise_distances(q, r, device=device))
    flat = out.flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(rows, cols)


def pairwise_distances(
    queries: Any, references: Any | None = None, *, device: str | None = None
) -> Any:
    """Squared L2 distances between the sketches of two Dask Series (one query's row
    per record; every query against every query when ``references`` is None): a Dask
    array of float32 whose block ``(i, j)`` is :func:`ragged.pairwise_distances` of
    partition ``i`` of the queries and partition ``j`` of the references, computed on a
    worker. Its chunk sizes are unknown until computed (``compute_chunk_sizes()``), as
    the partitions' lengths are."""
    import dask.array as da
    from dask.highlevelgraph import HighLevelGraph
    from dask.tokenize import tokenize

    if not isinstance(queries, dd.Series):
        return _pairwise_distances(queries, references, device=device)
    refs = queries if references is None else references
    name = "ragged-pairwise-distances-" + tokenize(queries, refs, device)
    q_parts = queries.to_delayed()
    r_parts = refs.to_delayed()
    block = functools.partial(_distance_block, device=worker_device(device))
    graph: dict[Any, Any] = {
        (name, i, j): (block, q.key, r.key)
        for i, q in enumerate(q_parts)
        for j, r in enumerate(r_parts)
    }
    hlg = HighLevelGraph.from_collections(name, graph, dependencies=q_parts + r_parts)
    chunks = ((math.nan,) * len(q_parts), (math.nan,) * len(r_parts))
    return da.Array(hlg, name, chunks=chunks, dtype=np.float32)


# ---- reductions across partitions ---------------------------------------------------


def _reduction(
    series: Any, op: Any, combine: Any, empty: Any, what: str, device: str | None
) -> Any:
    name = worker_device(device)
    return reduce_partitions(
        series, lambda part: op(to_arrow(part), device=name), combine, empty, what
    )


def reduce_sum(series: Any, *, device: str | None = None) -> Any:
    """The sum of a Dask Series of numbers (nulls skipped) as a Dask scalar: each
    partition summed by :func:`ragged.reduce_sum` on its worker, the partial sums added
    by Dask's tree reduction (exactly, as Python numbers)."""
    return _reduction(series, _reduce_sum, sum, 0, "sum", device)


def reduce_min(series: Any, *, device: str | None = None) -> Any:
    """The least valid value of a Dask Series (None when none), as a Dask scalar."""
    return _reduction(series, _reduce_min, min, None, "min", device)


def reduce_max(series: Any, *, device: str | None = None) -> Any:
    """The greatest valid value of a Dask Series (None when none), as a Dask scalar."""
    return _reduction(series, _reduce_max, max, None, "max", device)


def reduce_count(series: Any, *, device: str | None = None) -> Any:
    """The number of valid values of a Dask Series, as a Dask scalar."""
    return _reduction(series, _reduce_count, sum, 0, "count", device)
