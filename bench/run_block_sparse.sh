#!/usr/bin/env bash
# Block-sparse against dense, and against pykeops 2.3's ranges, side by side in
# one run, one core (taskset), float32: the 3-D Gaussian sum on N = M = 2e5
# clustered points (bench_block_sparse.cpp, pykeops_block_sparse.py: same data,
# same structure).
#
#   bash bench/run_block_sparse.sh      (N=200000 VOXEL=0.3 REPS=3 CPU=0 SKIP_PYKEOPS=1: kops only)
#
# Targets (issue 16): block-sparse time <= 1.5 x (kept pairs / all pairs) x
# dense time; >= 20x pykeops' ranges per core.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_setup
N=${N:-200000}
VOXEL=${VOXEL:-0.3}
bench_build bench_block_sparse
DATA="$BUILD/block_sparse_data"
rm -rf "$DATA"; mkdir -p "$DATA"
CSV="$BUILD/block_sparse.csv"
echo "impl,N,seconds,pairs,kept_fraction" >"$CSV"
"${PIN[@]}" "$BIN" --n "$N" --voxel "$VOXEL" --reps "$REPS" --dump "$DATA" | tee -a "$CSV"
bench_pykeops_venv
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  "${PIN[@]}" "$VENV/bin/python" bench/pykeops_block_sparse.py --data "$DATA" --reps "$REPS" \
    | grep -E '^pykeops,' | tee -a "$CSV"
fi
python3 - "$CSV" <<'PY'
import csv, sys
rows = {r["impl"]: r for r in csv.DictReader(open(sys.argv[1]))}
t = {k: float(r["seconds"]) for k, r in rows.items()}
f = float(rows["sparse"]["kept_fraction"])
print(f"| impl | seconds | pairs evaluated | pairs/s |")
print(f"|---|---:|---:|---:|")
for k in ("dense", "sparse", "pykeops", "structure"):
    if k in rows:
        p = float(rows[k]["pairs"]) if k != "structure" else 0
        print(f"| {k} | {t[k]:.4f} | {p:.3g} | {p / t[k]:.3g} |" if p else f"| {k} (cluster helpers) | {t[k]:.4f} | | |")
print(f"\nkept fraction {100 * f:.3f}%; sparse / (kept fraction x dense) = {t['sparse'] / (f * t['dense']):.2f} (target <= 1.5)")
if "pykeops" in t:
    print(f"kops block-sparse vs pykeops ranges: {t['pykeops'] / t['sparse']:.1f}x (target >= 20x)")
PY
