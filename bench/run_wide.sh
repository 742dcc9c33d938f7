#!/usr/bin/env bash
# Wide variables on the CPU, one core (taskset): the Gaussian sum at D = 784,
# M = N = 10^4 (M=, N= to change), and at D = 8 ... 3072 with M = N = 4000,
# kops with the sum over coordinates chunked
# (the default) and unchunked (KOPS_CPU_CHUNK_MIN_DIM past 784), the numpy/BLAS
# route (O(M N) memory; numpy from PyPI, whose wheel brings OpenBLAS, in
# build/blas-venv: Debian's numpy runs the reference BLAS) and pykeops 2.3
# (SKIP_PYKEOPS=1 to leave it out).
# Results: build/bench/wide.csv.
#
#   bash bench/run_wide.sh      (REPS=3 CPU=0 M=10000 N=10000)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_setup
export OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
M=${M:-10000}
N=${N:-10000}
bench_build bench_wide
wide=$BIN
bench_build bench_wide_unchunked
unchunked=$BIN
bench_pykeops_venv
BLAS_VENV="$ROOT/build/blas-venv"
if ! "$BLAS_VENV/bin/python" -c 'import numpy' >/dev/null 2>&1; then
  /usr/bin/python3 -m venv "$BLAS_VENV"
  "$BLAS_VENV/bin/python" -m pip install -q numpy
fi
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
CSV="$BUILD/wide.csv"
echo "impl,D,M,N,seconds,pairs_per_s,max_rel_err" | tee "$CSV"
"${PIN[@]}" "$wide" --m "$M" --n "$N" --reps "$REPS" --dump "$data" | tee -a "$CSV"
"${PIN[@]}" "$unchunked" --m "$M" --n "$N" --reps 1 | tee -a "$CSV"
# The gradient w.r.t. x (final chunks on the CPU), same data and sizes.
"${PIN[@]}" "$wide" --grad --m "$M" --n "$N" --reps "$REPS" | tee -a "$CSV"
# The dimension sweep at M = N = 4000, chunked and not.
"${PIN[@]}" "$wide" --sweep --m 4000 --n 4000 --reps "$REPS" | tee -a "$CSV"
"${PIN[@]}" "$unchunked" --sweep --m 4000 --n 4000 --reps "$REPS" | tee -a "$CSV"
"${PIN[@]}" "$BLAS_VENV/bin/python" "$ROOT/bench/wide_peers.py" --only blas --data "$data" --m "$M" --n "$N" \
  --reps "$REPS" | tee -a "$CSV"
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  "${PIN[@]}" "$VENV/bin/python" "$ROOT/bench/wide_peers.py" --only pykeops --data "$data" --m "$M" --n "$N" \
    --reps "$REPS" | tee -a "$CSV"
fi
