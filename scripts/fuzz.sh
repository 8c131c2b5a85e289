#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader: builds the libFuzzer targets of fuzz/ (its
# own crate, outside the workspace) on the stable toolchain and runs each for SECONDS
# (default 15) over its committed corpus fuzz/corpus/<target>, one process and one core
# at a time; fails when any target crashes, hangs (-timeout, 10 s per input) or runs
# out of memory (-rss_limit_mb, 2 GiB). The failing inputs are left in
# target/fuzz/artifacts/<target>/ (replay one: target/fuzz/bin/<target> FILE).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     # default: every target
#   scripts/fuzz.sh merge [TARGET...]         # minimize corpus + new inputs into corpus
#
# New inputs go to a scratch corpus, target/fuzz/scratch/<target> (kept across runs, not
# committed); `merge` folds it into the committed corpus with libFuzzer's -merge=1
# (a fresh directory: only inputs that add coverage stay). FUZZ_JOBS sets cargo's build
# jobs (default: all cores). The build is what `cargo fuzz build --sanitizer none -a`
# does (cargo-fuzz's instrumentation flags, debug assertions and overflow checks on),
# without needing cargo-fuzz or a nightly toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

targets_all=(parquet ipc_file ipc_stream csv fasta fastq fasta_gzip lines)
mode=run
seconds=15
if [ "${1:-}" = merge ]; then
  mode=merge
  shift
elif [ $# -gt 0 ]; then
  seconds=$1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")

work=target/fuzz
triple=$(rustc -vV | sed -n 's/^host: //p')
export CARGO_INCREMENTAL=0
# One thread per fuzzing process (results never depend on it).
export RAYON_NUM_THREADS=1

flags=(
  -Cpasses=sancov-module
  -Cllvm-args=-sanitizer-coverage-level=4
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
  -Cllvm-args=-sanitizer-coverage-pc-table
  -Cllvm-args=-sanitizer-coverage-trace-compares
  -Cllvm-args=-simplifycfg-branch-fold-threshold=0
  --cfg fuzzing
  -Cdebug-assertions
  -Coverflow-checks
)
started=$(date +%s)
(
  cd fuzz
  RUSTFLAGS="${flags[*]}" cargo build --release --bins --target "$triple" \
    --target-dir "../$work/build" ${FUZZ_JOBS:+-j "$FUZZ_JOBS"}
)
mkdir -p "$work/bin"
for t in "${targets_all[@]}"; do
  cp -f "$work/build/$triple/release/$t" "$work/bin/$t"
done
echo "fuzz: built in $(($(date +%s) - started)) s"

if [ $mode = merge ]; then
  for t in "${targets[@]}"; do
    fresh="$work/merged/$t"
    rm -rf "$fresh"
    mkdir -p "$fresh" "$work/scratch/$t"
    "$work/bin/$t" -merge=1 -rss_limit_mb=2048 -timeout=10 \
      "$fresh" "fuzz/corpus/$t" "$work/scratch/$t" 2>&1 | grep -E '^MERGE-OUTER: [0-9]+ new files' || true
    rm -rf "fuzz/corpus/$t"
    mv "$fresh" "fuzz/corpus/$t"
    echo "fuzz: $t corpus: $(ls "fuzz/corpus/$t" | wc -l) files, $(du -sk "fuzz/corpus/$t" | cut -f1) KiB"
  done
  exit 0
fi

failed=()
for t in "${targets[@]}"; do
  mkdir -p "$work/scratch/$t" "$work/artifacts/$t" "$work/logs"
  log="$work/logs/$t.log"
  if "$work/bin/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/" \
    "$work/scratch/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1)
    echo "fuzz: $t ok: $execs executions in $seconds s, $cov"
  else
    echo "fuzz: $t FAILED (log: $log)"
    grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -20 || true
    failed+=("$t")
  fi
done
echo "fuzz: done in $(($(date +%s) - started)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
