#!/usr/bin/env bash
# The GPU benchmark in one command, on a machine with an NVIDIA GPU: kops
# (bench_gpu) and pykeops 2.3 on the same data, 3-D Gaussian sum and its
# x-gradient, float32, N = M = 1e3 .. 1e6, both precision policies,
# GPU_1D / GPU_2D / auto, first-call and steady-state times.
#
#   bash bench/run_gpu.sh
#
# Environment knobs:
#   SIZES=1e3,1e4,1e5,1e6   N = M values; each size runs in its own bench_gpu process,
#                           so that every size shows a cold first call
#   REPS=5                  steady-state repetitions (best kept); MAX_S=10 caps the time per case
#   SKIP_PYKEOPS=1          kops only
#   WHEELS=<root>/.whl      folder with the pykeops-2.3 and keopscore-2.3 wheels (DESIGN.md:
#                           `python3 -m pip download --no-deps pykeops==2.3 keopscore==2.3 -d .whl`
#                           where the package registry is reachable, then carry .whl over);
#                           not needed when `import pykeops` already works
#   PYTHON=python3          the Python with numpy (and torch, if present: pykeops then runs on
#                           CUDA tensors; else on numpy arrays, copies included)
#   BOOST_INCLUDE=/usr/include   Boost headers (Hana), for the build without CMake
#   CUDA_ARCHS="80;90"      SASS targets
#
# Steps: (1) build bench_gpu in build/bench-gpu with CMake (top level, CUDA on,
# Kokkos off), or directly with nvcc when CMake or Boost's CMake files are missing;
# (2) bench_gpu per size -> build/bench-gpu/data (inputs + kops outputs) and
# gpu_results.csv; (3) pykeops_gpu.py on the same data (fresh KeOps build folder,
# so its first calls include the JIT); (4) the table -> stdout and
# build/bench-gpu/gpu_results.md (raw: gpu_results.csv, log: gpu_results.log).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/tools/cache.sh"  # ccache for the builds below (CMAKE_<LANG>_COMPILER_LAUNCHER)
BUILD="$ROOT/build/bench-gpu"
SIZES=${SIZES:-1e3,1e4,1e5,1e6}
REPS=${REPS:-5}
MAX_S=${MAX_S:-10}
WHEELS=${WHEELS:-$ROOT/.whl}
PYTHON=${PYTHON:-python3}
CUDA_ARCHS=${CUDA_ARCHS:-80;90}
mkdir -p "$BUILD"

if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
command -v nvcc >/dev/null 2>&1 || { echo "run_gpu.sh: nvcc not found (PATH, /usr/local/cuda/bin)" >&2; exit 1; }
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "run_gpu.sh: no NVIDIA GPU found (nvidia-smi -L): nothing to measure" >&2
  exit 1
fi

# ---- (1) build --------------------------------------------------------------
BIN="$BUILD/bench_gpu"
built=0
if command -v cmake >/dev/null 2>&1; then
  archs=""
  for a in ${CUDA_ARCHS//;/ }; do archs+="${archs:+;}${a}-real"; done
  echo "== configuring $BUILD/cmake (CUDA architectures $archs)"
  if cmake -S "$ROOT" -B "$BUILD/cmake" -DCMAKE_BUILD_TYPE=Release -DKOPS_BUILD_BENCH=ON -DKOPS_BUILD_TESTS=OFF \
       -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_ENABLE_KOKKOS=OFF -DKOPS_ENABLE_CUDA=ON -DKOPS_INSTALL=OFF \
       "-DCMAKE_CUDA_ARCHITECTURES=$archs" >"$BUILD/configure.log" 2>&1; then
    echo "== building bench_gpu"
    cmake --build "$BUILD/cmake" --target bench_gpu -j "$(nproc)" >"$BUILD/build.log" 2>&1 \
      || { tail -50 "$BUILD/build.log"; exit 1; }
    cp "$(find "$BUILD/cmake" -name bench_gpu -type f -perm -u+x | head -1)" "$BIN"
    built=1
  else
    echo "   (CMake configure failed, see $BUILD/configure.log: building with nvcc directly)"
  fi
fi
if [[ $built == 0 ]]; then
  BOOST_INCLUDE=${BOOST_INCLUDE:-/usr/include}
  [[ -f "$BOOST_INCLUDE/boost/hana.hpp" ]] || { echo "run_gpu.sh: Boost.Hana not found: set BOOST_INCLUDE" >&2; exit 1; }
  gencode=()
  for a in ${CUDA_ARCHS//;/ }; do gencode+=("-gencode" "arch=compute_${a},code=sm_${a}"); done
  echo "== nvcc bench/bench_gpu.cu (${gencode[*]})"
  inc=(-I "$ROOT/include")
  [[ "$BOOST_INCLUDE" == /usr/include ]] || inc+=(-isystem "$BOOST_INCLUDE")  # never re-order the system dirs
  nvcc -std=c++20 -O3 --expt-relaxed-constexpr "${gencode[@]}" "${inc[@]}" \
    "$ROOT/bench/bench_gpu.cu" -o "$BIN"
fi

# ---- (2) kops ---------------------------------------------------------------
DATA="$BUILD/data"; CSV="$BUILD/gpu_results.csv"; LOG="$BUILD/gpu_results.log"; MD="$BUILD/gpu_results.md"
rm -rf "$DATA"; rm -f "$CSV"; mkdir -p "$DATA"
{
  echo "== $(date -u '+%Y-%m-%d %H:%M UTC'); $(nvidia-smi -L | head -1); $(nvcc --version | grep release)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader || true
} | tee "$LOG"
status=0
for s in ${SIZES//,/ }; do
  echo "== $BIN --sizes $s --reps $REPS --max-seconds $MAX_S --dump $DATA --csv $CSV" | tee -a "$LOG"
  "$BIN" --sizes "$s" --reps "$REPS" --max-seconds "$MAX_S" --dump "$DATA" --csv "$CSV" 2>&1 | tee -a "$LOG" \
    || status=1
done

# ---- (3) pykeops ------------------------------------------------------------
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  PYPATH=""
  if ! "$PYTHON" -c 'import pykeops, keopscore; assert pykeops.__version__.startswith("2.3")' >/dev/null 2>&1; then
    shopt -s nullglob
    wheels=("$WHEELS"/pykeops-2.3*.whl "$WHEELS"/keopscore-2.3*.whl)
    shopt -u nullglob
    if [[ ${#wheels[@]} -ge 2 ]]; then
      echo "== installing ${wheels[*]##*/} into $BUILD/pykeops-site" | tee -a "$LOG"
      if "$PYTHON" -m pip install -q --no-index --no-deps --upgrade --target "$BUILD/pykeops-site" "${wheels[@]}"; then
        PYPATH="$BUILD/pykeops-site"
      else
        echo "== pip install failed: pykeops rows skipped" | tee -a "$LOG"
        SKIP_PYKEOPS=1
      fi
    else
      echo "== pykeops 2.3 not importable and no wheels in $WHEELS: pykeops rows skipped" | tee -a "$LOG"
      SKIP_PYKEOPS=1
    fi
  fi
fi
if [[ "${SKIP_PYKEOPS:-0}" != 1 ]]; then
  sizes_int=$("$PYTHON" -c "print(','.join(str(int(float(s))) for s in '$SIZES'.split(',')))")
  echo "== pykeops_gpu.py --data $DATA --sizes $sizes_int (fresh KeOps build folder)" | tee -a "$LOG"
  PYTHONPATH="$PYPATH${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" "$ROOT/bench/pykeops_gpu.py" --data "$DATA" \
    --sizes "$sizes_int" --reps "$REPS" --max-seconds "$MAX_S" --csv "$CSV" \
    --build-folder "$(mktemp -d "$BUILD/keops-build.XXXXXX")" 2>&1 | tee -a "$LOG" \
    || echo "== pykeops_gpu.py failed (see above); the table has kops rows only" | tee -a "$LOG"
fi

# ---- (4) table --------------------------------------------------------------
{
  echo "3-D Gaussian sum and x-gradient, float32 ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nvcc --version | grep -o 'release [0-9.]*'))"
  echo
  "$PYTHON" "$ROOT/bench/pykeops_gpu.py" --table "$CSV"
} > "$MD"
echo
cat "$MD"
echo
echo "(table: $MD; raw: $CSV; log: $LOG)"
exit "$status"
