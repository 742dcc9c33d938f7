#!/usr/bin/env bash
# k nearest neighbours on the CPU, one core (taskset): argkmin_reduction<10> of
# |x_i - y_j|^2 beside argmin_reduction of the same formula (bench_knn, the two
# alternating rep by rep), M = 2000 queries x_i, N = 20000 points y_j, reduced
# over j, at D = 3 and 784, float32; ROUNDS runs of bench_knn, the ratio
# argkmin / argmin (pairs per second) of each and their median; then pykeops
# 2.3's ArgKMin (K = 10) on the data of the first round (SKIP_PYKEOPS=1 to
# leave it out; at D = 784 one call takes about a minute).
# Results: build/bench/knn.csv.
#
#   bash bench/run_knn.sh      (REPS=3 ROUNDS=3 CPU=0 M=2000 N=20000 PYKEOPS_REPS=1)
#
# pykeops: the Python of PYKEOPS_PYTHON, else the venv the conformance tests
# keep under KOPS_CACHE_HOME (tests/conformance/CMakeLists.txt), else
# build/bench-venv (bench/lib.sh, from pip).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_setup
M=${M:-2000}
N=${N:-20000}
ROUNDS=${ROUNDS:-3}
PYKEOPS_REPS=${PYKEOPS_REPS:-1}
bench_build bench_knn
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
CSV="$BUILD/knn.csv"
echo "round,impl,D,M,N,K,seconds,pairs_per_s,mismatch" | tee "$CSV"
for round in $(seq 1 "$ROUNDS"); do
  dump=(); [[ $round == 1 ]] && dump=(--dump "$data")
  "${PIN[@]}" "$BIN" --m "$M" --n "$N" --reps "$REPS" "${dump[@]}" | sed "s/^/$round,/" | tee -a "$CSV"
done
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  PY=${PYKEOPS_PYTHON:-}
  if [[ -z "$PY" ]]; then
    for p in "$KOPS_CACHE_HOME"/pykeops-2.3-python*/venv/bin/python; do [[ -x "$p" ]] && PY=$p; done
  fi
  if [[ -z "$PY" ]]; then bench_pykeops_venv; PY="$VENV/bin/python"; fi
  "${PIN[@]}" "$PY" "$ROOT/bench/pykeops_knn.py" --data "$data" --m "$M" --n "$N" --reps "$PYKEOPS_REPS" \
    --build-folder "$BUILD/keops-knn" 2>&1 | grep -v 'CUDA libraries not found' | sed 's/^pykeops/1,pykeops/' | tee -a "$CSV"
fi
python3 - "$CSV" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("\n| D | argmin pairs/s (median) | argkmin<10> pairs/s (median) | argkmin / argmin per round | median | pykeops ArgKMin pairs/s |")
print("|---:|---:|---:|---|---:|---:|")
for D in sorted({r["D"] for r in rows}, key=int):
    get = lambda impl: {r["round"]: float(r["pairs_per_s"]) for r in rows if r["D"] == D and r["impl"] == impl}
    mn, km, pk = get("kops_argmin"), get("kops_argkmin"), get("pykeops_argkmin")
    ratios = [km[k] / mn[k] for k in sorted(mn) if k in km]
    print(f"| {D} | {statistics.median(mn.values()):.3g} | {statistics.median(km.values()):.3g} | "
          f"{', '.join(f'{q:.2f}' for q in ratios)} | {statistics.median(ratios):.2f} | "
          f"{', '.join(f'{v:.3g}' for v in pk.values()) or '-'} |")
PY
