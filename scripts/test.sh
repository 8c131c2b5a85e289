#!/usr/bin/env bash
# The project's test command (README, "Testing"; .ci/run calls it): the Rust workspace's
# tests, then the Python package's — built into a wheel, installed into a virtual
# environment under target/, and tested with pytest against pyarrow, NumPy, Polars and
# pandas. Arguments go to `cargo test`.
#
#   scripts/test.sh                 # everything
#   RAGGED_TEST_PYTHON=0 scripts/test.sh   # the Rust tests only
#   scripts/test.sh --python-only   # the Python suite only
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--python-only" ]; then
  cargo test --workspace "$@"
fi
[ "${RAGGED_TEST_PYTHON:-1}" = "0" ] && exit 0

venv=target/python-test-venv
if [ ! -x "$venv/bin/python" ]; then
  # The standard library's venv, else virtualenv from PyPI (Debian's python3 may lack
  # ensurepip).
  python3 -m venv "$venv" 2>/dev/null || {
    rm -rf "$venv"
    python3 -m pip install --quiet --disable-pip-version-check --target target/virtualenv virtualenv
    PYTHONPATH=target/virtualenv python3 -m virtualenv --quiet "$venv"
  }
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "maturin>=1.16,<2" "pytest>=8" pyarrow numpy polars pandas awkward ruff mypy \
  "dask[dataframe]>=2026.8" "distributed>=2026.8" cachetools
# dask-awkward pins an older Dask than it runs with (its column optimization is then
# turned off): installed without its pins.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps dask-awkward
# The dev profile: the wheel reuses what `cargo test` compiled (dependencies optimized,
# ragged itself not); `pip install ./python` builds the optimized one.
rm -rf target/wheels
"$venv/bin/maturin" build --quiet --profile dev -m python/Cargo.toml -o target/wheels
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
  --no-deps target/wheels/ragged-*.whl
(cd python && "../$venv/bin/ruff" format --check . && "../$venv/bin/ruff" check . \
  && "../$venv/bin/mypy")
# From outside python/, so that `import ragged` is the installed wheel.
(cd target && "../$venv/bin/python" -m pytest -q ../python/tests)
