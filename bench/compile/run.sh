#!/usr/bin/env bash
# Compile-time benchmark: wall-clock time to compile, side by side in one run,
#   nvcc -O3 (sm_90):  an empty .cu  vs  the Gaussian sum + its gradient (CUDA backend),
#                      with the umbrella header and with only the headers used
#   g++ -O3:           an empty .cpp vs  the Gaussian sum + its gradient (Kokkos backend)
#   g++ -O3:           the Gaussian sum with its 1st..4th derivative w.r.t. x (the curve)
# Each compile runs REPS times (default 3); the best time is reported.
#   usage: bash bench/compile/run.sh            (from any directory)
# Outputs: the Markdown table on stdout; in OUT_DIR (default build/bench-compile):
#   compile.csv  key,what,compiler,order,seconds,ratio,cpu_seconds,cpu_ratio
#                seconds: the best wall time (to 3 decimals), the number of the table;
#                cpu_seconds: the best CPU time, user + sys of the compiler and its
#                subprocesses (on a loaded machine the steadier number: it leaves out the
#                time other processes had the core); ratio, cpu_ratio: divided by the same
#                of the empty TU of the same compiler; order: the derivative order of the
#                g++ Kokkos rows, empty otherwise
#   compile.log  date, machine, compiler versions, load average at the start, the table
# The Markdown shows seconds to 2 decimals; its ratios come from the 3-decimal values.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPS="${REPS:-3}"
out="${OUT_DIR:-build/bench-compile}"
mkdir -p "$out"
csv="$out/compile.csv"
log="$out/compile.log"
kokkos_inc=/usr/include/trilinos
kokkos_lib="-ltrilinos_kokkoscore -ldl"
cxx="g++ -std=c++20 -O3 -fno-math-errno -Wno-psabi -Iinclude -isystem $kokkos_inc"
nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
nvcc="$nvcc_bin -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -Iinclude"

best() {  # "wall cpu": the best wall time and the best CPU time (user + sys of the compiler
          # and the processes it waits for) in seconds of REPS runs of "$@", each to 3 decimals
  local bw="" bc="" r u s TIMEFORMAT='%R %U %S'
  for _ in $(seq "$REPS"); do
    { time "$@" >/dev/null 2>"$out/last.err"; } 2>"$out/last.time" || { cat "$out/last.err" >&2; return 1; }
    read -r r u s <"$out/last.time"
    read -r bw bc < <(python3 -c "w, c = $r, $u + $s; print(w if '$bw' == '' else min(float('$bw'), w), c if '$bc' == '' else min(float('$bc'), c))")
  done
  printf '%.3f %.3f' "$bw" "$bc"
}
s2() { printf '%.2f' "$1"; }                                 # seconds as the table shows them
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
md() { echo "$1" | tee -a "$log"; }                          # a table line: stdout + log
base_w="" base_c=""                                          # the empty TU of the current compiler
measure() {  # key what compiler order command... -> one table line and one CSV line
  local key=$1 what=$2 comp=$3 order=$4 res w c
  shift 4
  res=$(best "$@")
  read -r w c <<<"$res"
  if [[ $key == *_empty ]]; then base_w=$w base_c=$c; fi
  md "| $what | $comp | $(s2 "$w") | $(ratio "$w" "$base_w") |"
  printf '%s,"%s",%s,%s,%s,%s,%s,%s\n' "$key" "${what//\"/\"\"}" "$comp" "$order" \
    "$w" "$(ratio "$w" "$base_w")" "$c" "$(ratio "$c" "$base_c")" >>"$csv"
}

{
  echo "# bench/compile/run.sh, REPS=$REPS, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# $(g++ --version | head -1)"
  if [ -x "$nvcc_bin" ]; then echo "# nvcc: $("$nvcc_bin" --version | grep -o 'release [0-9.]*, V[0-9.]*')"; fi
} >"$log"
echo "key,what,compiler,order,seconds,ratio,cpu_seconds,cpu_ratio" >"$csv"

md "| what | compiler | time (s) | ratio |"
md "|---|---|---:|---:|"
if [ -x "$nvcc_bin" ]; then
  measure nvcc_empty "(a) empty TU" "nvcc -O3 sm_90" "" \
    $nvcc -c bench/compile/empty.cu -o "$out/empty_cu.o"
  measure nvcc_gauss_grad "(b) Gaussian sum + gradient, CUDA backend, <kops/cuda.hpp> umbrella" "nvcc -O3 sm_90" "" \
    $nvcc -c bench/compile/gauss_grad.cu -o "$out/gauss_grad_cu.o"
  measure nvcc_gauss_grad_min "(b') the same, including only the headers it uses" "nvcc -O3 sm_90" "" \
    $nvcc -c bench/compile/gauss_grad_min.cu -o "$out/gauss_grad_min_cu.o"
else
  md "| nvcc not found: CUDA rows skipped | | | |"
fi
measure gxx_empty "(a) empty TU" "g++ -O3" "" $cxx bench/compile/empty.cpp -o "$out/empty"
measure gxx_gauss_grad "(b) Gaussian sum + gradient, Kokkos backend" "g++ -O3" 1 \
  $cxx -DORDER=1 bench/compile/gauss_grad_kokkos.cpp -o "$out/gauss1" $kokkos_lib
for n in 2 3 4; do
  measure gxx_order$n "Gaussian sum + derivative of order $n, Kokkos backend" "g++ -O3" $n \
    $cxx -DORDER=$n bench/compile/gauss_grad_kokkos.cpp -o "$out/gauss$n" $kokkos_lib
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
