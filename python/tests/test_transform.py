"""ragged.transform_strings: a user's CUDA C++ device function over strings arrays, on
the GPU (against Python's own string code), and its errors."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

import ragged
from ragged.errors import InvalidArgumentError, KernelCompileError, LengthMismatchError

SOURCE = r"""
__device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out) {
    if (!inputs[0].valid(row)) return false;
    const ragged::string_view s = inputs[0].get(row);
    for (long long i = 0; i < s.size; ++i) {
        const uint8_t b = s[i];
        out.byte(b >= 'a' && b <= 'z' ? b - 32 : b);
    }
    out.byte('@');
    if (inputs[1].valid(row)) out.str(inputs[1].get(row));
    return true;
}
"""

cuda = pytest.mark.skipif(os.environ.get("RAGGED_TEST_CUDA") != "1", reason="needs a CUDA GPU")


def expected(users: list, domains: list | str) -> list:
    out = []
    for i, user in enumerate(users):
        domain = domains if isinstance(domains, str) else domains[i]
        if user is None:
            out.append(None)
            continue
        upper = "".join(c.upper() if "a" <= c <= "z" else c for c in user)
        out.append(upper + "@" + (domain or ""))
    return out


def test_needs_a_cuda_device():
    with pytest.raises(InvalidArgumentError, match="CUDA device"):
        ragged.transform_strings(SOURCE, [pa.array(["a"]), "x"], device="cpu")


@cuda
def test_transform_on_the_gpu():
    users = ["ada", None, "émilie", "", "grace hopper"] * 400
    domains = ["a.org", "b.org", None, "c", "日本"] * 400
    got = ragged.transform_strings(SOURCE, [pa.array(users), pa.array(domains)], device="cuda")
    assert pa.array(got).to_pylist() == expected(users, domains)
    scalar = ragged.transform_strings(SOURCE, [pa.array(users), "x.org"], device="cuda")
    assert pa.array(scalar).to_pylist() == expected(users, "x.org")
    large = ragged.transform_strings(
        SOURCE, [pa.array(users, pa.large_string()), "x.org"], device="cuda"
    )
    assert pa.array(large).to_pylist() == expected(users, "x.org")


@cuda
def test_transform_errors_on_the_gpu():
    bad = "__device__ bool transform(uint64_t row, const ragged::StringInput* inputs, ragged::Writer& out) {\n    return undefined_name;\n}\n"  # noqa: E501
    with pytest.raises(KernelCompileError, match="undefined_name"):
        ragged.transform_strings(bad, ["x"], rows=3, device="cuda")
    with pytest.raises(LengthMismatchError):
        ragged.transform_strings(SOURCE, [pa.array(["a", "b"]), pa.array(["c"])], device="cuda")
    with pytest.raises(InvalidArgumentError, match="rows"):
        ragged.transform_strings(SOURCE, ["a", "b"], device="cuda")
