"""The machinery under :mod:`ragged.dask`: ragged's functions applied partition by
partition to Dask collections, with their ``meta`` computed by running the same function
on empty inputs, and Arrow data handed between pandas and ragged without copies."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import dask.dataframe as dd
import pandas as pd
import pyarrow as pa

from .._device import current_device

P = ParamSpec("P")
R = TypeVar("R")

__all__ = [
    "partitionwise",
    "to_arrow",
    "to_pandas",
    "is_collection",
    "is_awkward",
    "worker_device",
    "reduce_partitions",
]


def is_awkward(obj: Any) -> bool:
    """Whether ``obj`` is a dask-awkward array (checked without importing it)."""
    return type(obj).__module__.startswith("dask_awkward")


def is_collection(obj: Any) -> bool:
    """Whether ``obj`` is a Dask DataFrame/Series or a dask-awkward array."""
    return isinstance(obj, (dd.Series, dd.DataFrame)) or is_awkward(obj)


def to_arrow(part: Any) -> Any:
    """A pandas Series (one partition) as Arrow data ragged reads: the Arrow arrays of an
    Arrow-backed Series (``pd.ArrowDtype``, ``string[pyarrow]``) themselves, shared; any
    other Series converted once by ``pyarrow.array`` (NumPy numbers without nulls shared
    too); anything else (a string standing for every row, an Awkward array) as it is."""
    if isinstance(part, pd.Series):
        array = part.array
        if hasattr(array, "__arrow_array__"):
            return array.__arrow_array__()
        if part.dtype == object:
            return pa.array(part, type=pa.string(), from_pandas=True)
        return pa.array(part, from_pandas=True)
    if type(part).__module__.startswith("awkward"):
        import awkward as ak

        return ak.to_arrow(part, extensionarray=False)
    return part


def to_pandas(result: Any, like: pd.Series | None, name: Any = None) -> pd.Series:
    """A ragged result (anything with ``__arrow_c_array__``) as a pandas Series of
    ``pd.ArrowDtype`` sharing its buffers, with the index of ``like`` (the partition it
    came from) when given."""
    array = pa.array(result)
    index = like.index if like is not None and len(like) == len(array) else None
    return pd.Series(pd.arrays.ArrowExtensionArray(array), index=index, name=name, copy=False)


def worker_device(device: str | None) -> str | None:
    """The device a partition runs on: ``device`` when given, else the client's
    :func:`ragged.device` block when one is active, else ``None`` — each worker's own
    default (``"auto"``: its CUDA device when it has one, else its CPUs)."""
    if device is not None:
        return device
    current = current_device()
    return None if current == "auto" else current


def _empty_like(collection: Any) -> Any:
    """An empty input of the collection's type: its meta (pandas) or a length-zero
    array of its form (Awkward)."""
    if is_awkward(collection):
        import awkward as ak

        return ak.Array(collection.form.length_zero_array())
    meta = collection._meta
    if isinstance(meta, pd.DataFrame):
        return meta.iloc[:0]
    return meta.iloc[:0]


def _arguments(args: tuple[Any, ...]) -> list[Any]:
    """Every Dask collection among ``args``, looking one level into lists and tuples
    (``ragged.strings.concatenate([a, " ", b])``)."""
    found = []
    for arg in args:
        if is_collection(arg):
            found.append(arg)
        elif isinstance(arg, (list, tuple)):
            found.extend(a for a in arg if is_collection(a))
    return found


def _flatten(args: tuple[Any, ...]) -> tuple[list[Any], Callable[[list[Any]], tuple[Any, ...]]]:
    """``args`` with the collections inside lists lifted to the top (``map_partitions``
    only aligns top-level collections), and the inverse that rebuilds them."""
    flat: list[Any] = []
    shape: list[int | None] = []
    for arg in args:
        if isinstance(arg, (list, tuple)) and any(is_collection(a) for a in arg):
            shape.append(len(arg))
            flat.extend(arg)
        else:
            shape.append(None)
            flat.append(arg)

    def rebuild(values: list[Any]) -> tuple[Any, ...]:
        out: list[Any] = []
        i = 0
        for n in shape:
            if n is None:
                out.append(values[i])
                i += 1
            else:
                out.append(list(values[i : i + n]))
                i += n
        return tuple(out)

    return flat, rebuild


def _apply(
    fn: Callable[..., Any],
    rebuild: Callable[[list[Any]], tuple[Any, ...]],
    kwargs: dict[str, Any],
    convert: Callable[[Any, Any], Any],
    *parts: Any,
) -> Any:
    """One partition: the pandas (or Awkward) pieces to Arrow, the ragged call, the
    result back to the partition's kind."""
    like = next((p for p in parts if isinstance(p, pd.Series)), None)
    if like is None:
        like = next((p for p in parts if type(p).__module__.startswith("awkward")), None)
    result = fn(*rebuild([to_arrow(p) for p in parts]), **kwargs)
    return convert(result, like)


def _pandas_result(result: Any, like: Any) -> Any:
    if isinstance(result, list):  # split / rsplit: one array per part
        frame = {i: to_pandas(r, like) for i, r in enumerate(result)}
        return pd.DataFrame(frame, index=like.index if like is not None else None)
    return to_pandas(result, like, name=getattr(like, "name", None))


def _awkward_result(result: Any, like: Any) -> Any:
    import awkward as ak

    return ak.from_arrow(pa.array(result), highlevel=True)


def partitionwise(
    fn: Callable[P, R],
    *,
    frame: Callable[[Any, tuple[Any, ...], dict[str, Any]], Any] | None = None,
) -> Callable[P, Any]:
    """``fn`` (a ragged function of arrays) applied to Dask collections partition by
    partition: every Dask Series (or dask-awkward array) argument is taken partition by
    partition — Series of one DataFrame, or of equal partitioning, line up — and the
    result is a Dask Series of ``pd.ArrowDtype`` (a DataFrame for ``split``), or a
    dask-awkward array for dask-awkward inputs. ``meta`` is ``fn`` of empty inputs on the
    CPU. ``frame(meta_result, args, kwargs)`` may replace the meta (``split``'s columns)
    and check the arguments first."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
        collections = _arguments(args)
        if not collections:
            return fn(*args, **kwargs)
        device = worker_device(kwargs.pop("device", None))  # type: ignore[arg-type]
        call_kwargs: dict[str, Any] = dict(kwargs)
        if device is not None:
            call_kwargs["device"] = device
        flat, rebuild = _flatten(args)
        empties = [_empty_like(a) if is_collection(a) else a for a in flat]
        meta_kwargs = dict(call_kwargs, device="cpu")
        if any(is_awkward(c) for c in collections):
            import awkward as ak
            import dask_awkward as dak

            empty = _apply(fn, rebuild, meta_kwargs, _awkward_result, *empties)
            meta = ak.Array(empty.layout.to_typetracer(forget_length=True))
            task = functools.partial(_apply, fn, rebuild, call_kwargs, _awkward_result)
            return dak.map_partitions(  # type: ignore[attr-defined]
                task, *flat, meta=meta, label=fn.__name__
            )
        meta = _apply(fn, rebuild, meta_kwargs, _pandas_result, *empties)
        if frame is not None:
            meta = frame(meta, args, call_kwargs)
        task = functools.partial(_apply, fn, rebuild, call_kwargs, _pandas_result)
        if frame is not None:
            task = functools.partial(_conform, task, meta)
        return dd.map_partitions(task, *flat, meta=meta, align_dataframes=False)

    wrapper.__doc__ = (
        f"{fn.__doc__ or ''}\n\n"
        f"Dask: ``ragged.{fn.__module__.removeprefix('ragged.')}.{fn.__name__}`` applied to "
        "each partition of the Dask Series (or dask-awkward array) arguments, on each "
        "worker's device unless ``device=`` is given; returns a Dask Series of "
        "``pd.ArrowDtype`` (a dask-awkward array for dask-awkward inputs)."
    )
    return wrapper


def _conform(task: Callable[..., Any], meta: pd.DataFrame, *parts: Any) -> Any:
    """A partition's frame with ``meta``'s columns: those it lacks added as nulls of
    their type (a partition whose rows have fewer parts than ``max_splits`` allows)."""
    out = task(*parts)
    for column in meta.columns:
        if column not in out.columns:
            dtype = meta[column].dtype
            empty = pa.nulls(len(out), type=dtype.pyarrow_dtype)
            out[column] = pd.Series(
                pd.arrays.ArrowExtensionArray(empty), index=out.index, copy=False
            )
    return out[list(meta.columns)]


def reduce_partitions(
    series: dd.Series,
    value_of: Callable[[pd.Series], Any],
    combine: Callable[[list[Any]], Any],
    empty: Any,
    name: str,
) -> Any:
    """A Dask scalar by Dask's tree reduction: ``value_of(partition)`` on the workers
    (``None``: the partition adds nothing), then ``combine`` of the values in partition
    order, ``empty`` when no partition gave one. Values travel wrapped in 1-tuples so
    that no value (a NaN, None) is mistaken for "nothing"."""

    def values(frame: Any) -> list[Any]:
        return [t[0] for t in frame.to_numpy().ravel().tolist() if t]

    def chunk(part: pd.Series) -> pd.Series:
        value = value_of(part)
        return pd.Series([() if value is None else (value,)], dtype=object, name=name)

    def merge(frame: Any) -> pd.Series:
        found = values(frame)
        return pd.Series([(combine(found),) if found else ()], dtype=object, name=name)

    def aggregate(frame: Any) -> Any:
        found = values(frame)
        return combine(found) if found else empty

    return series.reduction(chunk, aggregate=aggregate, combine=merge, meta=(name, object))
