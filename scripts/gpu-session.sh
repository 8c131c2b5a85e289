#!/usr/bin/env bash
# One device call's work: conformance and bench figures for the segmented reductions
# (run from dist/gpu on the GPU machine; see scripts/gpu-build.sh). Steps by name:
#   seg-tests        primitives segmented and lists conformance, side by side
#   strings-tests    strings conformance and the user-transform tests, side by side
#   seg-bench [BIN]  segmented sums/extremes at 2^28 and the lists reductions
#   lists-bench      the whole lists suite
#   sanitize         memcheck of the list reductions and segmented sums / maxima,
#                    racecheck of the segmented sums and list reductions (pool off,
#                    bounded in time)
cd "$(dirname "$0")"
export RAGGED_KERNEL_CACHE=/tmp/kc RAGGED_REQUIRE_CUDA=1 RAGGED_REQUIRE_NVRTC=1
step() { echo "=== $*"; }
bench() { # BIN SUITE FILTER
  "$1" --device cuda bench --suite "$2" --filter "$3" 2>&1 | grep -E "^  (copy|$2|segmented)" | grep -E "copy|2\^28" | sed 's/  */ /g'
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
    lists-bench)
      step bench lists all
      ./ragged --device cuda bench --suite lists 2>&1 | grep -E "^  " | head -60 ;;
  esac
  shift
done
