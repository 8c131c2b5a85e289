"""The lists family and the reductions against plain Python and ``pyarrow.compute``."""

from __future__ import annotations

import math
import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import ragged


def rows(result) -> list:
    return pa.array(result).to_pylist()


def make_lists(n: int, seed: int, value_type) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < 0.1:
            out.append(None)
            continue
        length = rng.choice([0, 1, 2, 3, 7, 40])
        if pa.types.is_floating(value_type):
            out.append(
                [None if rng.random() < 0.1 else rng.uniform(-1e3, 1e3) for _ in range(length)]
            )
        else:
            out.append(
                [None if rng.random() < 0.1 else rng.randint(-100, 100) for _ in range(length)]
            )
    return out


@pytest.fixture(
    params=[
        ("list", pa.int32()),
        ("large_list", pa.int64()),
        ("list", pa.float64()),
        ("sliced", pa.int16()),
    ]
)
def lists(request):
    kind, value_type = request.param
    data = make_lists(2000, 3, value_type)
    if kind == "large_list":
        return pa.array(data, pa.large_list(value_type)), data
    array = pa.array(data, pa.list_(value_type))
    if kind == "sliced":
        return array.slice(5, 1500), data[5:1505]
    return array, data


def valid(xs):
    return [x for x in xs if x is not None]


def test_counts_flatten_local_index(lists, device):
    array, data = lists
    assert rows(ragged.lists.counts(array, device=device)) == [
        None if lst is None else len(lst) for lst in data
    ]
    assert rows(ragged.lists.flatten(array, device=device)) == [
        x for lst in data if lst is not None for x in lst
    ]
    assert rows(ragged.lists.local_index(array, device=device)) == [
        None if lst is None else list(range(len(lst))) for lst in data
    ]


def test_reductions(lists, device):
    array, data = lists

    def each(f):
        return [None if lst is None else f(valid(lst)) for lst in data]

    assert rows(ragged.lists.count(array, device=device)) == each(len)
    got = rows(ragged.lists.sum(array, device=device))
    want = each(lambda v: sum(v) if v else 0)
    assert [g is None for g in got] == [w is None for w in want]
    assert all(g == pytest.approx(w) for g, w in zip(got, want, strict=True))
    assert rows(ragged.lists.min(array, device=device)) == each(lambda v: min(v) if v else None)
    assert rows(ragged.lists.max(array, device=device)) == each(lambda v: max(v) if v else None)
    assert rows(ragged.lists.count_nonzero(array, device=device)) == each(
        lambda v: sum(1 for x in v if x != 0)
    )
    argmin = rows(ragged.lists.argmin(array, device=device))
    for lst, a in zip(data, argmin, strict=True):
        v = valid(lst) if lst is not None else []
        assert (a is None) == (not v)
        if v:
            assert lst[a] == min(v) and all(x is None or x > lst[a] for x in lst[:a])
    means = rows(ragged.lists.mean(array, device=device))
    for m, w in zip(means, each(lambda v: sum(v) / len(v) if v else None), strict=False):
        assert (m is None and w is None) or math.isclose(m, w, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("index", [0, 1, -1, -3, 100])
def test_get(lists, device, index):
    array, data = lists

    def pick(lst):
        if lst is None:
            return None
        try:
            return lst[index]
        except IndexError:
            return None

    assert rows(ragged.lists.get(array, index, device=device)) == [pick(lst) for lst in data]


def test_get_strict_names_the_first_short_list(device):
    array = pa.array([[1, 2], [3], [4, 5, 6]])
    with pytest.raises(ragged.errors.IndexOutOfRangeError) as info:
        ragged.lists.get(array, 1, strict=True, device=device)
    assert isinstance(info.value, IndexError)
    assert "1" in str(info.value)


@pytest.mark.parametrize("start,stop", [(1, None), (None, -1), (-2, None), (3, 1), (0, 100)])
def test_slice_is_python_slicing(lists, device, start, stop):
    array, data = lists
    assert rows(ragged.lists.slice(array, start, stop, device=device)) == [
        None if lst is None else lst[start:stop] for lst in data
    ]


def test_list_view_and_any_all(device):
    view = pa.ListViewArray.from_arrays([0, 2, 2], [2, 0, 1], pa.array([1, 0, 5]))
    assert rows(ragged.lists.sum(view, device=device)) == [1, 0, 5]
    flags = pa.array([[True, False], [], None, [True, None]])
    assert rows(ragged.lists.any(flags, device=device)) == [True, False, None, True]
    assert rows(ragged.lists.all(flags, device=device)) == [False, True, None, True]


def test_compact_offsets_from_numpy(device):
    starts = np.array([4, 0, 2, 2], dtype=np.int64)
    stops = np.array([6, 1, 2, 5], dtype=np.int64)
    offsets, total = ragged.lists.compact_offsets(starts, stops, 6, device=device)
    assert rows(offsets) == [0, 2, 3, 3, 6] and total == 6
    with pytest.raises(ragged.errors.InvalidOffsetsError) as info:
        ragged.lists.compact_offsets(
            np.array([0, 3], np.int32), np.array([2, 1], np.int32), 5, device=device
        )
    assert isinstance(info.value, ValueError)
    assert "index 1" in str(info.value) and "start 3" in str(info.value)
    with pytest.raises(ragged.errors.InvalidOffsetsError):
        ragged.lists.compact_offsets(
            np.array([0], np.int32), np.array([9], np.int32), 5, device=device
        )


def test_primitive_reductions_and_scans(device):
    values = pa.array([3, None, -7, 10, 10, None, -7], pa.int32())
    assert ragged.reduce_sum(values, device=device) == 9
    assert ragged.reduce_min(values, device=device) == -7
    assert ragged.reduce_max(values, device=device) == 10
    assert ragged.reduce_argmin(values, device=device) == 2
    assert ragged.reduce_argmax(values, device=device) == 3
    assert ragged.reduce_count(values, device=device) == 5
    assert ragged.reduce_min(pa.array([None], pa.float64()), device=device) is None
    assert (
        rows(ragged.scan_sum(values, device=device))
        == pc.cumulative_sum(values, skip_nulls=True).to_pylist()
    )
    assert rows(ragged.scan_max(values, device=device)) == [3, None, 3, 10, 10, None, 10]
    assert rows(ragged.scan_sum(np.array([1, 2, 3]), exclusive=True, device=device)) == [0, 1, 3]
    with pytest.raises(ragged.errors.RaggedOverflowError):
        ragged.reduce_sum(np.array([2**62, 2**62, 2**62], dtype=np.int64), device=device)


def test_select_and_segmented(device):
    values = pa.array([5, None, -1, 7, 2, 2, None, 9], pa.int64())
    mask = pa.array([True, True, False, None, True, True, True, False])
    assert rows(ragged.select(values, mask, device=device)) == [5, 2, 2]
    offsets = np.array([0, 3, 3, 6, 8], dtype=np.int32)
    segments = [values.to_pylist()[a:b] for a, b in zip(offsets, offsets[1:], strict=False)]
    ok = [[x for x in seg if x is not None] for seg in segments]
    assert rows(ragged.segmented_sum(values, offsets, device=device)) == [sum(v) for v in ok]
    assert rows(ragged.segmented_min(values, offsets, device=device)) == [
        min(v) if v else None for v in ok
    ]
    assert rows(ragged.segmented_max(values, offsets, device=device)) == [
        max(v) if v else None for v in ok
    ]
    assert rows(ragged.segmented_count(values, offsets, device=device)) == [len(v) for v in ok]
    assert rows(ragged.segmented_argmax(values, offsets, device=device)) == [0, None, 0, 1]
    with pytest.raises(ragged.errors.InvalidOffsetsError):
        ragged.segmented_sum(values, np.array([0, 5, 3], dtype=np.int64), device=device)
