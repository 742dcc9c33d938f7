#!/usr/bin/env bash
# The sanitizer runs of CI, each in its own build folder (Debug, -O1, CUDA
# toolkit and examples off), run through ctest; any report aborts its test, so
# ctest counts it as a failure. Idempotent. Exit code: the first failure's.
#
#   build-sanitize/  AddressSanitizer + UndefinedBehaviorSanitizer: the unit
#                    tests (label unit; all but the formula-heavy files unless
#                    KOPS_SANITIZE_ALL=1) and the GPU tests on the emulated
#                    GPU (label gpu_emulated): compute-sanitizer memcheck's analogue
#   build-tsan/      ThreadSanitizer: the GPU tests on the emulated GPU, where
#                    each CUDA thread of a block is a fiber TSan knows of and
#                    __syncthreads its only synchronisation: racecheck's analogue
#   build-tsan-threads/  ThreadSanitizer: the CPU backend on two threads
#                    (tests/unit/kokkos_threads_test.cpp) against Kokkos 4.6.01
#                    built with its Threads backend and TSan (tools/kokkos4.sh,
#                    installed once per machine under KOPS_CACHE_HOME). Not OpenMP: GCC's libgomp is not
#                    instrumented, so TSan misses the barriers that end its
#                    parallel regions and reports races that are not there (a
#                    try on 2026-11-24: 142 reports, every one in Kokkos' own
#                    OpenMP start-up or between two parallel regions).
#
# KOPS_SANITIZE_ONLY=asan|tsan|tsan-threads runs one of the three. The emulated
# GPU tests' and the unit tests' formula-heavy files are left out of the
# sanitizer builds (tools/test.sh runs them); KOPS_SANITIZE_ALL=1 builds all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/setup.sh
# ccache in front of every compiler (tools/cache.sh)
source tools/cache.sh
source tools/test_subsets.sh

jobs="$(nproc 2>/dev/null || echo 2)"
only="${KOPS_SANITIZE_ONLY:-}"
case "$only" in
  "" | asan | tsan | tsan-threads) ;;
  *) echo "[sanitize] error: KOPS_SANITIZE_ONLY must be asan, tsan or tsan-threads (or unset)" >&2; exit 1 ;;
esac
rc=0
# Every build here: line tables only (-g1 instead of Debug's -g: file and line
# in the reports). The ASan build and the threads test: the tests at -O1
# (KOPS_TEST_OPT; the tests' default -O2 came after these -O1 flags and won).
# On CI's machine the ASan build took 1124 s at -O2 -g, 543 s at -O1 -g1 (its
# run 132 s and 300 s). The emulated TSan run keeps -O2: at -O1 its run took
# 162 s instead of 88 s, more than the build saved. The ASan build's emulated
# GPU tests are at -O0 (KOPS_EMULATED_TEST_OPT): at -O1 they were most of
# the whole CI run's compile time (batch_test 272 s, tensor_core_test 207 s
# on a 2-core machine, 2026-11-28); at -O0 a file compiles in 0.55 of the
# time and its tests run 2.5 times longer (block_sparse_test: 59 s -> 32 s
# of g++, 0.5 s -> 1.2 s of run; hand timings, one each). The four files
# whose runs are long stay at -O1 (tests/CMakeLists.txt).
OPT_FLAGS=(-DKOPS_TEST_OPT=-O1 -DCMAKE_CXX_FLAGS_DEBUG=-g1)
ASAN_OPT_FLAGS=("${OPT_FLAGS[@]}" -DKOPS_EMULATED_TEST_OPT=-O0)
TSAN_OPT_FLAGS=(-DKOPS_TEST_OPT=-O2 -DKOPS_EMULATED_TEST_OPT=-O2 -DCMAKE_CXX_FLAGS_DEBUG=-g1)
# The emulated extrema against a loop over both axes in their GPU_2D
# configuration: the slowest tests of both emulated sanitizer runs (22-25 s
# each), left out of them (CI time); GPU_1D and automatic run the same extrema
# kernels, "GPU_2D combine keeps the chunks' order" the GPU_2D combine.
SLOW_EXTREMA='(min and argmin|max and argmax) match a loop over both axes - kops_test::cfg<kops_test::cuda_2d'
# The emulated GPU tests' formula-heavy files (the op tables, differential
# formulas, the ops), left out of both sanitizer builds (tools/test.sh runs
# them unsanitized): they vary formulas, not memory or thread handling.
# KOPS_SANITIZE_ALL=1 builds everything.
EMU_EXCLUDE="/(math_ops|vector_ops|complex_ops|differential|ops)_test\.cu$"
# TSan also leaves out the files whose kernels are those the kept files run
# (reduce_kernel, the GPU_2D combine, the ranged, batched, solve and wide-row
# kernels): the agreement sizes, bad input, the ops, the k-min family and
# 16-bit storage vary values, not the barriers; errors launch nothing that races.
# (the wide_chunks files stay: the staged chunk loop has barriers and a shared buffer of its own.)
TSAN_EMU_EXCLUDE="/(math_ops|vector_ops|complex_ops|differential|agreement|bad_input|ops|reductions_more|errors|half)_test\.cu$"
if [ "${KOPS_SANITIZE_ALL:-0}" = 1 ]; then EMU_EXCLUDE=""; TSAN_EMU_EXCLUDE=""; fi

if [ -z "$only" ] || [ "$only" = asan ]; then
  BUILD_DIR="${KOPS_SANITIZE_BUILD_DIR:-build-sanitize}"
  # KOPS_TEST_SANITIZE: a few test bodies run a smaller matrix (tests/common/batch_body.hpp,
  # the 16-bit tests: one type per backend); CI time.
  SAN_FLAGS="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DKOPS_TEST_SANITIZE=1"
  # Left out (CI time; see tests/CMakeLists.txt): the files that vary formulas
  # (tools/test_subsets.sh, shared with the Kokkos 4 build; keops_syntax_test,
  # reduction_diff_test and reduction_grad_more_test took 141 s, 66 s and 30 s
  # of this build's compile on CI's kind of machine, 2026-11-28), and the files
  # that vary values over code the kept ones run too (the summation schemes'
  # accuracy at N = 1e7, the precision policies, the SIMD math, the scaled
  # exponentials): what is kept holds the buffers, slices, temporaries,
  # batches and structures. Set KOPS_SANITIZE_ALL=1 to build and run every
  # unit test file under the sanitizers.
  EXCLUDE="$(kops_unit_test_exclude "accuracy|precision|simd_math|scaled_exp")"
  if [ "${KOPS_SANITIZE_ALL:-0}" = 1 ]; then EXCLUDE=""; fi

  # The two test executables, and the embedded profile's tests in their
  # no-exception builds only (the exception builds of the same cases run in
  # tools/test.sh; CI time).
  ASAN_TARGETS=(kops_unit_tests kops_cuda_emulated_tests kops_embedded_kokkos kops_embedded_cuda_emulated)
  echo "[sanitize] configure $BUILD_DIR ($SAN_FLAGS)"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Debug \
    -DKOPS_ENABLE_CUDA=OFF -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_BUILD_BENCH=OFF -DKOPS_BUILD_TESTS=ON -DKOPS_TEST_NATIVE=OFF \
    "-DKOPS_UNIT_TEST_EXCLUDE=$EXCLUDE" "-DKOPS_EMULATED_TEST_EXCLUDE=$EMU_EXCLUDE" "-DCMAKE_CXX_FLAGS=$SAN_FLAGS" "${ASAN_OPT_FLAGS[@]}" \
    "-DKOPS_TEST_BUILD_SET=$(IFS=';'; echo "${ASAN_TARGETS[*]}")" \
    "${KOPS_CCACHE_ARGS[@]}"
  echo "[sanitize] build ${ASAN_TARGETS[*]} (-j$jobs)"
  t=$SECONDS
  kops_cache_mark
  # One target for the four (KOPS_TEST_BUILD_SET, the top-level CMakeLists.txt):
  # make then runs their objects side by side, not one target after the other.
  cmake --build "$BUILD_DIR" -j "$jobs" --target kops_test_build_set
  echo "[sanitize] ASan+UBSan build took $((SECONDS - t)) s"
  kops_cache_summary "tools/sanitize.sh ASan+UBSan build"
  t=$SECONDS
  echo "[sanitize] ctest -L 'unit|gpu_emulated' (ASan+UBSan)"
  # The emulator tells ASan of every switch between fibers (its own switch on
  # x86-64; glibc's swapcontext elsewhere, where ASan prints a one-line warning
  # per process about it).
  export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  set +e
  # -LE docs: the docs' emulated CUDA programs (labels docs;gpu_emulated) are not
  # built here (only the two test executables are). -E: the embedded profile's
  # exception builds (above) and the 64-bit indexing tests (2^32 pairs and more,
  # N = 1e7: 57 s of the ASan run's CPU for loops the other tests run small;
  # tools/test.sh runs them), and two emulated agreement tests that vary values
  # over the kernels the other tests run (the extrema's exact agreement around
  # block sizes, 100 s of the run's CPU; the fast policy's error bound, 84 s;
  # the sums' agreement around block sizes stays), and the emulated extrema
  # against a loop in their GPU_2D configuration (22 s each; GPU_1D and
  # automatic stay, and the GPU_2D combine of extrema has its own test).
  ctest --test-dir "$BUILD_DIR" -L 'unit|gpu_emulated' -LE docs \
    -E "^embedded\.(kokkos_forced|kokkos_exceptions|cuda_emulated_exceptions)\$|beyond 2\^32|N = 1e7|ties included|stays within its error bound|$SLOW_EXTREMA" \
    --output-on-failure -j "$jobs"
  r=$?
  echo "[sanitize] ASan+UBSan ctest took $((SECONDS - t)) s"
  set -e
  if [ "$rc" -eq 0 ]; then rc=$r; fi
fi

if [ -z "$only" ] || [ "$only" = tsan ]; then
  TSAN_DIR="${KOPS_TSAN_BUILD_DIR:-build-tsan}"
  TSAN_FLAGS="-O1 -fsanitize=thread -fno-omit-frame-pointer -DKOPS_TEST_SANITIZE=1"
  echo "[sanitize] configure $TSAN_DIR ($TSAN_FLAGS)"
  cmake -S . -B "$TSAN_DIR" -DCMAKE_BUILD_TYPE=Debug \
    -DKOPS_ENABLE_CUDA=OFF -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_BUILD_BENCH=OFF -DKOPS_BUILD_TESTS=ON -DKOPS_TEST_NATIVE=OFF \
    "-DKOPS_EMULATED_TEST_EXCLUDE=$TSAN_EMU_EXCLUDE" "-DCMAKE_CXX_FLAGS=$TSAN_FLAGS" "${TSAN_OPT_FLAGS[@]}" \
    "${KOPS_CCACHE_ARGS[@]}"
  echo "[sanitize] build kops_cuda_emulated_tests (-j$jobs)"
  t=$SECONDS
  kops_cache_mark
  cmake --build "$TSAN_DIR" -j "$jobs" --target kops_cuda_emulated_tests
  echo "[sanitize] TSan build took $((SECONDS - t)) s"
  kops_cache_summary "tools/sanitize.sh TSan build"
  t=$SECONDS
  echo "[sanitize] ctest -L gpu_emulated (TSan)"
  export TSAN_OPTIONS="halt_on_error=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
  set +e
  ctest --test-dir "$TSAN_DIR" -L gpu_emulated -LE docs -E "$SLOW_EXTREMA" --output-on-failure -j "$jobs"
  r=$?
  echo "[sanitize] TSan ctest took $((SECONDS - t)) s"
  set -e
  if [ "$rc" -eq 0 ]; then rc=$r; fi
fi

if [ -z "$only" ] || [ "$only" = tsan-threads ]; then
  # Kokkos' install: tools/kokkos4.sh's folder for these flags, or KOPS_TSAN_KOKKOS_DIR.
  KDIR="${KOPS_TSAN_KOKKOS_DIR:-}"
  TT_DIR="${KOPS_TSAN_THREADS_BUILD_DIR:-build-tsan-threads}"
  TT_FLAGS="-O1 -fsanitize=thread -fno-omit-frame-pointer"
  t=$SECONDS
  set +e
  kprefix="$(KOPS_KOKKOS4_DIR="$KDIR" KOPS_KOKKOS4_BACKEND=threads KOPS_KOKKOS4_FLAGS="$TT_FLAGS" bash tools/kokkos4.sh)"
  krc=$?
  set -e
  if [ "$krc" -eq 3 ] && [ "${KOPS_REQUIRE_KOKKOS4:-0}" != 1 ]; then
    echo "[sanitize] WARNING: no Kokkos 4.6.01 source: the threaded CPU backend is NOT run under TSan" >&2
  elif [ "$krc" -ne 0 ]; then
    if [ "$rc" -eq 0 ]; then rc=$krc; fi
  else
    echo "[sanitize] configure $TT_DIR against $kprefix ($TT_FLAGS)"
    cmake -S . -B "$TT_DIR" -DCMAKE_BUILD_TYPE=Debug -DKokkos_ROOT="$kprefix" \
      -DKOPS_ENABLE_CUDA=OFF -DKOPS_BUILD_EXAMPLES=OFF -DKOPS_BUILD_BENCH=OFF -DKOPS_BUILD_TESTS=ON \
      -DKOPS_BUILD_EMULATED_GPU_TESTS=OFF -DKOPS_TEST_NATIVE=OFF -DKOPS_TEST_STATIC=OFF \
      -DKOPS_TEST_DOC_SNIPPETS=OFF -DKOPS_TEST_CONFORMANCE=OFF \
      "-DKOPS_UNIT_TEST_ONLY=/kokkos_threads_test\.cpp$" "-DCMAKE_CXX_FLAGS=$TT_FLAGS" "${OPT_FLAGS[@]}" \
      "${KOPS_CCACHE_ARGS[@]}"
    echo "[sanitize] build kops_unit_tests (the threads test alone, -j$jobs)"
    kops_cache_mark
    cmake --build "$TT_DIR" -j "$jobs" --target kops_unit_tests
    kops_cache_summary "tools/sanitize.sh TSan threads build"
    echo "[sanitize] kops_unit_tests [threads] --kokkos-num-threads=2 (TSan, Kokkos Threads backend)"
    export TSAN_OPTIONS="halt_on_error=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    set +e
    "$TT_DIR/tests/kops_unit_tests" "[threads]" --kokkos-num-threads=2 --success >"$TT_DIR/threads.log" 2>&1
    r=$?
    set -e
    tail -n 3 "$TT_DIR/threads.log"
    seen="$(grep -m1 -o "threads = [0-9]*" "$TT_DIR/threads.log" || true)"
    echo "[sanitize] the threads test ran with: ${seen:-?}"
    if [ "$r" -ne 0 ]; then grep -m1 -A30 "ThreadSanitizer\|FAILED" "$TT_DIR/threads.log" || true; fi
    if [ "$r" -eq 0 ] && [ "$seen" != "threads = 2" ]; then
      echo "[sanitize] error: expected threads = 2" >&2
      r=1
    fi
    if [ "$rc" -eq 0 ]; then rc=$r; fi
  fi
  echo "[sanitize] TSan threads (Kokkos 4.6 Threads build included) took $((SECONDS - t)) s"
fi
exit "$rc"
