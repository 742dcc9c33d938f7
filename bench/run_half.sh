#!/usr/bin/env bash
# 16-bit storage on the CPU backend, one core (taskset): the Gaussian sum with
# float, kops::half and kops::bfloat16 inputs (all evaluated in float), at
# D = 3 and D = 64, M = N = 10^4; its time and its error against a double sum
# on the original data and on the stored values (bench_half.cpp).
#
#   bash bench/run_half.sh      (REPS=3 CPU=0)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_setup
bench_build bench_half
CSV="$BUILD/half.csv"
"${PIN[@]}" "$BIN" --reps "$REPS" | tee "$CSV"
python3 - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| D | storage | policy | seconds | / float | max rel. error vs double (original data) | median | max rel. error vs double (stored values) |")
print("|---:|---|---|---:|---:|---:|---:|---:|")
for r in rows:
    f = next(x for x in rows if x["D"] == r["D"] and x["policy"] == r["policy"] and x["storage"] == "float")
    print(f"| {r['D']} | {r['storage']} | {r['policy']} | {float(r['seconds']):.4f} | "
          f"{float(r['seconds']) / float(f['seconds']):.2f} | {r['max_rel_err']} | {r['median_rel_err']} | "
          f"{r['max_rel_err_stored']} |")
PY
