#!/usr/bin/env bash
# Run ragged's GPU checks from the binaries scripts/gpu-build.sh made, on a machine
# with an NVIDIA GPU and the CUDA toolkit (no Rust needed).
#
#   gpu-run.sh test       the CUDA conformance suite and runtime tests (GPU required)
#   gpu-run.sh sanitize   the same under compute-sanitizer memcheck and racecheck,
#                         with the memory pool disabled ($SANITIZE_ARGS: extra test
#                         arguments, e.g. "--skip huge_" to leave out the largest cases)
#   gpu-run.sh sanitize-each [BINARY...]
#                         each test of the named test binaries (default:
#                         strings_conformance) in its own compute-sanitizer process,
#                         $JOBS (default 4) at a time, each bounded to $LIMIT seconds
#                         (default 500), for each tool of $TOOLS (default "memcheck
#                         racecheck"), memory pool off; one line per test and tool in
#                         $LOGS/sanitize-each.txt: clean, errors (the sanitizer
#                         reported), timed-out ($LIMIT), stopped (SIGTERM from the
#                         caller, e.g. at its own deadline) or failed(status).
#                         Both sanitize modes shrink the suites' large case to
#                         $RAGGED_TEST_LARGE_ROWS rows (default 65539): at the suites'
#                         own 1048579, strings tests ran past 420 s under memcheck;
#                         and the strings cases' long row to
#                         $RAGGED_TEST_LONG_ROW_CHARS characters (default 20000
#                         against 100000: a shard holding it took 300-490 s under
#                         memcheck; 20000 still exceeds every staged tile).
#                         With $SHARDS = n (default 1) each test runs as n processes,
#                         RAGGED_TEST_SHARD=k/n each, which split the strings cases
#                         between them (at 65539 rows, several strings tests still
#                         ran past 380 s under memcheck as one process). The
#                         processes take the GPUs of $DEVICES in turn (indices,
#                         comma-separated; default: all of the machine's GPUs) as
#                         CUDA_VISIBLE_DEVICES; $MATCH (an extended regular
#                         expression) keeps the tests whose names match it
#   gpu-run.sh bench      `ragged bench` with JSON output ($BENCH_ARGS: extra
#                         arguments, e.g. "--suite lists")
#   gpu-run.sh startup    warm-start wall times: `ragged info` plus one small op, then
#                         the same with RAGGED_TRACE=1 (phase timings)
#   gpu-run.sh all        test, sanitize and bench
#   gpu-run.sh variants DIR...
#                         kernel variants against the embedded kernels, with one build:
#                         each DIR is a copy of crates/ragged-cuda/kernels/ (or of the
#                         files changed), passed as RAGGED_KERNEL_SOURCES. $TESTS (a
#                         test binary and its filter, e.g. "strings_conformance redact")
#                         runs with each variant first; then $ROUNDS (default 3) rounds
#                         of `ragged bench $BENCH_ARGS`, the embedded kernels and each
#                         variant in turn, so all see the GPU in the same state
#                         (e.g. BENCH_ARGS="--device cuda --suite strings --filter redact/")
#   gpu-run.sh builds DIR...
#                         other builds against this one (host code changed too): each
#                         DIR is another scripts/gpu-build.sh directory (e.g. made
#                         from a patch applied). $TESTS runs with each other build's
#                         test binary first; then $ROUNDS (default 3) rounds of
#                         `ragged bench $BENCH_ARGS`, this build and each other in
#                         turn, each with its own kernel cache
#   gpu-run.sh phases REGEX FILTER ROWS
#                         Nsight Compute (clocks as found) of the third launch of the
#                         kernels matching REGEX (an extended regular expression) in
#                         `ragged bench $BENCH_ARGS --filter FILTER`: the report and its
#                         SASS page (ncu-<name>.ncu-rep, .sass.csv.gz) in $LOGS, its
#                         summary, and ncu-phases.py's table of the kernel's phases
#                         (ROWS: the case's rows, for counts per 32 rows)
#
# Logs go to $LOGS (default: ./logs). Exit status is non-zero when any step fails.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=${LOGS:-$here/logs}
mkdir -p "$logs"
export RAGGED_REQUIRE_CUDA=1 RAGGED_REQUIRE_NVRTC=1
export RAGGED_KERNEL_CACHE=${RAGGED_KERNEL_CACHE:-$here/kernel-cache}
# The large case of the conformance suites under compute-sanitizer (see sanitize-each).
sanitize_large_rows=${RAGGED_TEST_LARGE_ROWS:-65539}
# The strings cases' long row under compute-sanitizer (see sanitize-each).
sanitize_long_row=${RAGGED_TEST_LONG_ROW_CHARS:-20000}
status=0

run_tests() {
  for t in "$here"/tests/*; do
    echo "== $(basename "$t")"
    "$t" --include-ignored --test-threads=1 2>&1 | tee "$logs/test-$(basename "$t").log" | grep -E "^test |test result|skipped|panicked|error" || true
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "FAILED: $(basename "$t")"; status=1; }
  done
}

# compute-sanitizer: on PATH, else the toolkit's.
sanitizer_path() {
  command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer
}

run_sanitize() {
  local sanitizer
  sanitizer=$(sanitizer_path)
  for tool in memcheck racecheck; do
    for t in "$here"/tests/conformance "$here"/tests/text_conformance "$here"/tests/lists_conformance "$here"/tests/strings_conformance "$here"/tests/sequences_conformance "$here"/tests/runtime; do
      [ -x "$t" ] || continue
      echo "== $tool $(basename "$t")"
      RAGGED_POOL=off RAGGED_TEST_LARGE_ROWS=$sanitize_large_rows RAGGED_TEST_LONG_ROW_CHARS=$sanitize_long_row "$sanitizer" --tool "$tool" --error-exitcode 99 --target-processes all \
        "$t" --include-ignored --test-threads=1 ${SANITIZE_ARGS:-} > "$logs/$tool-$(basename "$t").log" 2>&1
      rc=$?
      tail -n 3 "$logs/$tool-$(basename "$t").log"
      [ $rc -eq 0 ] || { echo "FAILED: $tool $(basename "$t") (exit $rc)"; status=1; }
    done
  done
}

run_bench() {
  "$here/ragged" kernels warmup
  "$here/ragged" bench ${BENCH_ARGS:-} --json "$logs/bench.json" 2>"$logs/bench.stderr" | tee "$logs/bench.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

# run_in MODE DIR PATH ARGS...: PATH (ragged, or tests/NAME) with ARGS, of this build
# with the kernel variant DIR (MODE variants; DIR empty: the embedded kernels), or of
# the build DIR with its own kernel cache (MODE builds; DIR empty: this build).
run_in() {
  local mode=$1 dir=$2 path=$3
  shift 3
  if [ "$mode" = builds ]; then
    RAGGED_KERNEL_CACHE=${dir:-$here}/kernel-cache "${dir:-$here}/$path" "$@"
  else
    RAGGED_KERNEL_SOURCES=$dir "$here/$path" "$@"
  fi
}

# run_compared MODE DIR...: $TESTS with each DIR, then $ROUNDS rounds of
# `ragged bench $BENCH_ARGS`, this build as it is and with each DIR in turn (see
# run_in for MODE).
run_compared() {
  local mode=$1 dirs=() dir
  shift
  [ $# -gt 0 ] || { echo "$mode: name one or more directories" >&2; exit 2; }
  for dir in "$@"; do
    if [ "$mode" = builds ]; then
      [ -x "$dir/ragged" ] || { echo "builds: $dir holds no ragged binary" >&2; exit 2; }
    else
      [ -d "$dir" ] || { echo "variants: $dir is not a directory" >&2; exit 2; }
    fi
    dirs+=("$(cd "$dir" && pwd)")
  done
  if [ -n "${TESTS:-}" ]; then
    local binary filter
    read -r binary filter <<< "$TESTS"
    for dir in "${dirs[@]}"; do
      echo "== $binary $filter with $dir"
      # shellcheck disable=SC2086 # the filter is the test binary's own arguments
      run_in "$mode" "$dir" "tests/$binary" --include-ignored --test-threads=1 $filter 2>&1 \
        | tee "$logs/$mode-$(basename "$dir")-$binary.log" | grep -E "test result|panicked|FAILED" || true
      [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "FAILED: $binary with $dir"; status=1; }
    done
  fi
  local round source base="embedded kernels"
  [ "$mode" = builds ] && base="this build"
  for round in $(seq "${ROUNDS:-3}"); do
    for source in "" "${dirs[@]}"; do
      echo "-- round $round: ${source:-$base}"
      # shellcheck disable=SC2086 # BENCH_ARGS are several arguments
      run_in "$mode" "$source" ragged bench ${BENCH_ARGS:-} 2>>"$logs/$mode.stderr" \
        | grep -vE "^(case|bench on)" | tee -a "$logs/$mode.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "FAILED: bench with ${source:-$base}"; status=1; }
    done
  done
}

# One test (its shard k/n of the strings cases) under one sanitizer tool, on GPU
# number $6: "tool test shard result seconds" on standard output.
sanitize_one() {
  local tool=$1 binary=$2 name=$3 sanitizer=$4 shard=$5 gpu=$6
  local log="$logs/each-$tool-$(basename "$binary")-${name//[^A-Za-z0-9_]/_}-${shard/\//of}.log" t0 rc result
  t0=$(date +%s)
  CUDA_VISIBLE_DEVICES=$gpu RAGGED_POOL=off RAGGED_TEST_LARGE_ROWS=$sanitize_large_rows \
    RAGGED_TEST_LONG_ROW_CHARS=$sanitize_long_row RAGGED_TEST_SHARD=$shard timeout "${LIMIT:-500}" \
    "$sanitizer" --tool "$tool" --error-exitcode 99 "$binary" --exact "$name" --include-ignored --test-threads=1 > "$log" 2>&1
  rc=$?
  case $rc in
    0) result=clean ;;
    99) result=errors ;;
    124) result=timed-out ;;
    # SIGTERM: a caller stopped the sweep (e.g. at its own deadline), not a failure.
    143) result=stopped ;;
    *) result="failed($rc)" ;;
  esac
  echo "$tool $(basename "$binary") $name $shard $result $(( $(date +%s) - t0 ))s"
}

run_sanitize_each() {
  local sanitizer binaries=("$@") binary name tool devices started=0 count
  sanitizer=$(sanitizer_path)
  count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  IFS=, read -r -a devices <<< "${DEVICES:-$(seq -s, 0 $(( ${count:-1} > 0 ? ${count:-1} - 1 : 0 )))}"
  [ ${#binaries[@]} -gt 0 ] || binaries=(strings_conformance)
  : > "$logs/sanitize-each.txt"
  for tool in ${TOOLS:-memcheck racecheck}; do
    for binary in "${binaries[@]}"; do
      binary="$here/tests/$binary"
      [ -x "$binary" ] || { echo "sanitize-each: no test binary $binary" >&2; status=1; continue; }
      while read -r name; do
        for k in $(seq 0 $(( ${SHARDS:-1} - 1 ))); do
          # At most $JOBS sanitizer processes at once.
          while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-4}" ]; do wait -n; done
          sanitize_one "$tool" "$binary" "$name" "$sanitizer" "$k/${SHARDS:-1}" "${devices[started % ${#devices[@]}]}" \
            | tee -a "$logs/sanitize-each.txt" &
          started=$(( started + 1 ))
        done
      done < <("$binary" --list 2>/dev/null | sed -n 's/: test$//p' | grep -E "${MATCH:-.}")
    done
  done
  wait
  if grep -qv " clean " "$logs/sanitize-each.txt"; then status=1; fi
  echo "sanitize-each: $(grep -c " clean " "$logs/sanitize-each.txt") clean of $(wc -l < "$logs/sanitize-each.txt")"
}

# Nsight Compute: on PATH, else the toolkit's.
ncu_path() {
  command -v ncu || echo /usr/local/cuda/bin/ncu
}

run_phases() {
  [ $# -eq 3 ] || { echo "phases: REGEX FILTER ROWS" >&2; exit 2; }
  local ncu name report
  ncu=$(ncu_path)
  name=$(echo "$2" | tr -c 'A-Za-z0-9_\n' '_')
  report="$logs/ncu-$name"
  # shellcheck disable=SC2086 # BENCH_ARGS are several arguments
  "$ncu" --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section SourceCounters \
    -k "regex:$1" --launch-skip 2 --launch-count 1 -f -o "$report" \
    "$here/ragged" bench ${BENCH_ARGS:-} --filter "$2" > "$report.txt" 2>&1 || { echo "FAILED: ncu $1"; status=1; return; }
  "$ncu" --import "$report.ncu-rep" --page details 2>&1 \
    | grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Issued Warp|Avg. Active Threads|Block Limit (Reg|Shared)" \
    | sed 's/  */ /g'
  "$ncu" --import "$report.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip > "$report.sass.csv.gz"
  python3 "$here/ncu-phases.py" "$report.sass.csv.gz" --rows "$3" --hot 8 || status=1
}

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

run_startup() {
  "$here/ragged" kernels warmup > "$logs/warmup.txt" 2>&1 || status=1
  local input="$here/people.parquet"
  for i in 1 2 3 4 5; do
    local t0 t1
    t0=$(date +%s%N)
    "$here/ragged" info > /dev/null || status=1
    local info_ms; info_ms=$(ms_since "$t0")
    t1=$(date +%s%N)
    "$here/ragged" --device cuda strings length --column name "$input" > /dev/null 2>&1 || status=1
    echo "warm start $i: ragged info $info_ms ms + strings length on cuda $(ms_since "$t1") ms = $(ms_since "$t0") ms"
  done
  RAGGED_TRACE=1 "$here/ragged" info 2>&1 >/dev/null | sed 's/^/info: /'
  RAGGED_TRACE=1 "$here/ragged" --device cuda strings length --column name "$input" 2>&1 | sed 's/^/length: /'
}

case "${1:-all}" in
  test) run_tests ;;
  sanitize) run_sanitize ;;
  sanitize-each) shift; run_sanitize_each "$@" ;;
  bench) run_bench ;;
  startup) run_startup ;;
  all) run_tests; run_sanitize; run_bench ;;
  variants|builds) run_compared "$@" ;;
  phases) shift; run_phases "$@" ;;
  *) echo "usage: $0 test|sanitize|sanitize-each [BINARY...]|bench|startup|all|variants DIR...|builds DIR...|phases REGEX FILTER ROWS" >&2; exit 2 ;;
esac
exit $status
