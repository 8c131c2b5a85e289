"""Shared fixtures: adversarial strings and lists, and the devices to run on (the CPU
always; CUDA too when ``RAGGED_TEST_CUDA=1``, on the GPU machine)."""

from __future__ import annotations

import os
import random

import pyarrow as pa
import pytest

DEVICES = ["cpu"] + (["cuda"] if os.environ.get("RAGGED_TEST_CUDA") == "1" else [])

WORDS = [
    "",
    " ",
    "a",
    "Ada",
    "Lovelace",
    "Émilie",
    "ß",
    "ǅ",
    "ΐ",
    "ﬃ",
    "日本語",
    "🦀",
    "a b",
    "  x  ",
    "İ",
    "ᾳ",
]


def make_strings(n: int, seed: int) -> list:
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        if rng.random() < 0.1:
            rows.append(None)
        else:
            rows.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 4))))
    return rows


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=["string", "large_string", "string_view", "sliced", "chunked"])
def strings(request: pytest.FixtureRequest):
    """(pyarrow input, the Python rows it holds)."""
    rows = make_strings(3000, 7)
    kind = request.param
    if kind == "string":
        return pa.array(rows, pa.string()), rows
    if kind == "large_string":
        return pa.array(rows, pa.large_string()), rows
    if kind == "string_view":
        return pa.array(rows, pa.string_view()), rows
    if kind == "sliced":
        return pa.array(rows, pa.string()).slice(17, 2000), rows[17:2017]
    return pa.chunked_array([pa.array(rows[:1000]), pa.array(rows[1000:])]), rows
