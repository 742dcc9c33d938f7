#!/usr/bin/env bash
# Batched calls against a loop of plain calls, and against pykeops 2.3's batch
# dimension, side by side in one run, one core (taskset), float32: B Gaussian
# smoothings of 3-D point clouds (bench_batch.cpp, pykeops_batch.py: same data).
# Two shapes: many small problems (B = 4096 of 64 x 64) and fewer large ones
# (B = 64 of 2000 x 2000).
#
#   bash bench/run_batch.sh      (REPS=3 CPU=0 SKIP_PYKEOPS=1: kops only)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_setup
bench_build bench_batch
bench_pykeops_venv
CSV="$BUILD/batch.csv"
echo "impl,B,M,N,seconds,pairs" >"$CSV"
for shape in "4096 64 64" "64 2000 2000"; do
  read -r B M N <<<"$shape"
  DATA="$BUILD/batch_data_$B"
  rm -rf "$DATA"; mkdir -p "$DATA"
  "${PIN[@]}" "$BIN" --b "$B" --m "$M" --n "$N" --reps "$REPS" --dump "$DATA" | tee -a "$CSV"
  if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
    "${PIN[@]}" "$VENV/bin/python" bench/pykeops_batch.py --data "$DATA" --b "$B" --m "$M" --n "$N" --reps "$REPS" \
      | grep -E '^pykeops,' | tee -a "$CSV"
  fi
done
python3 - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| B x M x N | kops batched (s) | kops loop of B calls (s) | pykeops batched (s) | loop / batched | pykeops / kops batched |")
print("|---|---:|---:|---:|---:|---:|")
for shape in sorted({(r["B"], r["M"], r["N"]) for r in rows}, key=lambda s: -int(s[0])):
    t = {r["impl"]: float(r["seconds"]) for r in rows if (r["B"], r["M"], r["N"]) == shape}
    p = t.get("pykeops")
    print(f"| {shape[0]} x {shape[1]} x {shape[2]} | {t['batched']:.4f} | {t['loop']:.4f} | "
          f"{p:.4f} |" if p else f"| {shape[0]} x {shape[1]} x {shape[2]} | {t['batched']:.4f} | {t['loop']:.4f} | - |",
          f"{t['loop'] / t['batched']:.2f} |", f"{p / t['batched']:.1f} |" if p else "- |")
PY
