# KeOps 1.5's compile commands for gauss_grad.cu / gauss_grad.cpp, sourced by
# bench/compile/run.sh and breakdown.sh. The flags are those KeOps 1.5's CMake
# (keops/cuda.cmake, keops/CMakeLists.txt) gives a formula's TU, as pykeops
# configures it (-D__TYPE__=float -DC_CONTIGUOUS=1), release build (-O3), with
# the same -arch as the kops rows (sm_90, as its GPU detection would pick on an
# H100, and the H100's MAXTHREADSPERBLOCK0 / SHAREDMEMPERBLOCK0).
#   KEOPS15_DIR    a KeOps 1.5 tree (github getkeops/keops, tag v1.5): its root or
#                  its keops/ folder
#   SEQUENCES_DIR  taocpp/sequences at the commit v1.5 pins (e8ce137e); default
#                  $KEOPS15_DIR/keops/lib/sequences, where the submodule lives
# keops15_setup SCRATCH sets keops15_nvcc and keops15_cxx (arrays: compiler and
# flags, sources and outputs left to the caller) and returns 0, or sets
# keops15_skip to why not and returns 1. SCRATCH receives a lib/sequences link
# when SEQUENCES_DIR lies elsewhere (KeOps includes "lib/sequences/include/...").
keops15_setup() {
  local scratch=$1 here root seq
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  keops15_skip="" keops15_nvcc=() keops15_cxx=()
  if [ -z "${KEOPS15_DIR:-}" ]; then
    keops15_skip="KEOPS15_DIR not set: KeOps 1.5 rows skipped"; return 1
  fi
  if [ -f "$KEOPS15_DIR/keops/keops_includes.h" ]; then root="$KEOPS15_DIR/keops"
  elif [ -f "$KEOPS15_DIR/keops_includes.h" ]; then root="$KEOPS15_DIR"
  else keops15_skip="KEOPS15_DIR=$KEOPS15_DIR holds no keops_includes.h: KeOps 1.5 rows skipped"; return 1
  fi
  root="$(cd "$root" && pwd)"
  seq="${SEQUENCES_DIR:-$root/lib/sequences}"
  if [ ! -f "$seq/include/tao/seq/integer_sequence.hpp" ]; then
    keops15_skip="no taocpp/sequences at $seq (set SEQUENCES_DIR): KeOps 1.5 rows skipped"; return 1
  fi
  local inc=(-I"$here/stub" -I"$root")
  seq="$(cd "$seq" && pwd)"
  if [ "$seq" != "$root/lib/sequences" ]; then
    mkdir -p "$scratch/keops15-seq/lib"
    ln -sfn "$seq" "$scratch/keops15-seq/lib/sequences"
    inc+=(-I"$scratch/keops15-seq")
  fi
  local defs=(-D__TYPE__=float -DC_CONTIGUOUS=1)
  keops15_nvcc=("${nvcc_bin:-nvcc}" -std=c++17 -O3 -arch=sm_90 --use_fast_math --expt-relaxed-constexpr
    --compiler-options=-fPIC -D_FORCE_INLINES -DCUDA_BLOCK_SIZE=192
    -DMAXIDGPU=0 -DMAXTHREADSPERBLOCK0=1024 -DSHAREDMEMPERBLOCK0=49152 -DUSE_CUDA=1
    "${defs[@]}" "${inc[@]}")
  keops15_cxx=(g++ -std=c++17 -O3 -DUSE_OPENMP -fopenmp -Wall -Wno-unknown-pragmas -DUSE_CUDA=0
    "${defs[@]}" "${inc[@]}")
}
