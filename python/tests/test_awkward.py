"""Awkward Array as the oracle of the lists family, and its arrays handed over without
copying (``ak.to_arrow``: the offsets and the contents are Awkward's own buffers)."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

import ragged
from ragged import _ragged

ak = pytest.importorskip("awkward")


def jagged(seed: int, floats: bool) -> list:
    rng = random.Random(seed)
    out: list = []
    for _ in range(1500):
        if rng.random() < 0.08:
            out.append(None)
            continue
        n = rng.choice([0, 1, 2, 5, 33])
        value = (lambda: rng.uniform(-50, 50)) if floats else (lambda: rng.randint(-99, 99))
        out.append([None if rng.random() < 0.1 else value() for _ in range(n)])
    return out


@pytest.fixture(params=[("int", False), ("float", True), ("sliced", False)])
def jagged_array(request):
    kind, floats = request.param
    arr = ak.Array(jagged(11, floats))
    if kind == "sliced":
        arr = arr[7:1200]
    return arr


def rows(result) -> list:
    return pa.array(result).to_pylist()


def test_reductions_match_awkward(jagged_array, device):
    arrow = ak.to_arrow(jagged_array, extensionarray=False)

    def close(got, want):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert (g is None) == (w is None)
            if g is not None:
                assert g == pytest.approx(w, rel=1e-9, abs=1e-9)

    close(rows(ragged.lists.sum(arrow, device=device)), ak.sum(jagged_array, axis=1).tolist())
    close(rows(ragged.lists.min(arrow, device=device)), ak.min(jagged_array, axis=1).tolist())
    close(rows(ragged.lists.max(arrow, device=device)), ak.max(jagged_array, axis=1).tolist())
    close(
        rows(ragged.lists.mean(arrow, device=device)),
        ak.mean(jagged_array, axis=1, mask_identity=True).tolist(),
    )
    close(rows(ragged.lists.count(arrow, device=device)), ak.count(jagged_array, axis=1).tolist())
    assert rows(ragged.lists.counts(arrow, device=device)) == ak.num(jagged_array, axis=1).tolist()
    assert (
        rows(ragged.lists.flatten(arrow, device=device))
        == ak.flatten(jagged_array, axis=1).tolist()
    )
    assert (
        rows(ragged.lists.local_index(arrow, device=device))
        == ak.local_index(jagged_array, axis=1).tolist()
    )


def test_results_go_back_to_awkward():
    arr = ak.Array([[1, 2, 3], [], [4, 5]])
    sums = ak.from_arrow(pa.array(ragged.lists.sum(ak.to_arrow(arr, extensionarray=False))))
    assert sums.tolist() == [6, 0, 9]


def test_awkward_offsets_are_not_copied():
    arr = ak.Array([[1, 2, 3], [], [4, 5]])
    layout = ak.to_layout(arr)
    arrow = ak.to_arrow(arr, extensionarray=False)
    assert _ragged.input_buffer_addresses(arrow) == [layout.offsets.data.ctypes.data]
    assert arrow.values.buffers()[1].address == layout.content.data.ctypes.data


def test_list_array_starts_stops_to_offsets(device):
    # Awkward's ListArray (starts, stops) → ListOffsetArray, with ragged's compact_offsets.
    content = ak.contents.NumpyArray(np.arange(10, dtype=np.int64))
    starts = np.array([6, 0, 3, 3], dtype=np.int64)
    stops = np.array([9, 2, 3, 5], dtype=np.int64)
    listarray = ak.Array(
        ak.contents.ListArray(ak.index.Index64(starts), ak.index.Index64(stops), content)
    )
    offsets, total = ragged.lists.compact_offsets(starts, stops, 10, device=device)
    assert total == 3 + 2 + 0 + 2
    want = ak.to_layout(ak.to_packed(listarray)).offsets.data.tolist()
    assert rows(offsets) == want
