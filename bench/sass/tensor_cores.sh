#!/usr/bin/env bash
# SASS of the tensor-core kernel (backends/cuda/tensor_core.hpp) beside the
# CUDA-core kernel of the same call, without a GPU:
#
#   bash bench/sass/tensor_cores.sh      (after bench/sass/run.sh made build/sass/venv)
#
# Compiles bench/sass's gauss.cu, argkmin.cu and dotexp.cu with -DSASS_TC (eval's default
# tensor_cores::automatic: the TU then holds both kernels, the tensor-core one
# and the CUDA-core fallback for devices before sm_80) for sm_90, precision
# fast (and accurate: dotexp's 3xTF32), float and kops::half storage, D = 64,
# 128, 256, 1024, and reports per
# tensor-core reduce kernel (tc_stats.py): registers, spills, HMMA per tile
# step, and the instructions of one step of the kernel's walk split into the
# MMA-and-formula part (straight-line code of the step loop, which the
# warp spends on its 16 x 8 NT pairs: 4 NT pairs per lane) and the staging
# loops (the block's copy of the tile into shared memory and the norms; static
# size and trip count per thread), and the CUDA-core kernel's instructions per
# pair from sass_stats.py's model, for the ratio. Writes build/sass/tc/ and
# prints a Markdown table (docs/tensor_cores.md, "SASS").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
out=build/sass/tc
mkdir -p "$out"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export PATH="$root/build/sass/venv/lib/python3.11/site-packages/nvidia/cu13/bin:$PATH"
command -v cuobjdump > /dev/null || { echo "tensor_cores.sh: cuobjdump not found: run bench/sass/run.sh first" >&2; exit 1; }
# stem | source | defines (precision fast unless the stem ends in _accurate)
cases=(
  "gauss64_float|gauss.cu|-DSASS_D=64 -DSASS_T=float"
  "gauss64_half|gauss.cu|-DSASS_D=64 -DSASS_T=kops::half"
  "gauss128_half|gauss.cu|-DSASS_D=128 -DSASS_T=kops::half"
  "gauss256_float|gauss.cu|-DSASS_D=256 -DSASS_T=float"
  "gauss1024_float|gauss.cu|-DSASS_D=1024 -DSASS_T=float"
  "argkmin8_d128_float|argkmin.cu|-DSASS_D=128 -DSASS_T=float"
  "argkmin8_d128_half|argkmin.cu|-DSASS_D=128 -DSASS_T=kops::half"
  "dotexp64_float|dotexp.cu|-DSASS_D=64 -DSASS_T=float"
  "dotexp64_float_accurate|dotexp.cu|-DSASS_D=64 -DSASS_T=float"
)
prec_of() { case $1 in *_accurate) echo accurate ;; *) echo fast ;; esac; }
pids=()
for c in "${cases[@]}"; do
  IFS='|' read -r stem src defs <<< "$c"
  # shellcheck disable=SC2086
  ( "$nvcc" -cubin -arch=sm_90 -O3 -std=c++20 --expt-relaxed-constexpr -Iinclude -DSASS_TC -DSASS_PREC="$(prec_of "$stem")" $defs \
      -Xptxas -v -o "$out/$stem.cubin" "bench/sass/$src" 2> "$out/$stem.ptxas.log" &&
    cuobjdump -sass "$out/$stem.cubin" > "$out/$stem.sass" ) &
  pids+=($!)
  if [ ${#pids[@]} -ge "${JOBS:-2}" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait
# The CUDA-core kernels of the cases bench/sass/results.md has no row for
# (run.sh's set has no D = 128 Gaussian and no dot product): compiled with
# the tensor cores off, their instructions per pair by sass_stats.py, into
# $out/cc/out.md.
mkdir -p "$out/cc"
cc_cases=(
  "gauss128|half|fast|gauss.cu|-DSASS_D=128"
  "dotexp64|float|fast|dotexp.cu|-DSASS_D=64"
  "dotexp64|float|accurate|dotexp.cu|-DSASS_D=64"
)
for c in "${cc_cases[@]}"; do
  IFS='|' read -r case t p src defs <<< "$c"
  ct=$t
  [ "$t" = half ] && ct=kops::half
  stem=kops_${case}_${t}_$p
  printf '{"impl": "kops", "case": "%s", "dtype": "%s", "precision": "%s", "source": "bench/sass/%s %s"}\n' \
    "$case" "$t" "$p" "$src" "$defs" > "$out/cc/$stem.json"
  # shellcheck disable=SC2086
  "$nvcc" -cubin -arch=sm_90 -O3 -std=c++20 --expt-relaxed-constexpr -Iinclude -DSASS_T="$ct" -DSASS_PREC="$p" \
    $defs -Xptxas -v -o "$out/cc/$stem.cubin" "bench/sass/$src" 2> "$out/cc/$stem.ptxas.log"
  cuobjdump -sass "$out/cc/$stem.cubin" > "$out/cc/$stem.sass"
  cuobjdump -res-usage "$out/cc/$stem.cubin" > "$out/cc/$stem.res"
done
python3 bench/sass/sass_stats.py "$out/cc" --csv "$out/cc/out.csv" --md "$out/cc/out.md" > /dev/null
python3 bench/sass/tc_stats.py "$out" "${cases[@]%%|*}"
