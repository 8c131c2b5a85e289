"""Tensor Sketch from Python: the same sketches from arrays and files, and distances
checked against NumPy."""

from __future__ import annotations

import gzip
import random

import numpy as np
import pyarrow as pa
import pytest

import ragged


def matrix(array) -> np.ndarray:
    a = pa.array(array)
    return np.asarray(a.flatten()).reshape(len(a), -1)


@pytest.fixture
def reads():
    rng = random.Random(5)
    return ["".join(rng.choice("ACGT") for _ in range(rng.randint(0, 200))) for _ in range(60)]


def test_sketch_array_and_file_agree(reads, tmp_path, device):
    sk = ragged.sketch(pa.array(reads), t=3, dim=32, seed=7, device=device)
    assert pa.array(sk).type == pa.list_(pa.field("item", pa.float32(), False), 32)
    fasta = tmp_path / "reads.fa.gz"
    with gzip.open(fasta, "wt") as f:
        for i, r in enumerate(reads):
            f.write(f">read{i}\n{r[:50]}\n{r[50:]}\n")
    names, from_file = ragged.sketch(fasta, t=3, dim=32, seed=7, device=device)
    assert pa.array(names).to_pylist() == [f"read{i}" for i in range(len(reads))]
    np.testing.assert_allclose(matrix(from_file), matrix(sk), rtol=1e-5, atol=1e-5)
    lower = ragged.sketch(
        pa.array([r.lower() + "NN" for r in reads]), t=3, dim=32, seed=7, device=device
    )
    np.testing.assert_allclose(matrix(lower), matrix(sk), rtol=1e-5, atol=1e-5)


def test_pairwise_distances_match_numpy(reads, device):
    q = ragged.sketch(pa.array(reads[:20]), dim=16, device=device)
    r = ragged.sketch(pa.array(reads[20:]), dim=16, device=device)
    qm, rm = matrix(q), matrix(r)
    want = ((qm[:, None, :] - rm[None, :, :]) ** 2).sum(axis=2)
    got = matrix(ragged.pairwise_distances(q, r, device=device))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    square = matrix(ragged.pairwise_distances(q, device=device))
    assert square.shape == (20, 20)
    np.testing.assert_allclose(np.diag(square), 0, atol=1e-3)


def test_sketch_errors(device):
    with pytest.raises(ragged.errors.InvalidArgumentError, match="sequence 1 is null"):
        ragged.sketch(pa.array(["ACGT", None]), device=device)
    with pytest.raises(ragged.errors.InvalidArgumentError):
        ragged.sketch(pa.array(["ACGT"]), alphabet="AA", device=device)
    a = ragged.sketch(pa.array(["ACGT"]), dim=8, device=device)
    b = ragged.sketch(pa.array(["ACGT"]), dim=16, device=device)
    with pytest.raises(ragged.RaggedError):
        ragged.pairwise_distances(a, b, device=device)
