#!/usr/bin/env bash
# Compile-time benchmark: wall-clock time to compile, side by side in one run,
#   nvcc -O3 (sm_90):  an empty .cu  vs  the Gaussian sum + its gradient (CUDA backend),
#                      with the umbrella header and with only the headers used
#   g++ -O3:           an empty .cpp vs  the Gaussian sum + its gradient (Kokkos backend)
#   g++ -O3:           the Gaussian sum with its 1st..4th derivative w.r.t. x (the curve)
#   g++ -O3:           the Gaussian sum under kops::with_dim with 1, 4, 8 dimensions listed
#                      (the compile-time cost per listed dimension)
#   g++ -O3:           the Gaussian sum from the C++ builders vs from its KeOps string
#                      (kops::keops_reduction: the cost of the compile-time parse)
#   g++ -O3:           a TU including only <Kokkos_Core.hpp>, and one with a single
#                      Kokkos::parallel_for (what any Kokkos TU pays)
#   nvcc -O3 (sm_90):  (s) a TU of only the C++ standard headers (b') reaches; with
#                      KEOPS15_DIR also (s') those KeOps 1.5's TU reaches, under its
#                      flags (C++17) and under kops's (C++20)
# With KEOPS15_DIR set to a KeOps 1.5 tree (github getkeops/keops, tag v1.5, with its
# taocpp/sequences submodule, or SEQUENCES_DIR), also, in the same run, the same pair in
# KeOps 1.5's template engine (bench/compile/keops15/: GPU_1D + GPU_2D on nvcc, CpuConv
# on g++, KeOps's own flags), and the lines comparing the cost above the empty TU
# (for g++, kops's is the Kokkos TU minus <Kokkos_Core.hpp> alone). Without it those rows
# are skipped with a message. CI does not run this.
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
#   compile.log  date, machine, compiler versions, load average at the start, the table,
#                the KeOps 1.5 comparison lines
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
# kops's flags are those the CMake target kops::cuda gives a .cu file (no
# --extended-lambda: kops needs none, and the flag alone costs an empty TU 0.45 s).
nvcc="$nvcc_bin -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr -Iinclude"

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
declare -A W C                                               # key -> best wall / CPU seconds
measure() {  # key what compiler order command... -> one table line and one CSV line
  local key=$1 what=$2 comp=$3 order=$4 res w c
  shift 4
  res=$(best "$@")
  read -r w c <<<"$res"
  W[$key]=$w C[$key]=$c
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
  if [ -n "${KEOPS15_DIR:-}" ]; then
    echo "# KeOps 1.5: KEOPS15_DIR=$KEOPS15_DIR (version file: $(cat "$KEOPS15_DIR/version" 2>/dev/null || echo none)), SEQUENCES_DIR=${SEQUENCES_DIR:-its submodule}"
  fi
} >"$log"
. bench/compile/keops15/flags.sh
. bench/compile/std_tu.sh
keops15=0
keops15_setup "$out" && keops15=1
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
  # (s): only the C++ standard headers that (b') reaches, each project's own list, found
  # by preprocessing its TU (std_tu): what each pays for the standard library alone.
  std_tu "$out/std_kops.cu" $nvcc bench/compile/gauss_grad_min.cu
  measure nvcc_std_kops "(s) the standard headers (b') reaches, alone" "nvcc -O3 sm_90" "" \
    $nvcc -c "$out/std_kops.cu" -o "$out/std_kops_cu.o"
  if [ $keops15 = 1 ]; then
    # KeOps 1.5's cost is taken above an empty TU compiled with its own flags
    # (C++17, --use_fast_math, its macros): each project's TU minus its own empty one.
    measure nvcc_keops15_empty "(a') empty TU, KeOps 1.5's nvcc flags" "nvcc -O3 sm_90" "" \
      "${keops15_nvcc[@]}" -c bench/compile/empty.cu -o "$out/keops15_empty_cu.o"
    measure nvcc_keops15_gauss_grad "keops 1.5 gauss + grad (nvcc)" "nvcc -O3 sm_90" "" \
      "${keops15_nvcc[@]}" -c bench/compile/keops15/gauss_grad.cu -o "$out/keops15_gauss_grad_cu.o"
    std_tu "$out/std_keops15.cu" "${keops15_nvcc[@]}" bench/compile/keops15/gauss_grad.cu
    measure nvcc_std_keops15 "(s') the standard headers KeOps 1.5's TU reaches, alone (its flags: C++17)" \
      "nvcc -O3 sm_90" "" "${keops15_nvcc[@]}" -c "$out/std_keops15.cu" -o "$out/std_keops15_cu.o"
    measure nvcc_std_keops15_cxx20 "the same headers under kops's flags (C++20)" "nvcc -O3 sm_90" "" \
      $nvcc -c "$out/std_keops15.cu" -o "$out/std_keops15_cxx20_cu.o"
  else
    md "| $keops15_skip | | | |"
  fi
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
for n in 1 4 8; do
  measure gxx_with_dim$n "Gaussian sum, kops::with_dim over $n dimensions (1..$n), Kokkos backend" "g++ -O3" "" \
    $cxx -DNDIMS=$n bench/compile/with_dim_kokkos.cpp -o "$out/with_dim$n" $kokkos_lib
done
measure gxx_gauss_builders "Gaussian sum from the C++ builders, Kokkos backend" "g++ -O3" "" \
  $cxx -DFROM_STRING=0 bench/compile/gauss_keops_string.cpp -o "$out/gauss_builders" $kokkos_lib
measure gxx_gauss_string "Gaussian sum from its KeOps string (kops::keops_reduction), Kokkos backend" "g++ -O3" "" \
  $cxx -DFROM_STRING=1 bench/compile/gauss_keops_string.cpp -o "$out/gauss_string" $kokkos_lib
measure gxx_kokkos_core "<Kokkos_Core.hpp> alone" "g++ -O3" "" \
  $cxx bench/compile/kokkos_core.cpp -o "$out/kokkos_core" $kokkos_lib
measure gxx_kokkos_for "<Kokkos_Core.hpp> and one Kokkos::parallel_for" "g++ -O3" "" \
  $cxx bench/compile/kokkos_parallel_for.cpp -o "$out/kokkos_parallel_for" $kokkos_lib
if [ $keops15 = 1 ]; then
  measure gxx_keops15_gauss_grad "keops 1.5 gauss + grad (g++)" "g++ -O3" "" \
    "${keops15_cxx[@]}" bench/compile/keops15/gauss_grad.cpp -o "$out/keops15_gauss_grad"
else
  md "| $keops15_skip | | | |"
fi
above() {  # label kops kops_base keops keops_base (keys) -> "label: wall a / b = r; CPU a / b = r"
  python3 - "$1" "${W[$2]}" "${W[$3]}" "${W[$4]}" "${W[$5]}" "${C[$2]}" "${C[$3]}" "${C[$4]}" "${C[$5]}" <<'PY'
import sys
label, *t = sys.argv[1:]
a, b, c, d, e, f, g, h = map(float, t)
r = lambda a, b, c, d: f"{a - b:.2f} / {c - d:.2f} = {(a - b) / (c - d):.2f}"
print(f"{label}: wall {r(a, b, c, d)}; CPU {r(e, f, g, h)}")
PY
}
if [ $keops15 = 1 ]; then
  md ""
  md "kops above empty / KeOps 1.5 above empty (s / s = ratio):"
  if [ -n "${W[nvcc_keops15_gauss_grad]:-}" ]; then
    md "- $(above "nvcc, (b) umbrella" nvcc_gauss_grad nvcc_empty nvcc_keops15_gauss_grad nvcc_keops15_empty)"
    md "- $(above "nvcc, (b') headers used" nvcc_gauss_grad_min nvcc_empty nvcc_keops15_gauss_grad nvcc_keops15_empty)"
    md "- $(above "nvcc, the standard headers alone: (s) / (s')" nvcc_std_kops nvcc_empty nvcc_std_keops15 nvcc_keops15_empty)"
    md "- $(above "nvcc, (b') above its standard headers / KeOps above its standard headers" nvcc_gauss_grad_min nvcc_std_kops nvcc_keops15_gauss_grad nvcc_std_keops15)"
  fi
  md "- $(above "g++, kops = Kokkos TU - <Kokkos_Core.hpp> alone" gxx_gauss_grad gxx_kokkos_core gxx_keops15_gauss_grad gxx_empty)"
  md "- $(above "g++, kops = Kokkos TU - a TU with one Kokkos::parallel_for" gxx_gauss_grad gxx_kokkos_for gxx_keops15_gauss_grad gxx_empty)"
fi
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$log"
