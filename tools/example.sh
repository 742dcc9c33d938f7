#!/usr/bin/env bash
# Set up, build and run the gaussian_sum example: the CUDA version
# (gaussian_sum_cuda) when it was built and a GPU is present, else the CPU one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/setup.sh
source tools/cache.sh  # ccache in front of the compilers, when installed

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
BUILD_DIR="${KOPS_BUILD_DIR:-build}"

# KOPS_CMAKE_ARGS: extra configure arguments (e.g. -DKOPS_ENABLE_KOKKOS=OFF on a
# GPU machine without Kokkos: the GPU example alone is built then).
# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DKOPS_BUILD_EXAMPLES=ON ${KOPS_CMAKE_ARGS:-} "${KOPS_CCACHE_ARGS[@]}"

has_target() {
  { cmake --build "$BUILD_DIR" --target help 2>/dev/null || true; } | grep -qw -- "$1" && return 0
  if [ -f "$BUILD_DIR/build.ninja" ]; then
    ninja -C "$BUILD_DIR" -t targets all 2>/dev/null | grep -q "^$1:" && return 0
  fi
  return 1
}

have_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  have_gpu=1
fi

targets=()
run=gaussian_sum
if has_target gaussian_sum; then targets+=(gaussian_sum); fi
if has_target gaussian_sum_cuda; then
  if [ "$have_gpu" = 1 ]; then
    targets+=(gaussian_sum_cuda)
    run=gaussian_sum_cuda
  else
    echo "[example] gaussian_sum_cuda exists but no GPU found: running the CPU version"
  fi
fi

echo "[example] building ${targets[*]}"
cmake --build "$BUILD_DIR" -j "$jobs" --target "${targets[@]}"

exe="$BUILD_DIR/bin/$run"
if [ ! -x "$exe" ]; then
  exe="$(find "$BUILD_DIR" -type f -name "$run" -perm -u+x | head -n 1)"
fi
if [ -z "$exe" ] || [ ! -x "$exe" ]; then
  echo "[example] cannot find the $run executable under $BUILD_DIR" >&2
  exit 1
fi
echo "[example] running $exe"
exec "$exe" "$@"
