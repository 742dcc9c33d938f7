# Shared by the bench/run_*.sh scripts that build a CPU benchmark and compare
# it with pykeops 2.3 on one pinned core (sourced, not run).
#
#   bench_setup                 ROOT, BUILD (build/bench), VENV (build/bench-venv), REPS, CPU,
#                               PIN (taskset -c CPU, when there is taskset), OMP_NUM_THREADS=1
#   bench_build TARGET          configure build/bench (Release, CPU only) and build TARGET;
#                               BIN: the executable
#   bench_pykeops_venv          VENV with pykeops 2.3 (pip), unless SKIP_PYKEOPS=1
bench_setup() {
  ROOT=$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)
  cd "$ROOT"
  source "$ROOT/tools/cache.sh"  # ccache for the builds below (CMAKE_<LANG>_COMPILER_LAUNCHER)
  BUILD="$ROOT/build/bench"
  VENV="$ROOT/build/bench-venv"
  REPS=${REPS:-3}
  CPU=${CPU:-0}
  export OMP_NUM_THREADS=1
  PIN=()
  if command -v taskset >/dev/null 2>&1; then PIN=(taskset -c "$CPU"); fi
}

bench_build() {
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKOPS_BUILD_BENCH=ON -DKOPS_BUILD_TESTS=OFF \
    -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_ENABLE_CUDA=OFF >"$BUILD.configure.log" 2>&1 ||
    { cat "$BUILD.configure.log"; exit 1; }
  cmake --build "$BUILD" --target "$1" -j "$(nproc)" >"$BUILD.build.log" 2>&1 || { tail -50 "$BUILD.build.log"; exit 1; }
  BIN=$(find "$BUILD" -name "$1" -type f -perm -u+x | head -1)
}

bench_pykeops_venv() {
  [[ "${SKIP_PYKEOPS:-0}" == 1 ]] && return 0
  if ! "$VENV/bin/python" -c 'import pykeops' >/dev/null 2>&1; then
    /usr/bin/python3 -m venv --system-site-packages "$VENV"
    "$VENV/bin/python" -m pip install -q pykeops==2.3 keopscore==2.3
  fi
}
