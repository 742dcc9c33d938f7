#!/usr/bin/env bash
# What CPU emulation cannot prove, on a machine with an NVIDIA GPU, in ONE
# command of under 9 minutes (a GPU slot of about 15 minutes, the machine's
# start included), with one markdown report; the scoreboard comes first, so
# that a later step's failure or the slot's end loses none of it:
#
#   1. nvidia-smi -L, nvcc --version, the GPU's compute capability
#   2. in the background from the start (nice'd): configure + build of the GPU
#      tests (Release, CUDA on, CMAKE_CUDA_ARCHITECTURES = the GPU's, Kokkos when
#      found): kops_cuda_tests, kops_embedded_cuda
#   3. meanwhile, in a build folder of its own: kops_peer only (bench/peer: the
#      harness and KeOps's generated kernels, from .whl/keops-src), then THE
#      SCOREBOARD: kops_peer --headline (kops::cuda::eval beside KeOps's own
#      kernels on every formula of bench/sass/cases.sh, float and double; at most
#      200 s, --deadline), its table and CSV written row by row to
#      $OUT/scoreboard.md and $OUT/scoreboard.csv (build/gpu_check/ without OUT);
#      then bench/peer/peers.py (at most 110 s): pykeops 2.3 end to end (numpy
#      arrays in a process without torch, then torch tensors), the hardware
#      limits (FP32 FMA, bf16 and TF32 matmuls, D2D copy) and PyTorch dense
#      (Gaussian sum, cdist + topk, SDPA) -> $OUT/peers.md, $OUT/peers.csv;
#      bench/peer/table.py's summary of both -> $OUT/summary.md
#   4. `ctest -L gpu` (the real GPU tests), once step 2's build is done
#   5. compute-sanitizer memcheck on kops_cuda_tests and on kops_peer (small
#      sizes), racecheck, synccheck, initcheck (subsets: SAN_* below), as far
#      as the budget goes
#   Not in the default set (GPU_CHECK_STEPS=example,bench,graphs): bash tools/example.sh
#   (the flagship; gaussian_sum_cuda directly when it fails), bash
#   bench/run_gpu.sh (kops vs pykeops 2.3 end to end), and bench_graphs
#   (bench/bench_graphs.cu: per-call overhead, eager against CUDA-graph
#   replay, at M = N = 1e3, 3e3, 1e4 -> $OUT/graphs.md).
#
#   bash tools/gpu_check.sh             # on the GPU machine
#   bash tools/gpu_check.sh --prepare   # first, where pip reaches PyPI (see below)
#   GPU_CHECK_EMULATE=1 bash tools/gpu_check.sh   # a dry run of the script's steps
#                     2-3 and graphs here, through kops::cuda_emulated (no GPU, no nvcc needed)
#
# Report: build/gpu_check/report.md (also copied to "$OUT/" when OUT is set,
# with the full logs in "$OUT/gpu_check_logs.tar.gz"). Every step runs under
# its own time limit (`timeout`) inside a total budget, and a failing step does
# not stop the later ones. Exit status: 0 when every step that ran passed;
# 1 when one failed or timed out; 77 when there is no GPU (after step 1);
# 2 for a usage error or a failed --prepare.
#
# --prepare (on a machine with network, before the GPU run) fills .whl/ (git
# ignores it), which the GPU machine cannot download:
#   .whl/pykeops-2.3-py3-none-any.whl, .whl/keopscore-2.3-py3-none-any.whl
#       PyPI has only sdists of 2.3: they are downloaded with
#       `python3 -m pip download --no-deps pykeops==2.3 keopscore==2.3 -d ...`
#       and turned into (pure-Python) wheels with `pip wheel --no-deps`
#   .whl/deps/  Boost.Hana and Catch2 v2 (header-only), with a minimal
#       BoostConfig.cmake: kops' CMake needs both and GPU images often lack them
#   .whl/keops-src/  KeOps's CUDA sources of the bench/sass formulas, generated
#       by keopscore 2.3 (bench/peer/keops_peer_gen.py): the GPU run needs no keopscore
# and then checks that the GPU run cannot fail on a missing file: builds
# kops_peer against kops::cuda_emulated from .whl/keops-src and runs it (every
# row must agree: the dry run), and compiles kops_peer for sm_90 with nvcc when
# nvcc is here (GPU_CHECK_PREPARE_BUILD=0 leaves both out). Build folders:
# build/gpu_check/prepare/{emulated,cuda}. Last, where the CUDA toolkit is
# here, pykeops 2.3's first GPU call as peers.py makes it, against a fake
# driver (bench/peer/fake_libcuda.py: one sm_90 device): KeOps's JIT must
# compile every case to a cubin (GPU_CHECK_PREPARE_JIT=0 leaves it out; log:
# build/gpu_check/prepare/pykeops-jit.log).
# On this workplace's device tool, carry it: run(command="bash tools/gpu_check.sh",
# carry=[".whl"]).
#
# Environment knobs:
#   GPU_CHECK_STEPS=all        all but example and bench; or a comma list of
#                              configure,build,peer_build,scoreboard,peers,ctest,memcheck,
#                              peer_memcheck,racecheck,synccheck,initcheck,example,bench,graphs
#                              (step 1 always runs; build pulls in configure; ctest,
#                              the sanitizers and the example pull in both;
#                              scoreboard and peer_memcheck pull in peer_build)
#   GPU_CHECK_TIME_LIMIT=520   total seconds for all steps (each also has its own cap)
#   GPU_CHECK_SCOREBOARD_ARGS="--headline --variants gauss3,gauss64,gauss256,gauss1024,argkmin8_d128"
#                              kops_peer's options (e.g. "--cases gauss3
#                              --types float"); --deadline, --csv, --md are added
#   GPU_CHECK_ARCH=90          CUDA architecture (default: the GPU's compute capability)
#   GPU_CHECK_KOKKOS=AUTO      ON / OFF / AUTO (ON when CMake finds Kokkos)
#   GPU_CHECK_BUILD_DIR=build/gpu_check/cmake
#   GPU_CHECK_SIZES=1e4,1e5,1e6  GPU_CHECK_REPS=3  GPU_CHECK_MAX_S=5   (bench/run_gpu.sh)
#   GPU_CHECK_CTEST_ALL=1      also run the ctest example.cuda_project (label gpu:
#                              installs kops, builds a consumer project; minutes)
#   GPU_CHECK_FORCE=1          go on past step 1 without a GPU (to test this script)
#   GPU_CHECK_EMULATE=1        no GPU: steps 2-3 only, kops_peer built against
#                              kops::cuda_emulated (small sizes) - the script's dry run
#   GPU_CHECK_USE_DEPS=1       use .whl/deps even where the system has Boost.Hana / Catch2
#   SAN_MEMCHECK, SAN_RACECHECK, SAN_SYNCCHECK, SAN_INITCHECK: the Catch2 test
#                              specs (one string; ',' = or, '~' = not)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2

WHL="$ROOT/.whl"
DEPS="$WHL/deps"
KEOPS_SRC="$WHL/keops-src"

# The cases of bench/sass/cases.sh, comma-separated (keops_peer_gen.py's --cases).
peer_cases() { sed -n 's/^  "\([a-z0-9_]*\)|.*/\1/p' "$ROOT/bench/sass/cases.sh" | paste -sd, -; }

# peer_cmake_args DIR CUDA ARCH: PEER_ARGS, the configure of a build folder
# for kops_peer alone (CUDA=ON: against kops::cuda for ARCH; OFF: against
# kops::cuda_emulated), with KeOps's sources from .whl/keops-src when prepared.
peer_cmake_args() {
  PEER_ARGS=(-S "$ROOT" -B "$1" -DCMAKE_BUILD_TYPE=Release "-DKOPS_ENABLE_CUDA=$2" -DKOPS_BUILD_TESTS=ON
             -DKOPS_ENABLE_KOKKOS=OFF -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_BUILD_BENCH=OFF -DKOPS_TEST_CONFORMANCE=OFF
             -DKOPS_TEST_DOC_SNIPPETS=OFF -DKOPS_TEST_STATIC=OFF -DKOPS_TEST_NATIVE=OFF
             "-DKOPS_UNIT_TEST_ONLY=/(none)_test[.]cpp\$" "-DKOPS_EMULATED_TEST_EXCLUDE=.*"
             "-DKOPS_PEER_WHEELS=$WHL")
  if [ "$2" = ON ]; then
    PEER_ARGS+=(-DKOPS_BUILD_EMULATED_GPU_TESTS=OFF "-DCMAKE_CUDA_ARCHITECTURES=$3-real"
                "-DKOPS_TEST_CUDA_ARCHITECTURES=$3-real")
  else
    PEER_ARGS+=(-DKOPS_BUILD_EMULATED_GPU_TESTS=ON)
  fi
  if [ -f "$KEOPS_SRC/status.txt" ] && [ "$(head -n 1 "$KEOPS_SRC/status.txt")" = ok ]; then
    PEER_ARGS+=("-DKOPS_PEER_KEOPS_DIR=$KEOPS_SRC")
  fi
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then PEER_ARGS+=(-G Ninja); fi
}

# --prepare's checks: the emulated dry run, then kops_peer compiled for sm_90.
prepare_builds() {
  local pb="$ROOT/build/gpu_check/prepare" jobs nvcc
  jobs=$(nproc 2>/dev/null || echo 2)
  local cache=()
  if [ -f "$ROOT/tools/cache.sh" ]; then
    # shellcheck disable=SC1091
    source "$ROOT/tools/cache.sh" >/dev/null && cache=("${KOPS_CCACHE_ARGS[@]}")
  fi
  echo "[prepare] dry run: kops_peer against kops::cuda_emulated -> $pb/emulated"
  peer_cmake_args "$pb/emulated" OFF 90
  nice -n 19 cmake "${PEER_ARGS[@]}" "${cache[@]}" >"$pb.emulated.configure.log" 2>&1 ||
    { tail -n 20 "$pb.emulated.configure.log" >&2; return 1; }
  nice -n 19 cmake --build "$pb/emulated" -j "$jobs" --target kops_peer_emulated
  nice -n 19 "$pb/emulated/tests/kops_peer_emulated" --csv "$pb/emulated/scoreboard.csv" \
    --md "$pb/emulated/scoreboard.md" | tail -n 3
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if [ ! -x "$nvcc" ]; then
    echo "[prepare] no nvcc here: kops_peer NOT compiled for sm_90 (the GPU run compiles it)"
    return 0
  fi
  echo "[prepare] kops_peer for sm_90 with $nvcc -> $pb/cuda"
  peer_cmake_args "$pb/cuda" ON 90
  PATH="$(dirname "$nvcc"):$PATH" nice -n 19 cmake "${PEER_ARGS[@]}" "${cache[@]}" >"$pb.cuda.configure.log" 2>&1 ||
    { tail -n 20 "$pb.cuda.configure.log" >&2; return 1; }
  PATH="$(dirname "$nvcc"):$PATH" nice -n 19 cmake --build "$pb/cuda" -j "$jobs" --target kops_peer
  [ -x "$pb/cuda/tests/kops_peer" ] || { echo "[prepare] no $pb/cuda/tests/kops_peer" >&2; return 1; }
  echo "[prepare] kops_peer compiled for sm_90: $pb/cuda/tests/kops_peer"
}

# pykeops 2.3's first GPU call, as peers.py makes it on the GPU machine (its
# environment, the numpy child), here against a fake driver that answers as one
# sm_90 device (bench/peer/fake_libcuda.py): KeOps's JIT must build its host
# modules and compile every case to a cubin, and stop at the module load.
prepare_jit_check() {
  local pj="$ROOT/build/gpu_check/prepare/pykeops-jit" venv="$ROOT/build/gpu_check/pykeops-jit-venv"
  local cuda=${CUDA_HOME:-/usr/local/cuda}
  if [ ! -f "$cuda/lib64/stubs/libcuda.so" ] || ! command -v gcc >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "[prepare] (pykeops JIT dry run left out: no $cuda/lib64/stubs/libcuda.so, gcc or nm here)"
    return 0
  fi
  echo "[prepare] pykeops 2.3's first GPU call through KeOps's JIT, against a fake driver -> $pj.log"
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q numpy pybind11
  rm -rf "$pj"
  mkdir -p "$pj"
  "$venv/bin/python" "$ROOT/bench/peer/fake_libcuda.py" "$pj/driver" --cuda "$cuda"
  if ! CUDA_HOME="$cuda" "$venv/bin/python" "$ROOT/bench/peer/peers.py" --jit-check "$pj/driver" --wheels "$WHL" \
         --work "$pj" >"$pj.log" 2>&1; then
    tail -n 40 "$pj.log" >&2
    echo "[prepare] pykeops's JIT did not get through (log: $pj.log)" >&2
    return 1
  fi
  echo "[prepare] $(tail -n 1 "$pj.log")"
}

# ------------------------------------------------------------ --prepare ----
prepare() {
  set -e
  local py=${PYTHON:-python3} tmp f
  echo "[prepare] pykeops 2.3 and keopscore 2.3 -> $WHL"
  mkdir -p "$WHL"
  tmp=$(mktemp -d)
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  "$py" -m pip download --no-deps pykeops==2.3 keopscore==2.3 -d "$tmp/dl"
  # One version of each package in .whl: two would stop the install there.
  rm -f "$WHL"/pykeops-*.whl "$WHL"/keopscore-*.whl
  for f in "$tmp"/dl/*; do
    case "$f" in
      *.whl) cp "$f" "$WHL/" ;;
      *) echo "[prepare] building a wheel of ${f##*/} (pure Python)"
         "$py" -m pip wheel -q --no-deps -w "$WHL" "$f" ;;
    esac
  done
  for p in pykeops keopscore; do
    ls "$WHL"/$p-2.3-*.whl >/dev/null 2>&1 || { echo "[prepare] no $p-2.3 wheel in $WHL" >&2; return 1; }
  done

  echo "[prepare] Boost.Hana and Catch2 v2 headers -> $DEPS"
  local inc="" d
  for d in ${BOOST_INCLUDE:-} /usr/include /usr/local/include; do
    if [ -f "$d/boost/hana.hpp" ] && [ -f "$d/boost/version.hpp" ]; then inc=$d; break; fi
  done
  [ -n "$inc" ] || { echo "[prepare] Boost.Hana not found here (apt-get install libboost-dev; or BOOST_INCLUDE=...)" >&2; return 1; }
  local cinc=""
  for d in ${CATCH2_INCLUDE:-} /usr/include /usr/local/include; do
    if [ -f "$d/catch2/catch.hpp" ]; then cinc=$d; break; fi
  done
  [ -n "$cinc" ] || { echo "[prepare] Catch2 v2 (catch2/catch.hpp) not found here (apt-get install catch2; or CATCH2_INCLUDE=...)" >&2; return 1; }
  rm -rf "$DEPS"
  mkdir -p "$DEPS/include/boost" "$DEPS/include/catch2"
  cp -r "$inc/boost/hana" "$inc/boost/hana.hpp" "$inc/boost/version.hpp" "$DEPS/include/boost/"
  cp "$cinc/catch2/catch.hpp" "$DEPS/include/catch2/"
  # Hana needs no other Boost header: check that kops and Hana, included with
  # the copy first on the path, read no Boost header from outside it.
  if command -v g++ >/dev/null 2>&1; then
    if printf '#include <boost/hana.hpp>\n#include <kops/kops.hpp>\n' |
         g++ -std=c++20 -x c++ -M -I "$DEPS/include" -I "$ROOT/include" - >"$tmp/deps.d" 2>"$tmp/deps.err"; then
      local outside
      outside=$(tr ' ' '\n' <"$tmp/deps.d" | tr -d '\134' | grep '/boost/' | grep -v "^$DEPS/" || true)
      if [ -n "$outside" ]; then
        echo "[prepare] Boost headers missing from $DEPS/include:" >&2; echo "$outside" >&2; return 1
      fi
    else
      echo "[prepare] (note: could not check that the copied headers suffice: g++ -M failed: $(head -c 300 "$tmp/deps.err"))"
    fi
  fi
  local ver major minor patch
  ver=$(sed -n 's/^#define BOOST_VERSION \([0-9]*\).*/\1/p' "$inc/boost/version.hpp")
  major=$((ver / 100000)); minor=$((ver / 100 % 1000)); patch=$((ver % 100))
  local cdir="$DEPS/lib/cmake/Boost-$major.$minor.$patch"
  mkdir -p "$cdir"
  cat >"$cdir/BoostConfig.cmake" <<EOF
# Written by tools/gpu_check.sh --prepare: the header-only part of Boost that
# kops needs (Boost.Hana), for a machine without Boost. Boost::headers only.
get_filename_component(_kops_boost_inc "\${CMAKE_CURRENT_LIST_DIR}/../../../include" ABSOLUTE)
set(Boost_VERSION "$major.$minor.$patch")
set(Boost_VERSION_STRING "$major.$minor.$patch")
set(Boost_VERSION_MAJOR $major)
set(Boost_VERSION_MINOR $minor)
set(Boost_VERSION_PATCH $patch)
set(Boost_INCLUDE_DIRS "\${_kops_boost_inc}")
set(Boost_INCLUDE_DIR "\${_kops_boost_inc}")
set(Boost_FOUND TRUE)
if(NOT TARGET Boost::headers)
  add_library(Boost::headers INTERFACE IMPORTED)
  set_target_properties(Boost::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "\${_kops_boost_inc}")
endif()
if(NOT TARGET Boost::boost)
  add_library(Boost::boost INTERFACE IMPORTED)
  set_target_properties(Boost::boost PROPERTIES INTERFACE_LINK_LIBRARIES Boost::headers)
endif()
unset(_kops_boost_inc)
EOF
  cat >"$cdir/BoostConfigVersion.cmake" <<EOF
# Written by tools/gpu_check.sh --prepare.
set(PACKAGE_VERSION "$major.$minor.$patch")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
EOF

  echo "[prepare] KeOps's CUDA sources (keopscore 2.3) -> $KEOPS_SRC"
  rm -rf "$KEOPS_SRC"
  "$py" "$ROOT/bench/peer/keops_peer_gen.py" "$KEOPS_SRC" --cases "$(peer_cases)" \
    --venv "$ROOT/build/gpu_check/keopscore-venv" --wheels "$WHL"
  if [ "$(head -n 1 "$KEOPS_SRC/status.txt")" != ok ]; then
    echo "[prepare] keopscore 2.3 could not generate KeOps's sources: $(cat "$KEOPS_SRC/status.txt")" >&2; return 1
  fi
  if [ "${GPU_CHECK_PREPARE_BUILD:-1}" != 0 ]; then prepare_builds; fi
  if [ "${GPU_CHECK_PREPARE_JIT:-1}" != 0 ]; then prepare_jit_check; fi

  # .whl must stay out of git (and travel only when carried).
  if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    if ! git -C "$ROOT" check-ignore -q "$WHL/x.whl"; then
      echo "[prepare] WARNING: .whl/ is not ignored by git: add '/.whl/' to .gitignore" >&2
    fi
    if [ -n "$(git -C "$ROOT" ls-files -- .whl)" ]; then
      echo "[prepare] WARNING: files under .whl/ are tracked by git" >&2
    fi
  fi
  echo "[prepare] done:"
  (cd "$WHL" && ls -1 ./*.whl && du -sh deps keops-src && du -sh .)
  echo "[prepare] on the GPU machine run, from the repository root, with .whl carried along:"
  echo "            bash tools/gpu_check.sh"
  echo "          (device tool: run(command=\"bash tools/gpu_check.sh\", carry=[\".whl\"], timeout_s=600))"
}

case "${1:-}" in
  --prepare) (prepare); rc=$?; [ "$rc" = 0 ] || echo "[prepare] FAILED (exit $rc)" >&2; [ "$rc" = 0 ] && exit 0; exit 2 ;;
  -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) echo "usage: bash tools/gpu_check.sh [--prepare|--help]" >&2; exit 2 ;;
esac

# ----------------------------------------------------------- the run -------
GC="$ROOT/build/gpu_check"
LOGS="$GC/logs"
REPORT="$GC/report.md"
BUILD_DIR=${GPU_CHECK_BUILD_DIR:-$GC/cmake}
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
TIME_LIMIT=${GPU_CHECK_TIME_LIMIT:-520}
STEPS=${GPU_CHECK_STEPS:-all}
SIZES=${GPU_CHECK_SIZES:-1e4,1e5,1e6}
REPS=${GPU_CHECK_REPS:-3}
MAX_S=${GPU_CHECK_MAX_S:-5}
KOKKOS_MODE=$(echo "${GPU_CHECK_KOKKOS:-AUTO}" | tr '[:lower:]' '[:upper:]')
JOBS=$(nproc 2>/dev/null || echo 4)
PYTHON=${PYTHON:-python3}

# compute-sanitizer subsets (Catch2 v2 test specs, one string: ',' = or,
# '~' = not; the [large] and [accuracy] tests, 4.9e9 pairs and N = 1e7, are
# left out everywhere):
#   memcheck : every reduction on small sizes (up to 1023 x 1000; 6 backend
#              configurations), solve, the error paths, output hygiene, bad input
#   racecheck: the GPU_2D plan and combine tests and the small-size reductions
#              (the agreement tests' sizes, up to 4097 x 4097, took racecheck 32 s
#              for one of their 12 sections on an H100, 2026-11-25)
#   synccheck: the racecheck subset and the small-size reductions
#   initcheck: the small-size reductions (padding, value_index outputs), hygiene, solve
#   and all four: the wide-variable tests ([wide]: the staged chunk loop's barriers and
#              shared buffer, output chunks; 37 x 53 points)
SAN_MEMCHECK=${SAN_MEMCHECK:-"[wide],[reductions]~[large],[solve],[errors],[hygiene],[bad_input]~[large]~[accuracy]"}
SAN_RACECHECK=${SAN_RACECHECK:-"[wide],[schemes],[reductions]~[large]"}
SAN_SYNCCHECK=${SAN_SYNCCHECK:-"[wide],[agreement]~[large]~[precision],[schemes],[reductions]~[large]"}
SAN_INITCHECK=${SAN_INITCHECK:-"[wide],[reductions]~[large],[hygiene],[solve]"}

# Steps in order, each with its cap (s) and the least time worth starting it with (s).
# configure and build run in the background, beside peer_build and the
# scoreboard (their caps count from the start); the others in turn.
ORDER=(configure build peer_build scoreboard peers ctest memcheck peer_memcheck racecheck synccheck initcheck
       example example_direct bench graphs)
DEFAULT_STEPS="configure build peer_build scoreboard peers ctest memcheck peer_memcheck racecheck synccheck initcheck"
declare -A CAP=([configure]=90 [build]=300 [peer_build]=150 [scoreboard]=200 [peers]=110 [ctest]=120 [memcheck]=50
                [peer_memcheck]=40 [racecheck]=60 [synccheck]=40 [initcheck]=40 [example]=60
                [example_direct]=40 [bench]=240 [graphs]=240)
declare -A MINT=([configure]=0 [build]=0 [peer_build]=30 [scoreboard]=60 [peers]=20 [ctest]=20 [memcheck]=20
                 [peer_memcheck]=15 [racecheck]=20 [synccheck]=15 [initcheck]=15 [example]=15
                 [example_direct]=10 [bench]=60 [graphs]=60)
declare -A TITLE=([configure]="2. configure (CMake; background)" [build]="2. build (background)"
                  [peer_build]="3. build kops_peer" [scoreboard]="3. scoreboard: kops vs KeOps's kernels"
                  [peers]="3. scoreboard: limits, PyTorch, pykeops (bench/peer/peers.py)"
                  [ctest]="4. ctest -L gpu"
                  [memcheck]="5. compute-sanitizer memcheck" [peer_memcheck]="5. compute-sanitizer memcheck, kops_peer"
                  [racecheck]="5. compute-sanitizer racecheck"
                  [synccheck]="5. compute-sanitizer synccheck" [initcheck]="5. compute-sanitizer initcheck"
                  [example]="6. tools/example.sh" [example_direct]="6. gaussian_sum_cuda, run directly"
                  [bench]="7. bench/run_gpu.sh" [graphs]="8. bench_graphs: eager against graph replay")
declare -A SEL=()
if [ "$STEPS" = all ]; then STEPS=${DEFAULT_STEPS// /,}; fi
for k in ${STEPS//,/ }; do
  if [ -z "${CAP[$k]:-}" ]; then echo "gpu_check.sh: unknown step '$k' in GPU_CHECK_STEPS" >&2; exit 2; fi
  SEL[$k]=1
done
for k in ctest memcheck racecheck synccheck initcheck example; do
  if [ -n "${SEL[$k]:-}" ]; then SEL[build]=1; fi
done
if [ -n "${SEL[build]:-}" ]; then SEL[configure]=1; fi
if [ -n "${SEL[scoreboard]:-}" ] || [ -n "${SEL[peer_memcheck]:-}" ]; then SEL[peer_build]=1; fi
if [ -n "${SEL[example]:-}" ]; then SEL[example_direct]=1; fi
EMULATE=${GPU_CHECK_EMULATE:-0}
if [ "$EMULATE" = 1 ]; then
  # The dry run: no GPU, no nvcc; the scoreboard through kops::cuda_emulated.
  for k in "${ORDER[@]}"; do
    case $k in peer_build|scoreboard|peers|graphs) ;; *) unset "SEL[$k]" ;; esac
  done
  SEL[peer_build]=1; SEL[scoreboard]=1; SEL[peers]=1; SEL[graphs]=1
fi

mkdir -p "$LOGS" || exit 2
rm -f "$LOGS"/*.log "$REPORT"
T0=$(date +%s)
now() { date +%s; }
elapsed() { echo $(( $(now) - T0 )); }

SUM_NAME=(); SUM_STATUS=(); SUM_SECS=(); SUM_NOTE=()

copy_out() {
  if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT" 2>/dev/null && cp -f "$REPORT" "$OUT/report.md" 2>/dev/null
  fi
  return 0
}

# The lines of a log worth reading, in their order: all of a short log; else
# those matching $2 (the first 40) and the last $3, with […] at each gap.
key_lines() {
  local log=$1 re=$2 tailn=$3 n
  n=$(wc -l <"$log")
  if [ "$n" -le 60 ]; then
    cat "$log"
  else
    awk 'NR == FNR { keep[$1] = 1; next }
         FNR in keep { if (last && FNR != last + 1) print "[…]"; print; last = FNR }' \
      <( { if [ -n "$re" ]; then grep -a -n -E -- "$re" "$log" | head -n 40 | cut -d: -f1; fi
           seq $((n > tailn ? n - tailn + 1 : 1)) "$n"; } | sort -n -u ) "$log"
  fi | sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/```/'"'''"'/g' | cut -c1-300
}

# Seconds step $1 may take: its cap, less what the selected steps after it need at least.
step_limit() {
  local key=$1 after=0 seen=0 k
  for k in "${ORDER[@]}"; do
    if [ "$seen" = 1 ] && [ -n "${SEL[$k]:-}" ]; then after=$((after + MINT[$k])); fi
    if [ "$k" = "$key" ]; then seen=1; fi
  done
  local left=$((TIME_LIMIT - $(elapsed) - after))
  if [ "$left" -gt "${CAP[$key]}" ]; then left=${CAP[$key]}; fi
  echo "$left"
}

# run_step KEY -- CMD...: CMD under `timeout` (its limit from step_limit), output
# to $LOGS/KEY.log. Sets LOG RC DUR LIMIT STATUS (pass/fail/timeout/skipped) NOTE,
# and clears EXTRA (text for the report after the key lines).
run_step() {
  local key=$1
  shift 2
  LOG="$LOGS/$key.log"; RC="-"; DUR=0; STATUS=""; NOTE=""; EXTRA=""
  LIMIT=$(step_limit "$key")
  if [ "$LIMIT" -lt "${MINT[$key]}" ]; then
    STATUS=skipped; NOTE="out of time (${LIMIT}s left for it of the ${TIME_LIMIT}s budget)"
    return 0
  fi
  echo "[gpu_check] $(elapsed)s: ${TITLE[$key]} (limit ${LIMIT}s)"
  local t1; t1=$(now)
  timeout -k 10 "$LIMIT" "$@" >"$LOG" 2>&1 </dev/null
  RC=$?
  DUR=$(( $(now) - t1 ))
  case "$RC" in
    0) STATUS=pass ;;
    124|137) STATUS=timeout; NOTE="stopped at its ${LIMIT}s limit" ;;
    *) STATUS=fail ;;
  esac
}

# report_step NAME DISPLAY KEYRE TAILN: the step's section and summary row.
report_step() {
  local name=$1 display=$2 keyre=$3 tailn=$4
  {
    echo
    echo "## $name"
    echo
    echo "- command: \`$display\`"
    if [ "$STATUS" = skipped ]; then
      echo "- status: **skipped**: $NOTE"
    else
      echo "- exit status: $RC · duration: ${DUR}s$([ "$LIMIT" != - ] && echo " (limit ${LIMIT}s)") · status: **$STATUS**${NOTE:+ ($NOTE)}"
      echo "- log: \`${LOG#"$ROOT"/}\`"
      echo
      echo '```text'
      key_lines "$LOG" "$keyre" "$tailn"
      echo '```'
      if [ -n "$EXTRA" ]; then echo; printf '%s\n' "$EXTRA"; fi
    fi
  } >>"$REPORT"
  echo "[gpu_check] $(elapsed)s: $name: $STATUS${NOTE:+ ($NOTE)}"
  SUM_NAME+=("$name"); SUM_STATUS+=("$STATUS"); SUM_SECS+=("$DUR"); SUM_NOTE+=("$NOTE")
  copy_out
}

skip_row() {  # skip_row NAME REASON
  { echo; echo "## $1"; echo; echo "- status: **skipped**: $2"; } >>"$REPORT"
  echo "[gpu_check] $1: skipped ($2)"
  SUM_NAME+=("$1"); SUM_STATUS+=(skipped); SUM_SECS+=(0); SUM_NOTE+=("$2")
  copy_out
}

finish() {  # finish EXIT_CODE VERDICT
  local code=$1 verdict=$2 i f
  {
    echo
    echo "## Summary"
    echo
    echo "| step | status | seconds | note |"
    echo "| --- | --- | --- | --- |"
    for i in "${!SUM_NAME[@]}"; do
      echo "| ${SUM_NAME[$i]} | ${SUM_STATUS[$i]} | ${SUM_SECS[$i]} | ${SUM_NOTE[$i]//|/\\|} |"
    done
    echo
    echo "**Result: $verdict** (exit status $code; $(elapsed)s in all, budget ${TIME_LIMIT}s)"
  } >>"$REPORT"
  copy_out
  if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
    local files=("${LOGS#"$ROOT"/}" "${REPORT#"$ROOT"/}")
    for f in build/bench-gpu/gpu_results.md build/bench-gpu/gpu_results.csv build/bench-gpu/gpu_results.log \
             build/gpu_check/scoreboard.md build/gpu_check/scoreboard.csv \
             build/gpu_check/peers.md build/gpu_check/peers.csv build/gpu_check/summary.md; do
      [ -f "$ROOT/$f" ] && files+=("$f")
    done
    tar -czf "$OUT/gpu_check_logs.tar.gz" -C "$ROOT" "${files[@]}" 2>/dev/null
  fi
  echo
  sed -n '/^## Summary/,$p' "$REPORT"
  echo
  echo "[gpu_check] report: $REPORT"
  if [ -n "${OUT:-}" ]; then echo "[gpu_check] copied to $OUT/report.md; logs: $OUT/gpu_check_logs.tar.gz"; fi
  exit "$code"
}
trap 'echo "[gpu_check] interrupted" >&2; SUM_NAME+=("(interrupted)"); SUM_STATUS+=(fail); SUM_SECS+=("$(elapsed)"); SUM_NOTE+=(signal); finish 1 "FAIL (interrupted)"' INT TERM

# ------------------------------------------------------- report header ----
{
  echo "# kops GPU check"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC') · host: $(hostname 2>/dev/null || echo '?') · $(uname -srm)"
  if git -C "$ROOT" rev-parse --short HEAD >/dev/null 2>&1; then
    dirty=""
    [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)" ] && dirty=" + uncommitted changes"
    echo "- tree: $(git -C "$ROOT" rev-parse --short HEAD)$dirty"
  else
    echo "- tree: a copy without git metadata"
  fi
  echo "- command: \`bash tools/gpu_check.sh\` (steps: $STEPS; time budget ${TIME_LIMIT}s; $JOBS CPU cores)"
  echo "- full logs: \`build/gpu_check/logs/\`${OUT:+ (also in gpu_check_logs.tar.gz beside this report)}"
  echo "- statuses: pass, fail, timeout (stopped at its limit: counts as a failure), skipped (not run: the note says why)"
} >"$REPORT"

# -------------------------------------------------------------- step 1 ----
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
NVCC=$(command -v nvcc || true)
CS=$(command -v compute-sanitizer || true)
for c in ${NVCC:+"$(dirname "$NVCC")/compute-sanitizer"} /usr/local/cuda/bin/compute-sanitizer \
         /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  if [ -z "$CS" ] && [ -x "$c" ]; then CS=$c; fi
done

t1=$(now)
LOG="$LOGS/info.log"
HAVE_GPU=0; CC=""; ARCH=""
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then HAVE_GPU=1; fi
if [ "$HAVE_GPU" = 1 ]; then
  CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' \r')
  if ! [[ "$CC" =~ ^[0-9]+\.[0-9]+$ ]] && [ -n "$NVCC" ] && [ -x "$(dirname "$NVCC")/__nvcc_device_query" ]; then
    q=$("$(dirname "$NVCC")/__nvcc_device_query" 2>/dev/null | tr -d ' \r')
    if [[ "$q" =~ ^[0-9]+$ ]]; then CC="${q:0:${#q}-1}.${q: -1}"; fi
  fi
fi
if [[ "$CC" =~ ^[0-9]+\.[0-9]+$ ]]; then ARCH="${CC/./}"; fi
ARCH=${GPU_CHECK_ARCH:-${ARCH:-90}}

# What the build needs and GPU images may lack (Boost.Hana, Catch2 v2): the
# copies of --prepare in .whl/deps, when the system has none.
has_header() { local d; for d in /usr/include /usr/local/include; do [ -f "$d/$1" ] && return 0; done; return 1; }
DEPS_NOTE=""; CATCH_ARG=""; USE_DEPS=0
if [ "${GPU_CHECK_USE_DEPS:-0}" = 1 ] || ! has_header boost/hana.hpp; then
  if [ -f "$DEPS/include/boost/hana.hpp" ]; then
    export Boost_ROOT="$DEPS" BOOST_INCLUDE="$DEPS/include"   # CMake's find_package; bench/run_gpu.sh's nvcc
    USE_DEPS=1
    DEPS_NOTE+="Boost.Hana: .whl/deps; "
  else
    DEPS_NOTE+="Boost.Hana: MISSING (run --prepare where pip works, carry .whl); "
  fi
else
  DEPS_NOTE+="Boost.Hana: system; "
fi
if [ "${GPU_CHECK_USE_DEPS:-0}" = 1 ] || ! has_header catch2/catch.hpp; then
  if [ -f "$DEPS/include/catch2/catch.hpp" ]; then
    CATCH_ARG="-DKOPS_CATCH2_INCLUDE_DIR=$DEPS/include"
    USE_DEPS=1
    DEPS_NOTE+="Catch2 v2: .whl/deps"
  else
    DEPS_NOTE+="Catch2 v2: no catch2/catch.hpp (run --prepare, carry .whl)"
  fi
else
  DEPS_NOTE+="Catch2 v2: system"
fi
# ... and for the CMake runs of tools/example.sh and bench/run_gpu.sh too.
if [ "$USE_DEPS" = 1 ]; then
  export CMAKE_PREFIX_PATH="$DEPS${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
fi
WHEELS_OK=0
if compgen -G "$WHL/pykeops-2.3*.whl" >/dev/null && compgen -G "$WHL/keopscore-2.3*.whl" >/dev/null; then WHEELS_OK=1; fi
{
  echo "\$ nvidia-smi -L"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>&1; echo "(exit $?)"
    echo "\$ nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm --format=csv,noheader"
    nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
  else
    echo "nvidia-smi: not found"
  fi
  echo "compute capability: ${CC:-unknown} -> CMAKE_CUDA_ARCHITECTURES=${ARCH}-real"
  echo "\$ nvcc --version"
  if [ -n "$NVCC" ]; then "$NVCC" --version 2>&1 | tail -n 3; else echo "nvcc: not found (PATH, /usr/local/cuda/bin)"; fi
  echo "\$ compute-sanitizer --version"
  if [ -n "$CS" ]; then "$CS" --version 2>&1 | head -n 2; else echo "compute-sanitizer: not found (PATH, /usr/local/cuda/bin)"; fi
  echo "\$ cmake --version; ninja --version; c++ --version; $PYTHON --version"
  cmake --version 2>&1 | head -n 1
  echo "ninja $(ninja --version 2>/dev/null || echo 'not found')"
  c++ --version 2>&1 | head -n 1
  "$PYTHON" --version 2>&1
  echo "headers: $DEPS_NOTE"
  echo "pykeops wheels: $( (cd "$WHL" 2>/dev/null && ls -1 ./*.whl 2>/dev/null) | tr '\n' ' ')$([ "$WHEELS_OK" = 1 ] || echo '(none: pykeops will be skipped)')"
} >"$LOG" 2>&1
DUR=$(( $(now) - t1 )); RC=0; LIMIT="-"; NOTE=""; EXTRA=""; STATUS=pass
if [ "$HAVE_GPU" != 1 ]; then
  NOTE="NO NVIDIA GPU: nvidia-smi -L lists none"
elif [ -z "$NVCC" ]; then
  STATUS=fail; NOTE="nvcc not found: nothing can be built"
else
  NOTE="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), compute capability ${CC:-?}"
fi
report_step "1. GPU and tools" \
  "nvidia-smi -L; nvidia-smi --query-gpu=name,compute_cap,... ; nvcc --version; compute-sanitizer --version" "" 200
if [ "$HAVE_GPU" != 1 ]; then
  {
    echo
    echo "**No NVIDIA GPU on this machine** (\`nvidia-smi -L\` lists none): steps 2 to 5 need one."
    echo "Run this script where there is one (docs/cuda.md, \"On a GPU: tools/gpu_check.sh\")."
  } >>"$REPORT"
  if [ "${GPU_CHECK_FORCE:-0}" != 1 ] && [ "$EMULATE" != 1 ]; then
    for k in "${ORDER[@]}"; do
      if [ -n "${SEL[$k]:-}" ] && [ "$k" != example_direct ]; then skip_row "${TITLE[$k]}" "no GPU"; fi
    done
    finish 77 "NO GPU (exit 77: nothing on the GPU was checked)"
  fi
  if [ "$EMULATE" = 1 ]; then
    echo "- GPU_CHECK_EMULATE=1: the dry run: kops_peer against kops::cuda_emulated (timings are not GPU timings)." >>"$REPORT"
  else
    echo "- GPU_CHECK_FORCE=1: going on without a GPU (a test of this script: the GPU steps fail or skip)." >>"$REPORT"
  fi
fi

# --------------------------------------------------------- step bodies ----
GC_PREBUILD_BENCH=0
if [ -n "${SEL[bench]:-}" ]; then GC_PREBUILD_BENCH=1; fi
PEER_DIR="$GC/peer"
if [ "$EMULATE" = 1 ]; then PEER_DIR="$GC/peer-emulated"; fi
SB_DIR=${OUT:-$GC}
export ROOT BUILD_DIR ARCH JOBS KOKKOS_MODE GC NVCC CATCH_ARG GC_PREBUILD_BENCH PEER_DIR WHL KEOPS_SRC EMULATE

# kops_peer alone, in its own build folder (the scoreboard must not wait for
# the test suite's compile); emulated in the dry run.
# shellcheck disable=SC2317
gc_peer_build() {
  local cuda=ON target=kops_peer
  if [ "$EMULATE" = 1 ]; then cuda=OFF; target=kops_peer_emulated; fi
  peer_cmake_args "$PEER_DIR" "$cuda" "$ARCH"
  if [ -n "$CATCH_ARG" ]; then PEER_ARGS+=("$CATCH_ARG"); fi
  echo "+ cmake ${PEER_ARGS[*]}"
  cmake "${PEER_ARGS[@]}" || return $?
  echo "+ cmake --build $PEER_DIR -j $JOBS --target $target"
  cmake --build "$PEER_DIR" -j "$JOBS" --target "$target"
}

# Configure with Kokkos (and the examples) when CMake finds it, else without
# both (the examples' CPU targets link kops::kokkos). Run through `bash -c`.
# shellcheck disable=SC2317
gc_configure() {
  local common=(-S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DKOPS_ENABLE_CUDA=ON
                "-DCMAKE_CUDA_ARCHITECTURES=${ARCH}-real" "-DKOPS_TEST_CUDA_ARCHITECTURES=${ARCH}-real"
                -DKOPS_BUILD_TESTS=ON -DKOPS_BUILD_EMULATED_GPU_TESTS=OFF -DKOPS_BUILD_BENCH=OFF)
  if [ -n "$CATCH_ARG" ]; then common+=("$CATCH_ARG"); fi
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then common+=(-G Ninja); fi
  local rc
  if [ "$KOKKOS_MODE" != OFF ]; then
    echo "+ cmake ${common[*]} -DKOPS_ENABLE_KOKKOS=ON -DKOPS_BUILD_EXAMPLES=ON"
    cmake "${common[@]}" -DKOPS_ENABLE_KOKKOS=ON -DKOPS_BUILD_EXAMPLES=ON 2>&1 | tee "$GC/configure.out"
    rc=${PIPESTATUS[0]}
    if [ "$rc" = 0 ] || [ "$KOKKOS_MODE" = ON ] || ! grep -q "Kokkos not found" "$GC/configure.out"; then
      return "$rc"
    fi
    echo "== no Kokkos: configuring without it, and without the examples (their CPU targets need it)"
  fi
  echo "+ cmake ${common[*]} -DKOPS_ENABLE_KOKKOS=OFF -DKOPS_BUILD_EXAMPLES=OFF"
  cmake "${common[@]}" -DKOPS_ENABLE_KOKKOS=OFF -DKOPS_BUILD_EXAMPLES=OFF
}

# kops_cuda_tests and kops_embedded_cuda (ctest -L gpu runs both), and the
# flagship's targets when the examples are on; else gaussian_sum_cuda straight
# from nvcc, beside the CMake build.
# shellcheck disable=SC2317
gc_build() {
  local targets=(kops_cuda_tests kops_embedded_cuda) pid="" rc rc2=0
  if grep -q '^KOPS_BUILD_EXAMPLES:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
    targets+=(gaussian_sum gaussian_sum_cuda)
  else
    local inc=(-I "$ROOT/include")
    if [ -n "${BOOST_INCLUDE:-}" ] && [ "$BOOST_INCLUDE" != /usr/include ]; then inc+=(-isystem "$BOOST_INCLUDE"); fi
    local cmd=("$NVCC" -std=c++20 -O3 -DNDEBUG --expt-relaxed-constexpr
               -gencode "arch=compute_${ARCH},code=sm_${ARCH}" "${inc[@]}"
               "$ROOT/examples/gaussian_sum/main.cu" -o "$GC/gaussian_sum_cuda")
    echo "+ ${cmd[*]} &"
    rm -f "$GC/gaussian_sum_cuda"
    "${cmd[@]}" >"$GC/gaussian_sum_cuda.build.out" 2>&1 &
    pid=$!
  fi
  # bench_gpu for step 5, configured exactly as bench/run_gpu.sh configures it
  # (CUDA_ARCHS=$ARCH), so that its own configure and build then find it done.
  local bpid="" bdir="$ROOT/build/bench-gpu/cmake"
  if [ "${GC_PREBUILD_BENCH:-0}" = 1 ]; then
    echo "+ (cmake -S . -B build/bench-gpu/cmake <bench/run_gpu.sh's options> && cmake --build ... --target bench_gpu) &"
    { cmake -S "$ROOT" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DKOPS_BUILD_BENCH=ON -DKOPS_BUILD_TESTS=OFF \
        -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_ENABLE_KOKKOS=OFF -DKOPS_ENABLE_CUDA=ON -DKOPS_INSTALL=OFF \
        "-DCMAKE_CUDA_ARCHITECTURES=${ARCH}-real" &&
      cmake --build "$bdir" --target bench_gpu -j "$JOBS"; } >"$GC/bench-prebuild.out" 2>&1 &
    bpid=$!
  fi
  echo "+ cmake --build $BUILD_DIR -j $JOBS --target ${targets[*]}"
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}"
  rc=$?
  if [ -n "$bpid" ]; then
    wait "$bpid"
    echo "== bench_gpu built ahead for step 5: exit $? (log: build/gpu_check/bench-prebuild.out; step 5 builds it anyway)"
  fi
  if [ -n "$pid" ]; then
    wait "$pid"; rc2=$?
    cat "$GC/gaussian_sum_cuda.build.out"
    echo "== nvcc examples/gaussian_sum/main.cu -> build/gpu_check/gaussian_sum_cuda: exit $rc2"
  fi
  echo "== cmake --build: exit $rc"
  if [ "$rc" = 0 ]; then return "$rc2"; fi
  return "$rc"
}
# bench_graphs in a build folder of its own (Kokkos, tests and examples off),
# then run: M = N = 1e3, 3e3, 1e4 on the GPU; in the dry run
# bench_graphs_emulated (tests/CMakeLists.txt) at M = N = 48. Its markdown
# table -> $SB_DIR/graphs.md.
# shellcheck disable=SC2317
gc_graphs() {
  local dir="$GC/graphs" target=bench_graphs sizes=(1000 3000 10000) exe
  local args=(-S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DKOPS_ENABLE_KOKKOS=OFF -DKOPS_BUILD_EXAMPLES=OFF
              -DKOPS_INSTALL=OFF -DKOPS_TEST_CONFORMANCE=OFF -DKOPS_TEST_DOC_SNIPPETS=OFF -DKOPS_TEST_STATIC=OFF
              -DKOPS_TEST_NATIVE=OFF "-DKOPS_UNIT_TEST_ONLY=/(none)_test[.]cpp\$" "-DKOPS_EMULATED_TEST_EXCLUDE=.*")
  if [ "$EMULATE" = 1 ]; then
    target=bench_graphs_emulated; sizes=(48)
    args+=(-DKOPS_ENABLE_CUDA=OFF -DKOPS_BUILD_TESTS=ON -DKOPS_BUILD_EMULATED_GPU_TESTS=ON -DKOPS_BUILD_BENCH=OFF)
  else
    args+=(-DKOPS_ENABLE_CUDA=ON -DKOPS_BUILD_TESTS=OFF -DKOPS_BUILD_BENCH=ON "-DCMAKE_CUDA_ARCHITECTURES=${ARCH}-real")
  fi
  if [ -n "$CATCH_ARG" ]; then args+=("$CATCH_ARG"); fi
  echo "+ cmake ${args[*]}"
  cmake "${args[@]}" || return $?
  echo "+ cmake --build $dir -j $JOBS --target $target"
  cmake --build "$dir" -j "$JOBS" --target "$target" || return $?
  exe=$(first_exe "$dir/tests/$target" "$dir/bench/$target") || { echo "no $target in $dir"; return 1; }
  echo "+ $exe ${sizes[*]}"
  "$exe" "${sizes[@]}" | tee "$SB_DIR/graphs.md"
  return "${PIPESTATUS[0]}"
}
export -f gc_configure gc_build gc_peer_build gc_graphs peer_cmake_args

first_exe() {  # first_exe PATH...: the first executable file among them
  local f
  for f in "$@"; do
    if [ -f "$f" ] && [ -x "$f" ]; then echo "$f"; return 0; fi
  done
  return 1
}
ran_steps() { [ -n "${SEL[$1]:-}" ]; }
export -f first_exe
export SB_DIR

# ------------------------------------------------------------ step 2 ----
# The GPU tests' configure and build, in the background from here on (nice'd:
# the harness's build comes first); their rows are reported after the scoreboard.
BG_PID=""
if ran_steps configure; then
  echo "[gpu_check] $(elapsed)s: ${TITLE[configure]} and ${TITLE[build]} started (limits ${CAP[configure]}s + ${CAP[build]}s)"
  rm -f "$GC/configure.rc" "$GC/build.rc"
  (
    b0=$(now)
    timeout -k 10 "${CAP[configure]}" nice -n 5 bash -c gc_configure >"$LOGS/configure.log" 2>&1 </dev/null
    echo "$? $(( $(now) - b0 ))" >"$GC/configure.rc"
    if [ "$(cut -d' ' -f1 "$GC/configure.rc")" = 0 ] && ran_steps build; then
      b0=$(now)
      timeout -k 10 "${CAP[build]}" nice -n 5 bash -c gc_build >"$LOGS/build.log" 2>&1 </dev/null
      echo "$? $(( $(now) - b0 ))" >"$GC/build.rc"
    fi
  ) &
  BG_PID=$!
fi

# bg_step KEY: the background step's LOG RC DUR LIMIT STATUS NOTE (from $GC/KEY.rc).
bg_step() {
  LOG="$LOGS/$1.log"; LIMIT=${CAP[$1]}; NOTE=""; EXTRA=""; RC="-"; DUR=0
  if [ ! -f "$GC/$1.rc" ]; then STATUS=fail; NOTE="did not finish"; return; fi
  read -r RC DUR <"$GC/$1.rc"
  case "$RC" in
    0) STATUS=pass ;;
    124|137) STATUS=timeout; NOTE="stopped at its ${LIMIT}s limit" ;;
    *) STATUS=fail ;;
  esac
}

# ------------------------------------------------------------ step 3 ----
PEER_EXE=""
if ran_steps peer_build; then
  run_step peer_build -- bash -c gc_peer_build
  if [ "$STATUS" != skipped ]; then
    PEER_EXE=$(first_exe "$PEER_DIR/tests/kops_peer" "$PEER_DIR/tests/kops_peer_emulated" || true)
    if [ "$STATUS" = pass ] && [ -z "$PEER_EXE" ]; then STATUS=fail; NOTE="no tests/kops_peer in ${PEER_DIR#"$ROOT"/}"; fi
    ks=$(head -n 1 "$PEER_DIR/tests/peer/keops/status.txt" 2>/dev/null || echo "no status.txt")
    if [ "$ks" != ok ]; then NOTE="${NOTE:+$NOTE; }KeOps's kernels missing: $ks"; fi
    if grep -q "^KOPS_PEER_KEOPS_DIR:PATH=." "$PEER_DIR/CMakeCache.txt" 2>/dev/null; then
      NOTE="${NOTE:+$NOTE; }KeOps's sources: .whl/keops-src"
    fi
  fi
  report_step "${TITLE[peer_build]}" \
    "cmake -S . -B ${PEER_DIR#"$ROOT"/} <tools/gpu_check.sh's peer_cmake_args> && cmake --build ${PEER_DIR#"$ROOT"/} -j $JOBS --target kops_peer" \
    "^\+ |keops_peer_gen|error|FAILED|warning|Linking" 8
fi

if ran_steps scoreboard; then
  if [ -z "$PEER_EXE" ]; then
    skip_row "${TITLE[scoreboard]}" "no kops_peer (its build failed or did not run)"
  else
    mkdir -p "$SB_DIR"
    rm -f "$SB_DIR/scoreboard.md" "$SB_DIR/scoreboard.csv"
    # shellcheck disable=SC2206
    sb_args=(${GPU_CHECK_SCOREBOARD_ARGS:---headline --variants gauss3,gauss64,gauss256,gauss1024,argkmin8_d128})
    [ "$EMULATE" = 1 ] && [ -z "${GPU_CHECK_SCOREBOARD_ARGS:-}" ] && sb_args=()
    sb_limit=$(step_limit scoreboard)
    sb_args+=(--deadline "$((sb_limit > 40 ? sb_limit - 25 : sb_limit / 2))" --csv "$SB_DIR/scoreboard.csv"
              --md "$SB_DIR/scoreboard.md")
    run_step scoreboard -- "$PEER_EXE" "${sb_args[@]}"
    case "$RC" in
      77) STATUS=fail; NOTE="KeOps's kernels missing: kops rows only" ;;
      1) NOTE="$(grep -c '| FAIL |' "$LOG" 2>/dev/null) rows disagree (verdict column), or an error" ;;
    esac
    if grep -q "^not run" "$LOG" 2>/dev/null; then NOTE="${NOTE:+$NOTE; }--deadline passed: some rows not run"; fi
    if [ "$SB_DIR" != "$GC" ]; then cp -f "$SB_DIR/scoreboard.md" "$SB_DIR/scoreboard.csv" "$GC/" 2>/dev/null; fi
    if [ -s "$SB_DIR/scoreboard.md" ]; then
      EXTRA="Table (scoreboard.md; CSV: scoreboard.csv):

$(cat "$SB_DIR/scoreboard.md")"
    fi
    report_step "${TITLE[scoreboard]}" "${PEER_EXE#"$ROOT"/} ${sb_args[*]//$ROOT\//}" \
      "kops_peer|not run|error|FAIL" 4
  fi
fi

if ran_steps peers; then
  rm -f "$SB_DIR/peers.md" "$SB_DIR/peers.csv"
  mkdir -p "$SB_DIR"
  pe_limit=$(step_limit peers)
  pe_args=(bench/peer/peers.py --deadline "$((pe_limit > 30 ? pe_limit - 15 : pe_limit / 2))"
           --csv "$SB_DIR/peers.csv" --md "$SB_DIR/peers.md" --wheels "$WHL" --work "$GC")
  run_step peers -- "$PYTHON" "${pe_args[@]}"
  if [ "$RC" = 77 ]; then STATUS=skipped; NOTE="$(grep -m1 'skipped' "$LOG" | cut -c1-200)"; fi
  if [ -f "$LOG" ] && grep -q "skipped:" "$LOG" && [ "$STATUS" = pass ]; then
    NOTE="$(grep -c 'skipped:' "$LOG") rows skipped (the table says why)"
  fi
  if [ "$SB_DIR" != "$GC" ]; then cp -f "$SB_DIR/peers.md" "$SB_DIR/peers.csv" "$GC/" 2>/dev/null; fi
  if [ -s "$SB_DIR/peers.md" ]; then
    EXTRA="Table (peers.md; CSV: peers.csv):

$(cat "$SB_DIR/peers.md")"
  fi
  report_step "${TITLE[peers]}" "$PYTHON ${pe_args[*]//$ROOT\//}" "skipped|Traceback|Error|pykeops [0-9]|FAIL" 6
fi

# The summary: one row per formula, type and size (bench/peer/table.py), from
# what the two scoreboard steps wrote; into the report and beside their tables.
if [ -s "$SB_DIR/scoreboard.csv" ]; then
  if "$PYTHON" bench/peer/table.py --scoreboard "$SB_DIR/scoreboard.csv" --peers "$SB_DIR/peers.csv" \
       --md "$SB_DIR/summary.md" >"$LOGS/summary.log" 2>&1; then
    [ "$SB_DIR" != "$GC" ] && cp -f "$SB_DIR/summary.md" "$GC/" 2>/dev/null
    { echo; echo "## 3. scoreboard summary (bench/peer/table.py)"; echo; cat "$SB_DIR/summary.md"; } >>"$REPORT"
    copy_out
  else
    echo "[gpu_check] bench/peer/table.py failed: $(tail -n 1 "$LOGS/summary.log")"
  fi
fi

# ------------------------------------------------------ step 2's rows ----
BUILD_OK=0
if [ -n "$BG_PID" ]; then
  if kill -0 "$BG_PID" 2>/dev/null; then echo "[gpu_check] $(elapsed)s: waiting for the background build"; fi
  wait "$BG_PID"
  bg_step configure
  if [ "$STATUS" = pass ]; then
    if grep -q '^KOPS_HAS_CUDA:INTERNAL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
      NOTE="Kokkos $(sed -n 's/^KOPS_HAS_KOKKOS:INTERNAL=//p' "$BUILD_DIR/CMakeCache.txt"), examples $(sed -n 's/^KOPS_BUILD_EXAMPLES:BOOL=//p' "$BUILD_DIR/CMakeCache.txt"), CUDA ${ARCH}-real"
    else
      STATUS=fail; NOTE="configured without kops::cuda"
    fi
  fi
  CONFIGURE_STATUS=$STATUS
  report_step "${TITLE[configure]}" \
    "cmake -S . -B ${BUILD_DIR#"$ROOT"/} -DCMAKE_BUILD_TYPE=Release -DKOPS_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=${ARCH}-real -DKOPS_TEST_CUDA_ARCHITECTURES=${ARCH}-real -DKOPS_BUILD_TESTS=ON -DKOPS_ENABLE_KOKKOS=ON -DKOPS_BUILD_EXAMPLES=ON (both OFF when Kokkos is not found) -DKOPS_BUILD_EMULATED_GPU_TESTS=OFF -DKOPS_BUILD_BENCH=OFF" \
    "^\+ cmake|^== |kops:|error|Kokkos|Boost|Catch2|CUDA compiler identification|Configuring|Generating" 8
  if [ "$CONFIGURE_STATUS" = pass ] && ran_steps build; then
    bg_step build
    report_step "${TITLE[build]}" \
      "cmake --build ${BUILD_DIR#"$ROOT"/} -j $JOBS --target kops_cuda_tests kops_embedded_cuda [gaussian_sum gaussian_sum_cuda] (examples off: nvcc examples/gaussian_sum/main.cu alongside); bench_gpu alongside when the bench step is selected" \
      "^\+ |^== | error|error:|FAILED|warning|Linking" 8
    [ "$STATUS" = pass ] && BUILD_OK=1
  elif ran_steps build; then
    skip_row "${TITLE[build]}" "configure failed"
  fi
fi
EXE=$(first_exe "$BUILD_DIR/tests/kops_cuda_tests" "$BUILD_DIR/bin/kops_cuda_tests" || true)
if [ "$BUILD_OK" = 1 ] && [ -z "$EXE" ]; then
  EXE=$(find "$BUILD_DIR" -type f -name kops_cuda_tests -perm -u+x 2>/dev/null | head -n 1)
fi

if ran_steps ctest; then
  if [ "$BUILD_OK" != 1 ] || [ -z "$EXE" ]; then
    skip_row "${TITLE[ctest]}" "no test executable (the build failed)"
  else
    ctest_args=(--test-dir "$BUILD_DIR" -L gpu -V --timeout "${CAP[ctest]}")
    [ "${GPU_CHECK_CTEST_ALL:-0}" = 1 ] || ctest_args+=(-E '^example\.cuda_project$')
    run_step ctest -- ctest "${ctest_args[@]}"
    [ "${GPU_CHECK_CTEST_ALL:-0}" = 1 ] || ctest_args[${#ctest_args[@]}-1]="'^example\.cuda_project\$'"
    if grep -q "No tests were found" "$LOG"; then STATUS=fail; NOTE="no test with label gpu"; fi
    if [ "$STATUS" = pass ] && grep -q "KOPS_SKIP_NO_GPU" "$LOG"; then STATUS=skipped; NOTE="the test saw no GPU"; fi
    report_step "${TITLE[ctest]}" "ctest ${ctest_args[*]#"$ROOT"/}" \
      "^GPU [0-9]|All tests passed|test cases|assertions|FAILED|REQUIRE|CHECK\(|Passed|Failed|\*\*\*|tests passed|tests failed|KOPS_SKIP" 6
  fi
fi

# -------------------------------------------------------------- step 5 ----
# --report-api-errors no: the error-path tests fail CUDA calls on purpose (and
# kops checks every call itself); --error-exitcode 86 tells the sanitizer's
# findings (86) from failed tests (1).
# peer_memcheck: memcheck on kops_peer at a small size (KeOps's kernels as
# launched, and kops's, on every formula and scheme), in its own row.
declare -A SAN_SPEC=([memcheck]=$SAN_MEMCHECK [racecheck]=$SAN_RACECHECK [synccheck]=$SAN_SYNCCHECK
                     [initcheck]=$SAN_INITCHECK)
declare -A SAN_OPTS=([memcheck]="--leak-check full" [racecheck]="--racecheck-report all" [synccheck]=""
                     [initcheck]="")
for step in memcheck peer_memcheck racecheck synccheck initcheck; do
  ran_steps "$step" || continue
  tool=${step#peer_}
  if [ -z "$CS" ]; then skip_row "${TITLE[$step]}" "compute-sanitizer not found (PATH, /usr/local/cuda/bin)"; continue; fi
  # shellcheck disable=SC2206
  opts=(--tool "$tool" ${SAN_OPTS[$tool]} --report-api-errors no --error-exitcode 86)
  if [ "$step" = peer_memcheck ]; then
    if [ -z "$PEER_EXE" ]; then skip_row "${TITLE[$step]}" "no kops_peer (its build failed)"; continue; fi
    san_args=("$PEER_EXE" --size 256 --reps 1 --warm 1)
  else
    if [ "$BUILD_OK" != 1 ] || [ -z "$EXE" ]; then skip_row "${TITLE[$step]}" "no test executable (the build failed)"; continue; fi
    san_args=("$EXE" "${SAN_SPEC[$tool]}" --durations yes)
  fi
  run_step "$step" -- "$CS" "${opts[@]}" "${san_args[@]}"
  case "$RC" in
    86) NOTE="the sanitizer reported errors" ;;
    0|124|137|-) ;;
    *) NOTE="exit $RC: tests failed (or the tool did) under the sanitizer" ;;
  esac
  if [ -f "$LOG" ] && grep -q -E "Device not supported|Unable to find injection library|unsupported device" "$LOG"; then
    NOTE="${NOTE:+$NOTE; }compute-sanitizer does not support this device or runtime"
  fi
  if [ "$STATUS" = timeout ] && [ -f "$LOG" ] && [ "$step" = "$tool" ]; then
    NOTE="$NOTE; $(grep -c -E '^[0-9.]+ s: ' "$LOG") test cases or sections finished: narrow SAN_$(echo "$tool" | tr '[:lower:]' '[:upper:]')"
  fi
  if [ -f "$LOG" ] && grep -q -E '^[0-9.]+ s: ' "$LOG"; then
    EXTRA="Slowest test cases or sections under $tool (of $(grep -c -E '^[0-9.]+ s: ' "$LOG") timed):

\`\`\`text
$(grep -E '^[0-9.]+ s: ' "$LOG" | sort -rn | head -n 5 | cut -c1-200)
\`\`\`"
  fi
  report_step "${TITLE[$step]}" \
    "compute-sanitizer ${opts[*]} ${san_args[*]//$ROOT\//}" \
    "SUMMARY|^========= +(Invalid|Race|Barrier|Uninitialized|Leaked|Program hit|Error|Warning|Hazard|Unused|Device)|All tests passed|test cases|FAILED|Device not supported" 6
done

# -------------------------------------------------------------- step 6 ----
if ran_steps example; then
  EX_DIR="$GC/example-build"
  if grep -q '^KOPS_BUILD_EXAMPLES:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then EX_DIR=$BUILD_DIR; fi
  # No package installs there (no registry); Kokkos as the main configure found it.
  EX_KOKKOS=OFF
  if grep -q '^KOPS_HAS_KOKKOS:INTERNAL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then EX_KOKKOS=ON; fi
  run_step example -- env KOPS_SKIP_SETUP=1 KOPS_CMAKE_ARGS="-DKOPS_ENABLE_KOKKOS=$EX_KOKKOS -DKOPS_BUILD_EMULATED_GPU_TESTS=OFF" \
    KOPS_BUILD_DIR="$EX_DIR" bash tools/example.sh
  if [ "$STATUS" = pass ] && ! grep -q "on the GPU (CUDA" "$LOG"; then
    STATUS=fail; NOTE="example.sh ran the CPU version, not gaussian_sum_cuda"
  elif [ "$STATUS" = fail ]; then
    if ! grep -q '^\[example\]' "$LOG" && grep -q '^\[setup\]' "$LOG"; then
      NOTE="tools/setup.sh failed (apt-get: no package registry on this machine?)"
    elif grep -q "kops::kokkos\|Kokkos not found" "$LOG"; then
      NOTE="the examples need Kokkos, which this machine lacks"
    fi
  fi
  EXAMPLE_STATUS=$STATUS
  report_step "${TITLE[example]}" "KOPS_BUILD_DIR=${EX_DIR#"$ROOT"/} bash tools/example.sh" \
    "^\[example\]|^\[setup\] (CUDA|GPU|install|missing)|kops gaussian_sum|formula|result|time|check|error|E: " 12

  # When example.sh fails, the flagship's own numbers on the GPU all the same.
  if [ "$EXAMPLE_STATUS" != pass ] && [ -n "${SEL[example_direct]:-}" ]; then
    if [ "$EX_DIR" = "$BUILD_DIR" ]; then EXD="$BUILD_DIR/bin/gaussian_sum_cuda"; else EXD="$GC/gaussian_sum_cuda"; fi
    EXD=$(first_exe "$EXD" || true)
    if [ -z "$EXD" ]; then
      skip_row "${TITLE[example_direct]}" "no gaussian_sum_cuda was built"
    else
      run_step example_direct -- "$EXD"
      report_step "${TITLE[example_direct]}" "${EXD#"$ROOT"/}   (M = N = 20000, as tools/example.sh runs it)" "" 20
    fi
  fi
fi

# -------------------------------------------------------------- step 7 ----
if ran_steps bench; then
  BENCH_ENV=(SIZES="$SIZES" REPS="$REPS" MAX_S="$MAX_S" CUDA_ARCHS="$ARCH" WHEELS="$WHL" PYTHON="$PYTHON")
  PK_NOTE=""
  if [ "$WHEELS_OK" != 1 ] && ! "$PYTHON" -c 'import pykeops, keopscore; assert pykeops.__version__.startswith("2.3")' >/dev/null 2>&1; then
    BENCH_ENV+=(SKIP_PYKEOPS=1)
    PK_NOTE="no pykeops-2.3/keopscore-2.3 wheels in .whl (bash tools/gpu_check.sh --prepare where pip works; carry .whl)"
  fi
  MD="$ROOT/build/bench-gpu/gpu_results.md"; CSV="$ROOT/build/bench-gpu/gpu_results.csv"
  rm -f "$MD" "$CSV"
  run_step bench -- env "${BENCH_ENV[@]}" bash bench/run_gpu.sh
  BENCH_STATUS=$STATUS
  if [ "$STATUS" != skipped ] && [ ! -s "$MD" ] && [ -s "$CSV" ]; then
    # Stopped before its table: the table of the rows it wrote.
    timeout 30 "$PYTHON" bench/pykeops_gpu.py --table "$CSV" >"$MD" 2>/dev/null || rm -f "$MD"
    [ -s "$MD" ] && NOTE="${NOTE:+$NOTE; }table of the rows written before it stopped"
  fi
  if [ -s "$MD" ]; then
    EXTRA="Table (build/bench-gpu/gpu_results.md):

$(cat "$MD")"
  fi
  report_step "${TITLE[bench]}" "${BENCH_ENV[*]//$ROOT\//} bash bench/run_gpu.sh" \
    "^== |run_gpu.sh:|error|failed|skipped|Traceback|first call|pykeops [0-9]" 8

  # The pykeops half of the comparison, as a row of its own.
  STATUS=pass; NOTE=""; RC="-"; LIMIT="-"; EXTRA=""
  if [ "$BENCH_STATUS" = skipped ]; then
    STATUS=skipped; NOTE="the benchmark did not run"
  elif [ -n "$PK_NOTE" ]; then
    STATUS=skipped; NOTE=$PK_NOTE
  elif [ "$BENCH_STATUS" != pass ] && ! grep -q -E "pykeops|keopscore" "$LOG"; then
    STATUS=skipped; NOTE="not reached: run_gpu.sh stopped before pykeops"
  elif grep -q -E "pykeops rows skipped|pip install failed|pykeops_gpu.py failed" "$LOG"; then
    STATUS=fail; NOTE="$(grep -m1 -E "pykeops rows skipped|pip install failed|pykeops_gpu.py failed" "$LOG" | sed 's/^== //')"
  elif [ -f "$CSV" ] && cut -d, -f1 "$CSV" | grep -q '^pykeops'; then
    NOTE="$(cut -d, -f1 "$CSV" | grep -c '^pykeops') pykeops rows"
  else
    STATUS=fail; NOTE="no pykeops rows in gpu_results.csv"
  fi
  if [ "$BENCH_STATUS" = timeout ] && [ "$STATUS" = pass ]; then NOTE="$NOTE (some missing: the benchmark was stopped)"; fi
  if [ "$BENCH_STATUS" = timeout ] && [ "$STATUS" = fail ]; then STATUS=timeout; fi
  echo "[gpu_check] 5. pykeops 2.3 comparison: $STATUS ($NOTE)"
  SUM_NAME+=("5. pykeops 2.3 comparison (within run_gpu.sh)"); SUM_STATUS+=("$STATUS"); SUM_SECS+=("-"); SUM_NOTE+=("$NOTE")
fi

# -------------------------------------------------------------- step 8 ----
if ran_steps graphs; then
  mkdir -p "$SB_DIR"
  rm -f "$SB_DIR/graphs.md"
  run_step graphs -- bash -c gc_graphs
  if [ -s "$SB_DIR/graphs.md" ]; then
    EXTRA="Table (per call, eager and replayed from a graph of 10 calls; the emulator's times in a dry run):

$(cat "$SB_DIR/graphs.md")"
  fi
  report_step "${TITLE[graphs]}" "bash -c gc_graphs   (tools/gpu_check.sh: cmake ... --target bench_graphs, then bench_graphs 1000 3000 10000)" \
    "^\+ |^\| |error|Error|FAILED" 12
fi

# ------------------------------------------------------------- verdict ----
failed=0
for s in "${SUM_STATUS[@]}"; do
  case "$s" in fail|timeout) failed=1 ;; esac
done
if [ "$HAVE_GPU" != 1 ] && [ "$EMULATE" = 1 ]; then
  finish "$failed" "DRY RUN through kops::cuda_emulated: $([ "$failed" = 1 ] && echo FAIL || echo PASS)"
elif [ "$HAVE_GPU" != 1 ]; then
  finish 77 "NO GPU (GPU_CHECK_FORCE=1 run: $([ "$failed" = 1 ] && echo 'some steps failed' || echo 'no step failed'); exit 77)"
elif [ "$failed" = 1 ]; then
  finish 1 "FAIL"
else
  finish 0 "PASS"
fi
