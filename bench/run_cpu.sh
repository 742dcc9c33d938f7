#!/usr/bin/env bash
# The CPU benchmark, side by side in one run: kops vs the hand-written SIMD loops
# vs pykeops 2.3 (CPU), 3-D Gaussian sum, float32, one thread, same data.
#
#   bash bench/run_cpu.sh
#
# Environment knobs:
#   SIZES=10000,100000    N = M values
#   REPS=5                timed repetitions of the C++ implementations (best kept)
#   PYKEOPS_REPS=5        pykeops steady-state repetitions (best kept) ...
#   PYKEOPS_MAX_S=60      ... stopping once a size has spent this long (1e5: one call ~ 2.5 min)
#   CPU=0                 the core everything is pinned to (taskset -c)
#   SKIP_PYKEOPS=1        C++ only
#
# Steps: (1) Python venv build/bench-venv (--system-site-packages on Debian's
# /usr/bin/python3 for numpy) with pykeops==2.3 keopscore==2.3 from pip;
# (2) configure + build bench_cpu in build/bench (Release, -DKOPS_BUILD_BENCH=ON);
# (3) bench_cpu writes the data + its outputs to build/bench/data and times
# kops / hand / hand-libmvec; (4) pykeops_cpu.py reads the same data, times
# pykeops (cold first call included) and checks it against kops; (5) the table
# goes to stdout and build/bench/cpu_results.md (raw numbers: cpu_results.csv,
# full log: cpu_results.log).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/tools/cache.sh"  # ccache for the builds below (CMAKE_<LANG>_COMPILER_LAUNCHER)
BUILD="$ROOT/build/bench"
VENV="$ROOT/build/bench-venv"
SIZES=${SIZES:-10000,100000}
REPS=${REPS:-5}
PYKEOPS_REPS=${PYKEOPS_REPS:-5}
PYKEOPS_MAX_S=${PYKEOPS_MAX_S:-60}
CPU=${CPU:-0}
SYSPY=/usr/bin/python3

export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
PIN=()
if command -v taskset >/dev/null 2>&1; then PIN=(taskset -c "$CPU"); else echo "run_cpu.sh: no taskset; not pinned" >&2; fi

# ---- (1) Python side --------------------------------------------------------
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  if ! "$VENV/bin/python" -c 'import numpy, pykeops, keopscore; assert pykeops.__version__ == keopscore.__version__ == "2.3"' >/dev/null 2>&1; then
    if ! "$SYSPY" -c 'import venv, ensurepip' >/dev/null 2>&1; then
      echo "== installing python3-venv (apt)"
      SUDO=(); [[ $(id -u) == 0 ]] || SUDO=(sudo)
      "${SUDO[@]}" apt-get install -y python3-venv
    fi
    echo "== creating $VENV with pykeops==2.3 keopscore==2.3"
    "$SYSPY" -m venv --system-site-packages "$VENV"
    "$VENV/bin/python" -m pip install -q pykeops==2.3 keopscore==2.3
  fi
fi

# ---- (2) build --------------------------------------------------------------
if [[ -f "$ROOT/CMakeLists.txt" ]]; then
  # only what bench_cpu needs: no tests/examples/CUDA (faster, and independent of them)
  SRC="$ROOT"; EXTRA=(-DKOPS_BUILD_BENCH=ON -DKOPS_BUILD_TESTS=OFF -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_ENABLE_CUDA=OFF)
else   # top level not written yet: bench/ alone, hand loops only
  SRC="$ROOT/bench"; EXTRA=()
fi
echo "== configuring $BUILD from $SRC"
mkdir -p "$BUILD"   # its log is written before CMake makes the folder (a fresh clone has no build/)
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "${EXTRA[@]}" >"$BUILD/configure.log" 2>&1 \
  || { cat "$BUILD/configure.log"; exit 1; }
echo "== building bench_cpu"
cmake --build "$BUILD" --target bench_cpu -j "$(nproc)" >"$BUILD/build.log" 2>&1 \
  || { tail -50 "$BUILD/build.log"; exit 1; }
BIN=$(find "$BUILD" -name bench_cpu -type f -perm -u+x | head -1)
[[ -n "$BIN" ]] || { echo "run_cpu.sh: bench_cpu not found under $BUILD" >&2; exit 1; }
PENDING=()
if grep -rq 'KOPS_BENCH_HAVE_KOPS=0' "$BUILD" --include=flags.make 2>/dev/null; then PENDING=(--pending-kops); fi

# ---- (3) + (4) run ----------------------------------------------------------
DATA="$BUILD/data"; CSV="$BUILD/cpu_results.csv"; LOG="$BUILD/cpu_results.log"; MD="$BUILD/cpu_results.md"
rm -rf "$DATA"; rm -f "$CSV"; mkdir -p "$DATA"
{
  echo "== $(date -u '+%Y-%m-%d %H:%M UTC'); $(lscpu | sed -n 's/^Model name: *//p'); $(g++ --version | head -1); pinned: ${PIN[*]:-no}; OMP_NUM_THREADS=$OMP_NUM_THREADS"
  echo "== ${PIN[*]} $BIN --sizes $SIZES --reps $REPS --dump $DATA --csv $CSV"
} | tee "$LOG"
"${PIN[@]}" "$BIN" --sizes "$SIZES" --reps "$REPS" --dump "$DATA" --csv "$CSV" 2>&1 | tee -a "$LOG"
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  echo "== ${PIN[*]} $VENV/bin/python bench/pykeops_cpu.py (same data, fresh KeOps build folder)" | tee -a "$LOG"
  "${PIN[@]}" "$VENV/bin/python" "$ROOT/bench/pykeops_cpu.py" --data "$DATA" --sizes "$SIZES" \
    --reps "$PYKEOPS_REPS" --max-seconds "$PYKEOPS_MAX_S" --csv "$CSV" \
    --build-folder "$(mktemp -d "$BUILD/keops-build.XXXXXX")" 2>&1 | grep -v 'CUDA libraries not found' | tee -a "$LOG"
fi

# ---- (5) table --------------------------------------------------------------
{
  echo "3-D Gaussian sum, float32, one thread ($(lscpu | sed -n 's/^Model name: *//p'), $(g++ --version | head -1))"
  echo
  "$SYSPY" "$ROOT/bench/cpu_table.py" "$CSV" "${PENDING[@]}"
} > "$MD"
echo
cat "$MD"
echo
echo "(table: $MD; raw: $CSV; log: $LOG)"
