"""The lists family on Dask: every :mod:`ragged.lists` function (less
``compact_offsets``, which works on offsets, not on a column), same names and
arguments, taking Dask Series of Arrow lists (``pd.ArrowDtype(pa.list_(…))``) or
dask-awkward arrays, partition by partition. A Dask Series gives a Dask Series of
``pd.ArrowDtype``; a dask-awkward array gives a dask-awkward array.

>>> import dask.dataframe as dd, pandas as pd, pyarrow as pa, ragged.dask
>>> s = dd.from_pandas(pd.Series(pd.arrays.ArrowExtensionArray(pa.array([[1, 2], [], None]))),
...                    npartitions=2)
>>> ragged.dask.lists.sum(s).compute().tolist()
[3, 0, <NA>]

A total over every list of every partition is Dask's own reduction of the per-list
result: ``ragged.dask.lists.sum(s).sum()``.
"""

from __future__ import annotations

from .. import lists as _lists
from ._core import partitionwise

__all__ = [name for name in _lists.__all__ if name != "compact_offsets"]

counts = partitionwise(_lists.counts)
flatten = partitionwise(_lists.flatten)
local_index = partitionwise(_lists.local_index)
get = partitionwise(_lists.get)
slice = partitionwise(_lists.slice)  # noqa: A001
sum = partitionwise(_lists.sum)  # noqa: A001
prod = partitionwise(_lists.prod)
min = partitionwise(_lists.min)  # noqa: A001
max = partitionwise(_lists.max)  # noqa: A001
argmin = partitionwise(_lists.argmin)
argmax = partitionwise(_lists.argmax)
count = partitionwise(_lists.count)
count_nonzero = partitionwise(_lists.count_nonzero)
any = partitionwise(_lists.any)  # noqa: A001
all = partitionwise(_lists.all)  # noqa: A001
mean = partitionwise(_lists.mean)
