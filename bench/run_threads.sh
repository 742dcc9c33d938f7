#!/usr/bin/env bash
# kops on 1 and 2 threads (Kokkos 4.6 OpenMP, tools/kokkos4.sh) beside pykeops
# 2.3 on 2 OpenMP threads: the 3-D Gaussian sum, float32, at M = N = 1e5 and at
# M = 16, N = 1e7 (bench_threads.cpp, pykeops_threads.py). Same data for both.
#
#   bash bench/run_threads.sh          (REPS=5, PYKEOPS_REPS=3, SKIP_PYKEOPS=1: kops only)
#
# Output: build/bench-threads/threads.csv and the table on stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
source "$ROOT/tools/cache.sh"  # ccache for the builds below (CMAKE_<LANG>_COMPILER_LAUNCHER)
BUILD="$ROOT/build/bench-threads"
VENV="$ROOT/build/bench-venv"
REPS=${REPS:-5}
PYKEOPS_REPS=${PYKEOPS_REPS:-3}
mkdir -p "$BUILD"

prefix="$(bash tools/kokkos4.sh | tail -n 1)"
echo "== building bench_threads against $prefix"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKOPS_BUILD_BENCH=ON \
  -DKOPS_BUILD_TESTS=OFF -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_ENABLE_CUDA=OFF >"$BUILD/configure.log" 2>&1 \
  || { cat "$BUILD/configure.log"; exit 1; }
cmake --build "$BUILD" --target bench_threads -j "$(nproc)" >"$BUILD/build.log" 2>&1 \
  || { tail -50 "$BUILD/build.log"; exit 1; }
BIN=$(find "$BUILD" -name bench_threads -type f -perm -u+x | head -1)

export OMP_PROC_BIND=spread OMP_PLACES=threads
CSV="$BUILD/threads.csv"
echo "shape,M,N,impl,threads,seconds,pairs_per_s" >"$CSV"
rm -rf "$BUILD/data"; mkdir -p "$BUILD/data"
OMP_NUM_THREADS=1 "$BIN" --reps "$REPS" | sed 's/^\([a-z]*,[0-9]*,[0-9]*,\)/\1kops-/' >>"$CSV"
OMP_NUM_THREADS=2 "$BIN" --reps "$REPS" --dump "$BUILD/data" | sed 's/^\([a-z]*,[0-9]*,[0-9]*,\)/\1kops-/' >>"$CSV"
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  if ! "$VENV/bin/python" -c 'import pykeops' >/dev/null 2>&1; then
    /usr/bin/python3 -m venv --system-site-packages "$VENV"
    "$VENV/bin/python" -m pip install -q pykeops==2.3 keopscore==2.3
  fi
  # pykeops prints its own messages on stdout: keep the CSV lines only.
  OMP_NUM_THREADS=2 "$VENV/bin/python" "$ROOT/bench/pykeops_threads.py" --data "$BUILD/data" --reps "$PYKEOPS_REPS" \
    | tee "$BUILD/pykeops.log" | grep -E '^(square|few),' >>"$CSV"
fi
python3 - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {(r["shape"], r["impl"], r["threads"]): float(r["seconds"]) for r in rows}
print("| shape | M | N | impl | threads | seconds | pairs/s | 2 threads / 1 thread | vs pykeops (2 threads) |")
print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
for r in rows:
    key = (r["shape"], r["impl"])
    s1 = t.get((r["shape"], r["impl"], "1"))
    speed = f'{s1 / float(r["seconds"]):.2f}x' if r["threads"] == "2" and s1 else ""
    pk = t.get((r["shape"], "pykeops", "2"))
    vs = f'{pk / float(r["seconds"]):.1f}x' if pk and r["impl"] != "pykeops" and r["threads"] == "2" else ""
    print(f'| {r["shape"]} | {r["M"]} | {r["N"]} | {r["impl"]} | {r["threads"]} | {float(r["seconds"]):.4f} | '
          f'{float(r["pairs_per_s"]):.3g} | {speed} | {vs} |')
PY
