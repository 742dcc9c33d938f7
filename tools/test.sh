#!/usr/bin/env bash
# Set up, configure (build/, Release, tests on), build and run every ctest test
# against the system Kokkos (Debian: 3.4, Serial); then the same unit tests,
# examples and consumer tests against Kokkos 4.6 with OpenMP on two threads
# (tools/test_kokkos4.sh; KOPS_SKIP_KOKKOS4=1 leaves it out).
# Exit code: the first failure's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/setup.sh
# ccache in front of every compiler, Kokkos 4 installs kept outside the checkout (tools/cache.sh)
source tools/cache.sh

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
BUILD_DIR="${KOPS_BUILD_DIR:-build}"

# Without a GPU the CUDA tests are compiled, never run: one architecture
# (sm_90, the one bench/sass reads) instead of the default three cuts nvcc's
# time by a quarter. With a GPU, or with CUDAARCHS set, the default stands.
# There, a few GPU test bodies are also stamped for fewer configurations
# (KOPS_TEST_CUDA_COMPILE_ONLY, tests/CMakeLists.txt); every body is still
# compiled by nvcc, and the emulated GPU tests run them all.
cuda_arch=()
compile_only=OFF
if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; }; then
  compile_only=ON
  if [ -z "${CUDAARCHS:-}" ]; then cuda_arch=(-DCMAKE_CUDA_ARCHITECTURES=90-real); fi
fi
echo "[test] configure $BUILD_DIR ${cuda_arch[*]:-} -DKOPS_TEST_CUDA_COMPILE_ONLY=$compile_only"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DKOPS_BUILD_TESTS=ON "${cuda_arch[@]}" \
  "-DKOPS_TEST_CUDA_COMPILE_ONLY=$compile_only" "${KOPS_CCACHE_ARGS[@]}"
echo "[test] build (-j$jobs)"
t=$SECONDS
kops_cache_mark
cmake --build "$BUILD_DIR" -j "$jobs"
echo "[test] build took $((SECONDS - t)) s"
kops_cache_summary "tools/test.sh build"
echo "[test] ctest"
set +e
t=$SECONDS
kops_cache_mark
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$jobs"
rc=$?
echo "[test] ctest took $((SECONDS - t)) s"
kops_cache_summary "tools/test.sh ctest (consumer and compile-fail builds)"
if [ "${KOPS_SKIP_KOKKOS4:-0}" != 1 ]; then
  echo "[test] Kokkos 4.6 OpenMP, two threads (tools/test_kokkos4.sh)"
  t=$SECONDS
  bash tools/test_kokkos4.sh
  r=$?
  echo "[test] tools/test_kokkos4.sh took $((SECONDS - t)) s"
  if [ "$rc" -eq 0 ]; then rc=$r; fi
fi
set -e
exit "$rc"
