#!/usr/bin/env bash
# Build and run one tuning experiment of experiments/ on a GPU machine
# with nvcc (no Rust needed):
#   scripts/gpu-experiment.sh scan_tuning [nvcc flags...] [-- program arguments...]
# The experiments include the library's kernel headers, so they time the code we ship.
set -euo pipefail
name="$1"; shift
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
[ $# -gt 0 ] && shift
root="$(cd "$(dirname "$0")/.." && pwd)"
cuda="${CUDA_HOME:-/usr/local/cuda}"
arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
out="${OUT:-/tmp}/$name"
nvcc -O3 -std=c++17 -arch="sm_${arch}" -I "$root/crates/ragged-cuda/kernels" \
    -I "$cuda/include/cccl" ${flags[@]+"${flags[@]}"} -o "$out" "$root/experiments/$name.cu"
"$out" "$@"
