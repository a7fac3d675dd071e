#!/usr/bin/env bash
# The formats' own rates and eval's share of the engine's rate, in one run:
#   scripts/format-rate.sh [DIR] [CASES]   (default: /tmp/planar-hold-rate, 1000000)
# Writes CASES cases of bench's mixed workload, with string ids, as JSON Lines and as Parquet
# (pyarrow: the venv of scripts/test, or python3), then prints `bench --input` for each (the
# engine's rate, the formats' rates and floors per core) and times `eval --backend cpu`
# over each pair of formats, three times each (wall, CPU, peak resident size); last,
# eval Parquet -> Parquet against pyarrow.parquet.read_table merely reading the same file,
# alternating, best of three each, and the ratio of their rates.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/planar-hold-rate}
n=${2:-1000000}
python=$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )
mkdir -p "$dir"
cargo build --release --quiet --example sample_cases
bin=target/release/planar-hold
cargo build --release --quiet
target/release/examples/sample_cases "$n" |
  awk '{ printf "{\"id\":\"c%07d\",%s\n", NR, substr($0, 2) }' > "$dir/cases.jsonl"
"$python" - "$dir/cases.jsonl" "$dir/cases.parquet" <<'PY'
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
rows = [json.loads(line) for line in open(sys.argv[1])]
pq.write_table(pa.table({
    "id": pa.array([r["id"] for r in rows], pa.string()),
    "generators": pa.array([r["generators"] for r in rows], pa.list_(pa.list_(pa.float32()))),
    "need": pa.array([r["need"] for r in rows], pa.list_(pa.float32())),
}), sys.argv[2])
PY
# The widest instruction set the flags name (avx2 comes before avx512f in the flags line).
if grep -q -w avx512f /proc/cpuinfo; then echo 'instruction set: avx512f'
elif grep -q -w avx2 /proc/cpuinfo; then echo 'instruction set: avx2'
else echo 'instruction set: baseline'; fi
for f in cases.jsonl cases.parquet; do
  "$bin" bench --input "$dir/$f" --backend cpu,cpu1 |
    grep -E "^cpu|^input|per core|floors|cores to"
done
time_eval() {
  local name=$1; shift
  for _ in 1 2 3; do
    /usr/bin/time -f "$name: %e s wall, %U s user, %S s sys, %M KB peak" "$bin" eval "$@" \
      --backend cpu >/dev/null 2>>"$dir/time.log" || true
    tail -1 "$dir/time.log"
  done
}
: > "$dir/time.log"
time_eval "JSON Lines -> JSON Lines file" "$dir/cases.jsonl" -o "$dir/out.jsonl"
time_eval "JSON Lines -> /dev/null" "$dir/cases.jsonl" -o /dev/null
time_eval "Parquet -> Parquet file" "$dir/cases.parquet" -o "$dir/out.parquet"
time_eval "Parquet -> JSON Lines file" "$dir/cases.parquet" -o "$dir/out2.jsonl"
time_eval "JSON Lines -> Parquet file" "$dir/cases.jsonl" -o "$dir/out3.parquet"
cmp "$dir/out.jsonl" "$dir/out2.jsonl" && echo "JSON Lines answers identical from either input"
"$python" -c 'import sys, pyarrow.parquet as pq
a, b = (pq.read_table(f) for f in sys.argv[1:]); assert a.equals(b), "Parquet answers differ"
print("Parquet answers equal (Table.equals) from either input")' "$dir/out.parquet" "$dir/out3.parquet"
: > "$dir/pyarrow.log"; : > "$dir/eval-parquet.log"
for _ in 1 2 3; do
  "$python" -c 'import sys, time, pyarrow.parquet as pq
t = time.perf_counter(); pq.read_table(sys.argv[1]); print(time.perf_counter() - t)' \
    "$dir/cases.parquet" >> "$dir/pyarrow.log"
  /usr/bin/time -f "%e" "$bin" eval "$dir/cases.parquet" --backend cpu -o "$dir/out.parquet" \
    2>> "$dir/eval-parquet.log"
done
"$python" - "$dir" "$n" <<'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
best = lambda f: min(float(x) for x in open(f"{d}/{f}") if x.strip())
read, ev = best("pyarrow.log"), best("eval-parquet.log")
print(f"pyarrow.parquet.read_table: {read:.3f} s ({n / read / 1e6:.2f} M rows/s); "
      f"eval Parquet -> Parquet file: {ev:.3f} s ({n / ev / 1e6:.2f} M cases/s); "
      f"eval's rate / pyarrow's read rate = {read / ev:.2f}")
PY
