#!/usr/bin/env bash
# Set up, configure (build/, Release, tests on), build and run every ctest test.
# Exit code = ctest's.
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
set -e
exit "$rc"
