#!/usr/bin/env bash
# One device call's work: conformance and bench figures for the segmented reductions
# (run from dist/gpu on the GPU machine; see scripts/gpu-build.sh). Steps by name:
#   seg-tests        primitives segmented and lists conformance, side by side
#   strings-tests    strings conformance and the user-transform tests, side by side
#   strings-only F   the strings conformance tests whose names contain F
#   seg-bench [BIN]  segmented sums/extremes at 2^28 and the lists reductions
#   lists-bench      the whole lists suite
#   prim-bench BIN FILTER  the table of the primitives suite's cases matching FILTER
#                    ("/" every case), times too (latency at 2^10)
#   seq-tests        sequences conformance (both sketch paths against the oracle)
#   seq-bench [BIN]  the sequences suite (sketch from host, on device, distances)
#   strings-bench F  the strings suite's cases matching F
#   sanitize-strings memcheck and racecheck of redact, copy_if_else, slice, the
#                    scalar searches, like, split and the user transforms, all at once
#   sanitize-split   memcheck and racecheck of split, split_record and replace through
#                    the CLI over generated adversarial rows
#   sanitize-tests SECONDS BIN:FILTER...   memcheck and racecheck of those tests, all
#                    at once, each bounded to SECONDS
#   lines-tests      text conformance (line_ends, count_lines, split_lines)
#   lines-bench      the lines suite at 80-byte lines
#   ncu REGEX SUITE FILTER   Nsight Compute (clocks as found) of one launch of the
#                    kernels matching REGEX in that bench case: throughput, warp
#                    stalls, occupancy
#   ncu-stalls REGEX SUITE FILTER   the stall reasons of one launch of the kernels
#                    matching REGEX in that bench case
#   ncu-times REGEX SUITE FILTER N   the durations of the first N launches of the
#                    kernels matching REGEX in that bench case (a kernel timeline)
#   sanitize-gather  memcheck and racecheck of flatten, to_compact and local_index
#   sanitize-lines   memcheck and racecheck of the lines' random text and delimiters
#   sanitize         memcheck of the list reductions and segmented sums / maxima,
#                    racecheck of the segmented sums and list reductions (pool off,
#                    bounded in time)
cd "$(dirname "$0")"
export RAGGED_KERNEL_CACHE=/tmp/kc RAGGED_REQUIRE_CUDA=1 RAGGED_REQUIRE_NVRTC=1
step() { echo "=== $*"; }
bench() { # BIN SUITE FILTER
  "$1" --device cuda bench --suite "$2" --filter "$3" 2>&1 | grep -E "^  (copy|$2|segmented)" | grep -E "copy|2\^28" | sed 's/  */ /g'
}
# sanitize_tests SECONDS BIN:FILTER... : memcheck and racecheck of each test binary and
# filter (pool off), all pairs at once, each bounded to SECONDS; the logs printed after.
sanitize_tests() {
  local limit=$1 cs="/usr/local/cuda/bin/compute-sanitizer --error-exitcode 99" i=0 pair bin filter tool threads
  shift
  export RAGGED_POOL=off
  for pair in "$@"; do
    bin=${pair%%:*}; filter=${pair#*:}
    for tool in memcheck racecheck; do
      i=$((i + 1))
      ( echo "=== $tool $bin $filter"
        # racecheck loses track of launches made by several test threads at once
        # ("Internal Sanitizer Error: Detected a failure to track a kernel launch", exit
        # 99 with no hazard): its tests run one at a time.
        threads=; [ "$tool" = racecheck ] && threads=--test-threads=1
        timeout "$limit" $cs --tool "$tool" "./tests/$bin" "$filter" $threads 2>&1 \
          | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Internal Sanitizer|test result|Hazard|Invalid" | head -6
        echo "exit ${PIPESTATUS[0]}" ) > "/tmp/san$i.log" 2>&1 &
    done
  done
  wait
  cat /tmp/san*.log
  rm -f /tmp/san*.log
  unset RAGGED_POOL
}
while [ $# -gt 0 ]; do
  case "$1" in
    seg-tests)
      step conformance segmented + lists_conformance
      ./tests/conformance segmented > /tmp/t1.log 2>&1 &
      ./tests/lists_conformance > /tmp/t2.log 2>&1
      wait
      grep -hE "test result|FAILED|panicked" /tmp/t1.log /tmp/t2.log | head -20 ;;
    strings-tests)
      step strings_conformance + transform
      ./tests/strings_conformance > /tmp/t3.log 2>&1 &
      ./tests/transform > /tmp/t4.log 2>&1
      wait
      grep -hE "test result|FAILED|panicked" /tmp/t3.log /tmp/t4.log | head -20 ;;
    strings-only)
      # The strings conformance tests whose names contain $2.
      step "strings_conformance $2"
      ./tests/strings_conformance "$2" 2>&1 | grep -E "test result|FAILED|panicked|^---- |Mismatch|expected" | head -30
      shift ;;
    seq-tests)
      step sequences_conformance
      ./tests/sequences_conformance 2>&1 | grep -E "test result|FAILED|panicked|^---- |Mismatch|differs" | head -30 ;;
    seq-bench)
      bin=${2:-./ragged}; shift
      step "bench sequences $bin"
      "$bin" --device cuda bench --suite sequences 2>&1 | grep -E "^  " | sed 's/  */ /g' | head -20 ;;
    prim-bench)
      # prim-bench BIN FILTER (FILTER "/" takes every case)
      step "bench primitives $2 $3"
      "$2" --device cuda -q bench --suite primitives --filter "$3" | sed 's/  */ /g'
      shift 2 ;;
    seg-bench)
      bin=${2:-./ragged}; shift
      step "bench $bin"
      bench "$bin" primitives segmented
      bench "$bin" lists /avg ;;
    sanitize)
      export RAGGED_POOL=off
      cs="/usr/local/cuda/bin/compute-sanitizer --error-exitcode 99"
      for t in "memcheck lists_conformance lists_reductions_list" \
               "memcheck conformance segmented_sum::i32" "memcheck conformance segmented_max::f32" "memcheck conformance segmented_argmin::i64" \
               "racecheck conformance segmented_sum::i32" "racecheck lists_conformance lists_reductions_list"; do
        read -r tool bin filter <<< "$t"
        step "$tool $bin $filter"
        timeout 150 $cs --tool "$tool" "./tests/$bin" "$filter" 2>&1 | grep -E "ERROR SUMMARY|test result|Hazard|Invalid" | head -6
        echo "exit ${PIPESTATUS[0]}"
      done
      unset RAGGED_POOL ;;
    ncu)
      step "ncu $2 $3 $4"
      /usr/local/cuda/bin/ncu --clock-control none --kernel-name "regex:$2" --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
        --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis_Tables \
        ./ragged --device cuda bench --suite "$3" --filter "$4" 2>&1 | grep -vE "^==PROF==|^  (lines|lists|copy)" \
        | grep -vE "^    -|^    (INF|OPT|WRN)|^ *$|Section:" | head -90
      shift 3 ;;
    ncu-stalls)
      # Why the warps of one launch of the kernels matching $2 wait: cycles per issued
      # instruction by stall reason, and the instructions executed.
      step "ncu-stalls $2 $3 $4"
      m=smsp__average_warps_issue_stalled
      /usr/local/cuda/bin/ncu --clock-control none --kernel-name "regex:$2" --launch-skip 2 --launch-count 1 \
        --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,$(for r in \
          barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle not_selected \
          selected no_instruction branch_resolving dispatch_stall membar sleeping drain tex_throttle imc_miss; do \
          printf "%s_%s_per_issue_active.ratio," $m $r; done | sed 's/,$//') \
        ./ragged --device cuda bench --suite "$3" --filter "$4" 2>&1 | grep -E "^  [a-z_0-9]+ \(|gpu__time|smsp__" \
        | sed "s/$m//" | head -40
      shift 3 ;;
    ncu-times)
      # Every launch of kernels matching $2 (at most $5) in `bench --suite $3 --filter $4`,
      # with its duration in ns: a timeline of one case's kernels.
      step "ncu-times $2 $3 $4 $5"
      /usr/local/cuda/bin/ncu --clock-control none --kernel-name "regex:$2" --launch-count "$5" \
        --metrics gpu__time_duration.sum --csv --print-units base \
        ./ragged --device cuda bench --suite "$3" --filter "$4" 2>/dev/null \
        | grep gpu__time_duration | awk -F'","' '{print $5 "  " $NF}' | tr -d '"' | head -200
      shift 4 ;;
    lines-tests)
      step text_conformance
      ./tests/text_conformance > /tmp/t5.log 2>&1
      grep -hE "test result|FAILED|panicked" /tmp/t5.log | head -20 ;;
    lines-bench)
      step bench lines avg80
      ./ragged --device cuda bench --suite lines --filter avg80 2>&1 | grep -E "^  " | sed 's/  */ /g' | head -30 ;;
    sanitize-gather|sanitize-lines)
      export RAGGED_POOL=off
      cs="/usr/local/cuda/bin/compute-sanitizer --error-exitcode 99"
      if [ "$1" = sanitize-gather ]; then
        targets=("lists_conformance lists_flatten_list" "lists_conformance lists_to_compact_large_list"
                 "lists_conformance lists_local_index_list")
      else
        targets=("text_conformance lines_random_text" "text_conformance lines_delimiters_across_tiles")
      fi
      for t in "${targets[@]}"; do
        read -r bin filter <<< "$t"
        for tool in memcheck racecheck; do
          step "$tool $bin $filter"
          timeout 120 $cs --tool "$tool" "./tests/$bin" "$filter" 2>&1 | grep -E "ERROR SUMMARY|test result|Hazard|Invalid" | head -6
          echo "exit ${PIPESTATUS[0]}"
        done
      done
      unset RAGGED_POOL ;;
    strings-bench)
      step "bench strings $2"
      ./ragged --device cuda bench --suite strings --filter "$2" 2>&1 | grep -E "^  " | sed 's/  */ /g' | head -60
      shift ;;
    sanitize-strings)
      # The strings kernels' tests, each pair bounded to 240 s.
      sanitize_tests 240 strings_conformance:strings_redact_utf8 strings_conformance:strings_copy_if_else_utf8 \
        strings_conformance:strings_slice_utf8 strings_conformance:strings_search_scalar_utf8 \
        strings_conformance:strings_like_utf8 strings_conformance:strings_split_utf8 transform:user ;;
    sanitize-tests)
      # sanitize-tests SECONDS BIN:FILTER...
      limit=$2; shift 2; pairs=()
      while [ $# -gt 0 ] && [[ "$1" == *:* ]]; do pairs+=("$1"); shift; done
      sanitize_tests "$limit" "${pairs[@]}"
      continue ;;
    sanitize-split)
      # memcheck and racecheck of split, rsplit, split_record and replace through the CLI
      # over adversarial rows (0-8 parts cut by " ", a tab or "é\x7f", multi-byte
      # characters, whitespace runs, nulls, one row of 40 000 characters that no tile
      # can stage), every (tool, command) pair at once.
      step sanitize-split
      export RAGGED_POOL=off
      python3 - <<'PY'
import csv, random
random.seed(7)
alpha = ["a", "b", "é", "ü", "中", "😀", "x", "y"]
rows = []
for i in range(6000):
    words = ["".join(random.choice(alpha) for _ in range(random.randint(0, 5))) for _ in range(random.randint(0, 8))]
    s = random.choice([" ", " ", "\t", "é\x7f"]).join(words)
    rows.append("  " + s + " " if i % 97 == 0 else s)
rows[3000] = "".join(random.choice(["x", "é", "中"]) for _ in range(40000))
with open("/tmp/adversarial.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["id", "name"])
    w.writerows(enumerate(rows))
PY
      cs="/usr/local/cuda/bin/compute-sanitizer --error-exitcode 99"
      i=0
      while IFS= read -r args; do
        for tool in memcheck racecheck; do
          i=$((i + 1))
          ( echo "=== $tool $args"
            eval timeout 400 $cs --tool $tool ./ragged --device cuda strings $args --column name /tmp/adversarial.csv -q \
              2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Hazard|Invalid|rows" | head -5
            echo "exit ${PIPESTATUS[0]}" ) > "/tmp/split$i.log" 2>&1 &
        done
      done <<'LIST'
split -d " "
split -d " " --max-splits 6
split -d " " --right --max-splits 2
split
split --right
split-record -d " "
split-record -d é --right
split-record
replace --pattern a --replacement XYZ
replace --pattern é --replacement ""
LIST
      wait
      cat /tmp/split*.log
      rm -f /tmp/split*.log
      unset RAGGED_POOL ;;
    lists-bench)
      step bench lists all
      ./ragged --device cuda bench --suite lists 2>&1 | grep -E "^  " | head -60 ;;
  esac
  shift
done
