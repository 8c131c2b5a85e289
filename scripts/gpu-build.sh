#!/usr/bin/env bash
# Build ragged's GPU test and bench binaries on this x86-64 machine (Rust toolchain
# needed) for a machine that has an NVIDIA GPU and the CUDA toolkit but no Rust.
#
#   scripts/gpu-build.sh [DIR]      # default DIR: dist/gpu
#
# DIR then holds stripped binaries and scripts/gpu-run.sh; copy DIR to the GPU machine
# and run `DIR/gpu-run.sh all` there (see that script).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-dist/gpu}
rm -rf "$dir" && mkdir -p "$dir/tests"
# Every test binary of the CUDA backend crate (conformance, text_conformance,
# lists_conformance, strings_conformance, sequences_conformance, transform, runtime,
# compile check), and the facade's GPU reader tests (lines_devices: chunks under a
# memory limit, byte ranges across GPUs).
{ cargo test --profile dist -p ragged-cuda --no-run --message-format=json 2>/dev/null
  cargo test --profile dist -p ragged --test lines_devices --no-run --message-format=json 2>/dev/null; } \
  | python3 -c '
import json, sys, shutil, os
dest = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    exe = msg.get("executable")
    if msg.get("reason") == "compiler-artifact" and exe and msg.get("profile", {}).get("test"):
        name = msg["target"]["name"]
        if msg["target"]["kind"] == ["lib"]:
            name = "unit"
        shutil.copy(exe, os.path.join(dest, name))
        print("test binary:", name)
' "$dir/tests"
# The CLI with every kernel module built in (ragged_cuda::built_in) for the
# architectures in $RAGGED_AOT_ARCHS (two digits each; default 90, the H100/H200 machines'):
# compiled here by NVRTC (needs $CUDA_HOME or the like, as `ragged` itself), then embedded.
# The test binaries above keep compiling at run time: they test that path.
kernels="$PWD/target/aot-kernels"
rm -rf "$kernels"
# shellcheck disable=SC2086 # one argument per architecture
cargo run --profile dist -p ragged-cuda --example aot -- "$kernels" ${RAGGED_AOT_ARCHS:-90}
RAGGED_CUDA_KERNELS="$kernels" cargo build --profile dist -p ragged-cli
cp target/dist/ragged "$dir/ragged"
cp scripts/gpu-run.sh "$dir/gpu-run.sh"
cp scripts/ncu-phases.py "$dir/ncu-phases.py"
cp examples/data/people.parquet "$dir/people.parquet"
du -sh "$dir"
