#!/usr/bin/env bash
# End-to-end timings of whole commands, file to file, as a user runs them: ragged on
# the GPU and the CPU, side by side with pyarrow reading and writing the same files.
#
#   scripts/e2e-bench.sh RAGGED_BINARY ROWS DIR     (e.g. dist/gpu/ragged 60000000 /tmp/e2e)
#
# Writes DIR/people.parquet (snappy), DIR/people.arrow (uncompressed IPC) once, with
# pyarrow (names "First Last" from 5 000 x 50 000 generated words, visibility public
# or private), then prints one line per run: the command and its wall time, best of
# $ROUNDS (default 3), and RAGGED_TRACE's phase line of the last ragged run.
# PEERS=0 leaves out the plain reads and pyarrow (to time a second ragged build).
set -euo pipefail
bin=$(realpath "$1"); rows=$2; dir=$3
rounds=${ROUNDS:-3}
mkdir -p "$dir"
if [ ! -e "$dir/people.parquet" ]; then
  python3 - "$rows" "$dir" <<'PY'
import sys, numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq, pyarrow.feather as pf
rows, out = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(1)
syl = ["ka", "lo", "ve", "ti", "mu", "ra", "sen", "do", "ba", "qui", "zo", "ë", "ñ", "美", "咲", "el", "an", "or"]
def words(k, lo, hi):
    return np.array(["".join(syl[i] for i in rng.integers(0, len(syl), rng.integers(lo, hi))).capitalize() for _ in range(k)])
first, last = words(5000, 2, 4), words(50000, 2, 5)
names = pc.binary_join_element_wise(pa.array(first[rng.integers(0, len(first), rows)]),
                                    pa.array(last[rng.integers(0, len(last), rows)]), " ")
vis = pa.array(np.where(rng.integers(0, 2, rows) == 0, "public", "private"))
t = pa.table({"name": names, "visibility": vis})
pq.write_table(t, f"{out}/people.parquet", compression="snappy")
pf.write_feather(t, f"{out}/people.arrow", compression="uncompressed")
PY
fi
ls -l "$dir"/people.*
best() { # best wall seconds of $rounds runs of "$@"
  local b=""
  for _ in $(seq "$rounds"); do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }; e=$(date +%s.%N)
    b=$(python3 -c "a='$b'; t=$e-$s; print(min(float(a),t) if a else t)")
  done
  printf '%-90s %8.3f s\n' "$*" "$b"
}
cd "$dir"
if [ "${PEERS:-1}" != 0 ]; then
  best cat people.parquet
  best cat people.arrow
fi
for dev in cuda cpu; do
  best "$bin" --device "$dev" -q redact --names name --visibility visibility people.parquet -o out.parquet
  best "$bin" --device "$dev" -q redact --names name --visibility visibility people.parquet -o out.parquet --compression snappy
  best "$bin" --device "$dev" -q redact --names name --visibility visibility people.arrow -o out.arrow
  best "$bin" --device "$dev" -q strings length -c name people.arrow
  best "$bin" --device "$dev" -q strings length -c name people.parquet
  for f in people.parquet people.arrow; do
    echo "trace $dev $f:"; RAGGED_TRACE=1 "$bin" --device "$dev" -q redact --names name --visibility visibility "$f" -o "out.${f##*.}" 2>&1 | grep -E "phases|command" || true
  done
done
[ "${PEERS:-1}" != 0 ] || exit 0
python3 - "$rounds" <<'PY'
import sys, time, pyarrow as pa, pyarrow.parquet as pq, pyarrow.feather as pf
rounds = int(sys.argv[1])
def best(label, f):
    b = min((lambda s: (f(), time.perf_counter() - s)[1])(time.perf_counter()) for _ in range(rounds))
    print(f"{label:<90} {b:8.3f} s")
best("pyarrow read_table people.parquet (threads)", lambda: pq.read_table("people.parquet"))
best("pyarrow read_table people.parquet (no threads)", lambda: pq.read_table("people.parquet", use_threads=False))
t = pq.read_table("people.parquet")
best("pyarrow write_table snappy", lambda: pq.write_table(t, "py.parquet", compression="snappy"))
best("pyarrow write_table zstd", lambda: pq.write_table(t, "py.parquet", compression="zstd"))
best("pyarrow read_feather people.arrow (memory_map)", lambda: pf.read_table("people.arrow", memory_map=True))
best("pyarrow write_feather uncompressed", lambda: pf.write_feather(t, "py.arrow", compression="uncompressed"))
PY
