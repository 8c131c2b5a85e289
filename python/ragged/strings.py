"""The strings family. Every function takes an Arrow strings array (``string`` /
``large_string``; ``string_view`` and dictionaries are cast to ``string`` first, a copy)
and returns a :class:`ragged.Array`. Null rows stay null unless said otherwise. Names
follow ``pyarrow.compute`` where it has the op; differences are noted.

>>> import pyarrow as pa, ragged
>>> ragged.strings.find(pa.array(["banana", "cherry"]), "an").to_pylist()
[1, -1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import _ragged
from ._device import resolve
from ._ragged import Array

__all__ = [
    "append",
    "concatenate",
    "contains",
    "copy_if_else",
    "count_matches",
    "ends_with",
    "find",
    "join",
    "length",
    "length_bytes",
    "like",
    "lower",
    "pad",
    "repeat",
    "replace",
    "rfind",
    "rsplit",
    "slice",
    "slice_bytes",
    "split",
    "split_record",
    "starts_with",
    "strip",
    "upper",
]

ArrayLike = Any
Pattern = Any
"""A string for every row, or an Arrow array of one per row."""


def length(array: ArrayLike, *, device: str | None = None) -> Array:
    """Characters (code points) per row, as int32 for ``string`` and int64 for
    ``large_string`` (``pyarrow.compute.utf8_length``)."""
    return _ragged.strings_length(array, False, resolve(device))


def length_bytes(array: ArrayLike, *, device: str | None = None) -> Array:
    """Bytes per row (``pyarrow.compute.binary_length``)."""
    return _ragged.strings_length(array, True, resolve(device))


def contains(array: ArrayLike, pattern: Pattern, *, device: str | None = None) -> Array:
    """Whether each row contains ``pattern``, a literal (no regex) — one string for
    every row, or an array of one per row (``pyarrow.compute.match_substring``, which
    takes only one pattern). An empty pattern matches every valid row."""
    return _ragged.strings_search(array, "contains", pattern, resolve(device))


def starts_with(array: ArrayLike, pattern: Pattern, *, device: str | None = None) -> Array:
    """Whether each row starts with ``pattern`` (``pyarrow.compute.starts_with``)."""
    return _ragged.strings_search(array, "starts_with", pattern, resolve(device))


def ends_with(array: ArrayLike, pattern: Pattern, *, device: str | None = None) -> Array:
    """Whether each row ends with ``pattern`` (``pyarrow.compute.ends_with``)."""
    return _ragged.strings_search(array, "ends_with", pattern, resolve(device))


def find(array: ArrayLike, pattern: Pattern, *, device: str | None = None) -> Array:
    """The character position of the first occurrence of ``pattern`` in each row, -1
    when absent. ``pyarrow.compute.find_substring`` counts bytes; this counts
    characters (as Python's ``str.find``)."""
    return _ragged.strings_search(array, "find", pattern, resolve(device))


def rfind(array: ArrayLike, pattern: Pattern, *, device: str | None = None) -> Array:
    """The character position of the last occurrence of ``pattern``, -1 when absent
    (Python's ``str.rfind``)."""
    return _ragged.strings_search(array, "rfind", pattern, resolve(device))


def count_matches(array: ArrayLike, pattern: Pattern, *, device: str | None = None) -> Array:
    """Non-overlapping occurrences of ``pattern`` per row
    (``pyarrow.compute.count_substring``; Python's ``str.count``)."""
    return _ragged.strings_search(array, "count_matches", pattern, resolve(device))


def like(
    array: ArrayLike, pattern: str, *, escape: str | None = None, device: str | None = None
) -> Array:
    """SQL ``LIKE`` over whole rows: ``%`` matches any run, ``_`` one character, and
    ``escape`` before either (or itself) takes it literally (``pyarrow.compute.match_like``,
    whose escape is always a backslash)."""
    return _ragged.strings_like(array, pattern, escape, resolve(device))


def slice(
    array: ArrayLike,
    start: int | None = None,
    stop: int | None = None,
    *,
    device: str | None = None,
) -> Array:
    """``row[start:stop]`` by characters with Python's rules (negative bounds count from
    the end; ``None`` is the start or the end) (``pyarrow.compute.utf8_slice_codeunits``)."""
    return _ragged.strings_slice(array, start, stop, False, resolve(device))


def slice_bytes(
    array: ArrayLike,
    start: int | None = None,
    stop: int | None = None,
    *,
    device: str | None = None,
) -> Array:
    """``row[start:stop]`` by bytes (``pyarrow.compute.binary_slice``); a bound that cuts
    a character is an error, as the result must stay UTF-8."""
    return _ragged.strings_slice(array, start, stop, True, resolve(device))


def upper(array: ArrayLike, *, device: str | None = None) -> Array:
    """Every character mapped by Unicode's simple uppercase mapping (one character to
    one): ``pyarrow.compute.utf8_upper`` differs only in "ß" (it gives "ẞ"); Python's
    ``str.upper`` and Polars use the full mapping ("ß" → "SS")."""
    return _ragged.strings_case(array, True, resolve(device))


def lower(array: ArrayLike, *, device: str | None = None) -> Array:
    """Every character mapped by Unicode's simple lowercase mapping
    (``pyarrow.compute.utf8_lower``)."""
    return _ragged.strings_case(array, False, resolve(device))


def strip(
    array: ArrayLike,
    chars: str | None = None,
    *,
    side: str = "both",
    device: str | None = None,
) -> Array:
    """Each row without its leading (``side="left"``), trailing (``"right"``) or both
    runs of characters from ``chars`` (``None``: ASCII whitespace), as Python's
    ``strip`` (``pyarrow.compute.utf8_trim`` / ``utf8_trim_whitespace``, whose whitespace
    is Unicode's)."""
    return _ragged.strings_strip(array, side, chars, resolve(device))


def pad(
    array: ArrayLike,
    width: int,
    *,
    side: str = "right",
    fill: str = " ",
    device: str | None = None,
) -> Array:
    """Each row padded with ``fill`` (one character) to ``width`` characters: on the
    right (``side="right"``, left-aligned text), the left, or both (the extra character
    on the right). Longer rows are unchanged (``pyarrow.compute.utf8_rpad``,
    ``utf8_lpad``, ``utf8_center``)."""
    if len(fill) != 1:
        from .errors import InvalidArgumentError

        raise InvalidArgumentError(f"invalid argument fill: {fill!r} is not one character")
    return _ragged.strings_pad(array, width, side, fill, resolve(device))


def repeat(array: ArrayLike, times: int, *, device: str | None = None) -> Array:
    """Each row repeated ``times`` times (``pyarrow.compute.binary_repeat``)."""
    return _ragged.strings_repeat(array, times, resolve(device))


def replace(
    array: ArrayLike,
    pattern: str,
    replacement: str,
    *,
    max_replacements: int | None = None,
    device: str | None = None,
) -> Array:
    """Each row with the non-overlapping occurrences of the literal ``pattern`` (from
    the left) replaced by ``replacement``, at most ``max_replacements`` per row
    (``pyarrow.compute.replace_substring``). An empty pattern is an error."""
    return _ragged.strings_replace(array, pattern, replacement, max_replacements, resolve(device))


def split(
    array: ArrayLike,
    separator: str | None = None,
    *,
    max_splits: int | None = None,
    device: str | None = None,
) -> list[Array]:
    """The parts of each row cut at ``separator`` (``None``: runs of ASCII whitespace,
    as Python's ``str.split()``), as columns: part ``k`` of every row in the ``k``-th
    array, null where a row has fewer parts (cuDF's ``str.split(expand=True)``)."""
    return _ragged.strings_split(array, separator, max_splits, False, resolve(device))


def rsplit(
    array: ArrayLike,
    separator: str | None = None,
    *,
    max_splits: int | None = None,
    device: str | None = None,
) -> list[Array]:
    """As :func:`split`, the ``max_splits`` cuts counted from the right (Python's
    ``str.rsplit``)."""
    return _ragged.strings_split(array, separator, max_splits, True, resolve(device))


def split_record(
    array: ArrayLike,
    separator: str | None = None,
    *,
    max_splits: int | None = None,
    reverse: bool = False,
    device: str | None = None,
) -> Array:
    """The parts of each row as one list per row (``pyarrow.compute.split_pattern`` /
    ``utf8_split_whitespace``; ``reverse`` counts ``max_splits`` from the right)."""
    return _ragged.strings_split_record(array, separator, max_splits, reverse, resolve(device))


def join(array: ArrayLike, separator: str = "", *, device: str | None = None) -> Array:
    """The valid rows, in order, joined by ``separator`` into a one-row array (nulls
    left out; libcudf's ``join_strings``)."""
    return _ragged.strings_join(array, separator, resolve(device))


def concatenate(
    columns: Sequence[Pattern],
    separator: str = "",
    *,
    null_handling: str = "emit_null",
    null_replacement: str = "",
    device: str | None = None,
) -> Array:
    """Row ``i`` of every argument joined by ``separator`` (arrays, or strings standing
    for every row; at least one array), with ``pyarrow.compute.binary_join_element_wise``'s
    null handling: a null input makes the row null (``"emit_null"``), is left out with
    its separator (``"skip"``, Polars' ``ignore_nulls``), or is replaced by
    ``null_replacement`` (``"replace"``)."""
    modes = {"emit_null": "null", "skip": "skip", "replace": "replace"}
    if null_handling not in modes:
        from .errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"invalid argument null_handling: {null_handling!r} "
            "is not one of emit_null, skip, replace"
        )
    return _ragged.strings_concatenate(
        list(columns), separator, modes[null_handling], null_replacement, resolve(device)
    )


def append(columns: Sequence[ArrayLike], *, device: str | None = None) -> Array:
    """The arrays' rows one after another (``pyarrow.concat_arrays``)."""
    return _ragged.strings_append(list(columns), resolve(device))


def copy_if_else(
    mask: ArrayLike, then: Pattern, otherwise: Pattern, *, device: str | None = None
) -> Array:
    """Row ``i`` of ``then`` where ``mask[i]`` is true, else of ``otherwise`` — a null
    mask row takes ``otherwise``, as libcudf's ``copy_if_else`` (``pyarrow.compute.if_else``
    gives null there); ``then`` and ``otherwise`` are arrays or one string for every
    row."""
    return _ragged.strings_copy_if_else(mask, then, otherwise, resolve(device))
