"""The strings family against Python's own ``str`` methods and ``pyarrow.compute``
(outside oracles: neither shares code with ragged)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import ragged


def rows(result) -> list:
    return pa.array(result).to_pylist()


def test_length_counts_characters_and_bytes(strings, device):
    array, expected = strings
    assert rows(ragged.strings.length(array, device=device)) == [
        None if s is None else len(s) for s in expected
    ]
    assert rows(ragged.strings.length_bytes(array, device=device)) == [
        None if s is None else len(s.encode()) for s in expected
    ]


@pytest.mark.parametrize("pattern", ["a", "", " ", "Émilie", "日本", "zz"])
def test_searches_match_python(strings, device, pattern):
    array, expected = strings
    cases = {
        "contains": lambda s: pattern in s,
        "starts_with": lambda s: s.startswith(pattern),
        "ends_with": lambda s: s.endswith(pattern),
        "find": lambda s: s.find(pattern),
        "rfind": lambda s: s.rfind(pattern),
        "count_matches": lambda s: s.count(pattern) if pattern else len(s) + 1,
    }
    for name, oracle in cases.items():
        got = rows(getattr(ragged.strings, name)(array, pattern, device=device))
        want = [None if s is None else oracle(s) for s in expected]
        assert got == want, name


def test_pattern_per_row(device):
    names = pa.array(["banana", "cherry", None, "apple"])
    patterns = pa.array(["an", "x", "a", None])
    assert rows(ragged.strings.contains(names, patterns, device=device)) == [
        True,
        False,
        None,
        None,
    ]
    assert rows(ragged.strings.find(names, patterns, device=device)) == [1, -1, None, None]


def test_case_mapping_matches_pyarrow_except_sharp_s(strings, device):
    array, expected = strings
    upper = rows(ragged.strings.upper(array, device=device))
    oracle = pc.utf8_upper(pa.array(expected)).to_pylist()
    oracle = [None if s is None else s.replace("ẞ", "ß") for s in oracle]
    assert upper == oracle
    lower = rows(ragged.strings.lower(array, device=device))
    assert lower == pc.utf8_lower(pa.array(expected)).to_pylist()


def test_like_matches_pyarrow(strings, device):
    array, expected = strings
    for pattern in ["%a%", "A__", "%", "_", "%Émilie", ""]:
        got = rows(ragged.strings.like(array, pattern, device=device))
        assert got == pc.match_like(pa.array(expected), pattern).to_pylist(), pattern


@pytest.mark.parametrize(
    "start,stop", [(0, 3), (1, -1), (None, 2), (-2, None), (5, 1), (None, None)]
)
def test_slice_is_python_slicing(strings, device, start, stop):
    array, expected = strings
    got = rows(ragged.strings.slice(array, start, stop, device=device))
    assert got == [None if s is None else s[start:stop] for s in expected]


def test_strip_pad_repeat_replace(strings, device):
    array, expected = strings
    ok = lambda f: [None if s is None else f(s) for s in expected]  # noqa: E731
    assert rows(ragged.strings.strip(array, device=device)) == ok(lambda s: s.strip(" \t\n\r\v\f"))
    assert rows(ragged.strings.strip(array, "a ", side="left", device=device)) == ok(
        lambda s: s.lstrip("a ")
    )
    assert rows(ragged.strings.pad(array, 9, fill="·", device=device)) == ok(
        lambda s: s.ljust(9, "·")
    )
    assert rows(ragged.strings.pad(array, 9, side="left", device=device)) == ok(
        lambda s: s.rjust(9)
    )
    assert rows(ragged.strings.repeat(array, 3, device=device)) == ok(lambda s: s * 3)
    assert rows(ragged.strings.replace(array, "a", "ÄÄ", device=device)) == ok(
        lambda s: s.replace("a", "ÄÄ")
    )
    assert rows(ragged.strings.replace(array, " ", "", max_replacements=1, device=device)) == ok(
        lambda s: s.replace(" ", "", 1)
    )


def _split(s: str, sep, max_splits: int = -1) -> list:
    """Python's ``str.split`` (the data's only whitespace is ASCII, so ``None`` splits as
    ragged's ASCII-whitespace rule)."""
    return s.split(sep, max_splits)


@pytest.mark.parametrize("sep", [" ", "a", None])
def test_split_matches_python(strings, device, sep):
    array, expected = strings
    got = rows(ragged.strings.split_record(array, sep, device=device))
    assert got == [None if s is None else _split(s, sep) for s in expected]
    columns = ragged.strings.split(array, sep, max_splits=2, device=device)
    parts = [None if s is None else _split(s, sep, 2) for s in expected]
    width = max((len(p) for p in parts if p is not None), default=0)
    assert len(columns) == width
    for k, column in enumerate(columns):
        assert rows(column) == [None if p is None or k >= len(p) else p[k] for p in parts]


def test_concatenate_join_append_copy_if_else(device):
    a = pa.array(["x", None, "z", "w"])
    b = pa.array(["1", "2", None, "4"])
    assert (
        rows(ragged.strings.concatenate([a, b], "-", device=device))
        == pc.binary_join_element_wise(a, b, "-").to_pylist()
    )
    assert rows(
        ragged.strings.concatenate([a, "k", b], "", null_handling="skip", device=device)
    ) == [
        "xk1",
        "k2",
        "zk",
        "wk4",
    ]
    assert rows(
        ragged.strings.concatenate(
            [a, b], "+", null_handling="replace", null_replacement="?", device=device
        )
    ) == ["x+1", "?+2", "z+?", "w+4"]
    assert rows(ragged.strings.join(a, ";", device=device)) == ["x;z;w"]
    assert rows(ragged.strings.append([a, b], device=device)) == a.to_pylist() + b.to_pylist()
    mask = pa.array([True, False, None, True])
    assert rows(ragged.strings.copy_if_else(mask, a, "no", device=device)) == ["x", "no", "no", "w"]


def redact_oracle(name, visibility):
    """The redaction as cuDF's and Polars' expressions compute it."""
    if visibility is None or "public" not in visibility:
        return "X X"
    if name is None:
        return None
    parts = name.split(" ")
    if len(parts) < 2:
        return None
    return f"{parts[1][:1]} {parts[0]}"


def test_redact(strings, device):
    array, expected = strings
    visibility = [
        "public" if i % 3 else ("private" if i % 2 else None) for i in range(len(expected))
    ]
    got = rows(ragged.redact(array, pa.array(visibility), device=device))
    assert got == [redact_oracle(n, v) for n, v in zip(expected, visibility, strict=True)]
    assert rows(ragged.redact(array, "x-public-y", device=device)) == [
        redact_oracle(n, "public") for n in expected
    ]
