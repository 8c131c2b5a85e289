"""The lists family. Every function takes an Arrow list array (``list`` /
``large_list``; ``list_view`` arrays, as Awkward and newer pyarrow may give, are compacted
first, a copy) and returns a :class:`ragged.Array`. A null list gives a null result; the
reductions skip null elements.

>>> import pyarrow as pa, ragged
>>> ragged.lists.sum(pa.array([[1, 2], [], None])).to_pylist()
[3, 0, None]
"""

from __future__ import annotations

from typing import Any

from . import _ragged
from ._device import resolve
from ._ragged import Array

__all__ = [
    "all",
    "any",
    "argmax",
    "argmin",
    "compact_offsets",
    "count",
    "count_nonzero",
    "counts",
    "flatten",
    "get",
    "local_index",
    "max",
    "mean",
    "min",
    "prod",
    "slice",
    "sum",
]

ArrayLike = Any


def counts(array: ArrayLike, *, device: str | None = None) -> Array:
    """Elements per list, as the offsets' type (``pyarrow.compute.list_value_length``;
    a null list's count is null)."""
    return _ragged.lists_op(array, "counts", resolve(device))


def flatten(array: ArrayLike, *, device: str | None = None) -> Array:
    """The elements of the valid lists, in order (``pyarrow.compute.list_flatten``)."""
    return _ragged.lists_op(array, "flatten", resolve(device))


def local_index(array: ArrayLike, *, device: str | None = None) -> Array:
    """Each element's position in its list, as lists of the same shape (Awkward's
    ``ak.local_index``)."""
    return _ragged.lists_op(array, "local_index", resolve(device))


def get(array: ArrayLike, index: int, *, strict: bool = False, device: str | None = None) -> Array:
    """Element ``index`` of every list (negative counts from the end). A list too short
    gives null, or with ``strict=True`` an :class:`~ragged.errors.IndexOutOfRangeError`
    naming the first such list (``pyarrow.compute.list_element`` always raises and takes
    no negative index)."""
    return _ragged.lists_get(array, index, strict, resolve(device))


def slice(
    array: ArrayLike,
    start: int | None = None,
    stop: int | None = None,
    *,
    device: str | None = None,
) -> Array:
    """``list[start:stop]`` of every list with Python's rules (negative bounds count from
    the end), as compact lists (``pyarrow.compute.list_slice`` takes no negative
    bounds)."""
    return _ragged.lists_slice(array, start, stop, resolve(device))


def sum(array: ArrayLike, *, device: str | None = None) -> Array:  # noqa: A001
    """Sum of each list's valid elements (0 for none) in the sum type: int64 for signed
    integers, uint64 for unsigned, float64 for floats; an integer overflow is an
    error."""
    return _ragged.lists_op(array, "sum", resolve(device))


def prod(array: ArrayLike, *, device: str | None = None) -> Array:
    """Product of each list's valid elements (1 for none), in the sum type."""
    return _ragged.lists_op(array, "prod", resolve(device))


def min(array: ArrayLike, *, device: str | None = None) -> Array:  # noqa: A001
    """Least valid element of each list (null when none; NaN ignored unless every
    element is NaN)."""
    return _ragged.lists_op(array, "min", resolve(device))


def max(array: ArrayLike, *, device: str | None = None) -> Array:  # noqa: A001
    """Greatest valid element of each list (null when none; NaN as in :func:`min`)."""
    return _ragged.lists_op(array, "max", resolve(device))


def argmin(array: ArrayLike, *, device: str | None = None) -> Array:
    """Position in its list of each list's first least valid element (null when none)."""
    return _ragged.lists_op(array, "argmin", resolve(device))


def argmax(array: ArrayLike, *, device: str | None = None) -> Array:
    """Position in its list of each list's first greatest valid element (null when
    none)."""
    return _ragged.lists_op(array, "argmax", resolve(device))


def count(array: ArrayLike, *, device: str | None = None) -> Array:
    """Number of valid elements of each list (int64; any element type)."""
    return _ragged.lists_op(array, "count", resolve(device))


def count_nonzero(array: ArrayLike, *, device: str | None = None) -> Array:
    """Number of valid non-zero elements of each list (int64)."""
    return _ragged.lists_op(array, "count_nonzero", resolve(device))


def any(array: ArrayLike, *, device: str | None = None) -> Array:  # noqa: A001
    """Whether any valid element of each list of booleans is true (false for a list
    without one; a null list is null)."""
    return _ragged.lists_op(array, "any", resolve(device))


def all(array: ArrayLike, *, device: str | None = None) -> Array:  # noqa: A001
    """Whether every valid element of each list of booleans is true (true for a list
    without one; a null list is null)."""
    return _ragged.lists_op(array, "all", resolve(device))


def mean(array: ArrayLike, *, device: str | None = None) -> Array:
    """Mean of each list's valid elements as float64 (null when none)."""
    return _ragged.lists_op(array, "mean", resolve(device))


def compact_offsets(
    starts: ArrayLike, stops: ArrayLike, child_length: int, *, device: str | None = None
) -> tuple[Array, int]:
    """The offsets of the compact lists ``child[starts[i]:stops[i]]`` — Awkward's
    ``ListArray`` to ``ListOffsetArray`` — and their total length. ``starts`` and
    ``stops`` are int32 or int64 arrays of one type without nulls (NumPy arrays are read
    in place); every list must satisfy ``0 <= start <= stop <= child_length``, or an
    :class:`~ragged.errors.InvalidOffsetsError` names the first list that does not.
    The offsets are int32 unless the total needs int64."""
    return _ragged.lists_compact_offsets(starts, stops, child_length, resolve(device))
