"""The strings family on Dask: every :mod:`ragged.strings` function, same names and
arguments, taking Dask Series of strings (``string[pyarrow]`` / ``pd.ArrowDtype``; object
columns are converted per partition) and returning Dask Series of ``pd.ArrowDtype``.

>>> import dask.dataframe as dd, pandas as pd, pyarrow as pa, ragged.dask
>>> s = dd.from_pandas(pd.Series(pd.arrays.ArrowExtensionArray(pa.array(["a b", "c"]))),
...                    npartitions=2)
>>> ragged.dask.strings.upper(s).compute().tolist()
['A B', 'C']

``split``/``rsplit`` need ``max_splits``: a Dask DataFrame's columns must be known before
any partition is read, so the result has ``max_splits + 1`` columns (null where a row
has fewer parts). ``join`` joins across partitions (a Dask scalar); ``append`` is
``dask.dataframe.concat``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pyarrow as pa

from .. import strings as _strings
from ..errors import InvalidArgumentError
from ._core import partitionwise, reduce_partitions, to_arrow, worker_device

__all__ = list(_strings.__all__)

length = partitionwise(_strings.length)
length_bytes = partitionwise(_strings.length_bytes)
contains = partitionwise(_strings.contains)
starts_with = partitionwise(_strings.starts_with)
ends_with = partitionwise(_strings.ends_with)
find = partitionwise(_strings.find)
rfind = partitionwise(_strings.rfind)
count_matches = partitionwise(_strings.count_matches)
like = partitionwise(_strings.like)
slice = partitionwise(_strings.slice)  # noqa: A001
slice_bytes = partitionwise(_strings.slice_bytes)
upper = partitionwise(_strings.upper)
lower = partitionwise(_strings.lower)
strip = partitionwise(_strings.strip)
pad = partitionwise(_strings.pad)
repeat = partitionwise(_strings.repeat)
replace = partitionwise(_strings.replace)
split_record = partitionwise(_strings.split_record)
concatenate = partitionwise(_strings.concatenate)
copy_if_else = partitionwise(_strings.copy_if_else)


def _split_frame(meta: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> pd.DataFrame:
    """``split``'s meta: ``max_splits + 1`` string columns named 0, 1, …"""
    max_splits = kwargs.get("max_splits")
    if max_splits is None:
        raise InvalidArgumentError(
            "invalid argument max_splits: ragged.dask.strings.split needs it (a Dask "
            "DataFrame's columns must be known before its partitions are read)"
        )
    like = args[0]._meta
    return pd.DataFrame(
        {
            i: pd.Series(pd.arrays.ArrowExtensionArray(pa.array([], type=pa.string())))
            for i in range(max_splits + 1)
        },
        index=like.index[:0],
    )


split = partitionwise(_strings.split, frame=_split_frame)
rsplit = partitionwise(_strings.rsplit, frame=_split_frame)


def join(array: Any, separator: str = "", *, device: str | None = None) -> Any:
    """The valid rows of every partition, in order, joined by ``separator`` into one
    string: a Dask scalar (``.compute()`` gives a Python ``str``). Each partition is
    joined on its worker, then the partitions' strings in order; partitions without a
    valid row add nothing (not even a separator), as in :func:`ragged.strings.join`."""
    if not isinstance(array, dd.Series):
        return _strings.join(array, separator, device=device)
    name = worker_device(device)

    def joined(part: pd.Series) -> str | None:
        if not part.count():
            return None
        result: str = pa.array(_strings.join(to_arrow(part), separator, device=name))[0].as_py()
        return result

    return reduce_partitions(array, joined, separator.join, "", "join")


def append(columns: Sequence[Any], *, device: str | None = None) -> Any:
    """The Series' rows one after another: ``dask.dataframe.concat`` (no data moves
    until computed; ``device`` is accepted for the signature's sake)."""
    columns = list(columns)
    if columns and all(isinstance(c, dd.Series) for c in columns):
        return dd.concat(columns)
    return _strings.append(columns, device=device)
