#!/usr/bin/env bash
# Set up, configure (build/, Release, tests on), build and run every ctest test
# against the system Kokkos (Debian: 3.4, Serial); then the same unit tests,
# examples and consumer tests against Kokkos 4.6 with OpenMP on two threads
# (tools/test_kokkos4.sh; KOPS_SKIP_KOKKOS4=1 leaves it out).
# Exit code: the first failure's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/setup.sh

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
BUILD_DIR="${KOPS_BUILD_DIR:-build}"

echo "[test] configure $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DKOPS_BUILD_TESTS=ON
echo "[test] build (-j$jobs)"
cmake --build "$BUILD_DIR" -j "$jobs"
echo "[test] ctest"
set +e
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$jobs"
rc=$?
if [ "${KOPS_SKIP_KOKKOS4:-0}" != 1 ]; then
  echo "[test] Kokkos 4.6 OpenMP, two threads (tools/test_kokkos4.sh)"
  bash tools/test_kokkos4.sh
  r=$?
  if [ "$rc" -eq 0 ]; then rc=$r; fi
fi
set -e
exit "$rc"
