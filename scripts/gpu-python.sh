#!/usr/bin/env bash
# The Python package on a GPU machine without a Rust toolchain: installs a wheel built
# elsewhere (with kernels built in: RAGGED_CUDA_KERNELS=DIR maturin build --profile dist
# -m python/Cargo.toml) and the wheels of what it needs (Dask, …) into a scratch
# directory, then runs the pytest suite on the CPU and the GPU (RAGGED_TEST_CUDA=1, the
# Dask GPU-worker test included) and the Python benchmarks on both devices.
#
#   scripts/gpu-python.sh WHEELS [STEPS]   # STEPS: any of test bench dask (default all)
#
# WHEELS holds ragged-*.whl and any other wheels to install (no index is reached).
# $OUT, when set, receives the logs.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
wheels=$(cd "$1" && pwd)
steps=${2:-test bench dask}
out=${OUT:-/tmp/ragged-gpu-python}
mkdir -p "$out"
site=/tmp/ragged-site
rm -rf "$site"
python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" "$wheels"/*.whl \
  || exit 1
export PYTHONPATH=$site
python3 -c "import ragged, pyarrow, pandas; print(ragged.info()); print('pyarrow', pyarrow.__version__, 'pandas', pandas.__version__)"
for step in $steps; do
  case $step in
    test)
      (cd /tmp && RAGGED_TEST_CUDA=1 timeout "${TEST_LIMIT:-300}" python3 -m pytest -q \
        -p no:cacheprovider ${PYTEST_ARGS:-} "$repo/python/tests" 2>&1 | tee "$out/pytest.log" | tail -40) ;;
    bench)
      for device in cpu cuda; do
        (cd /tmp && timeout 150 python3 "$repo/python/benchmarks/bench.py" --rows 6000000 \
          --runs 5 --device $device 2>&1 | tee "$out/bench-$device.log" | tail -25)
      done ;;
    dask)
      (cd /tmp && timeout "${DASK_LIMIT:-240}" python3 "$repo/python/benchmarks/dask_bench.py" \
        --redact "${DASK_ROWS:-60000000}" --cpu-workers "$(nproc)" --runs 2 2>&1 \
        | grep -v "distributed\.\|^\s*$" | tee "$out/dask-redact.log" | tail -15) ;;
  esac
done
