#!/usr/bin/env bash
# Where the compile time of run.sh's TUs goes, kops and KeOps 1.5 side by side:
#   nvcc: the steps `nvcc --dryrun` lists (g++ -E twice, cudafe++, cicc, ptxas, fatbinary,
#         the host g++), each timed two ways: nvcc -time (nvcc's own per-phase wall times,
#         best of REPS) and the step replayed alone under /usr/bin/time (user + sys, best of
#         REPS: the steadier number on a loaded machine); inside cicc and ptxas with
#         nvcc -fdevice-time-trace; the host g++ step with g++ -ftime-report (clang++ cannot
#         read nvcc's .cudafe1.cpp, which uses g++ builtins).
#   g++:  the Kokkos TU, <Kokkos_Core.hpp> alone, KeOps 1.5's CPU TU and the empty TU under
#         clang++ -ftime-trace with the same flags (-c, no link), or g++ -ftime-report when
#         clang++ is missing.
# (b') is also split: its standard headers alone (std_tu.sh), then its #include lines, its
# formulas, its eval calls (gauss_grad_min.cu's PART), each part's cost per step.
# TUs: empty.cu, gauss_grad.cu (umbrella), gauss_grad_min.cu and, with KEOPS15_DIR set (see
# keops15/flags.sh), keops15/gauss_grad.cu; empty.cpp, kokkos_core.cpp,
# gauss_grad_kokkos.cpp (-DORDER=1) and keops15/gauss_grad.cpp. One compile at a time.
#   usage: [KEOPS15_DIR=...] [REPS=3] bash bench/compile/breakdown.sh
# Outputs: Markdown on stdout and in OUT_DIR/breakdown.md (OUT_DIR default
# build/bench-compile/breakdown), with the raw data beside it (see breakdown.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPS="${REPS:-3}"
out="${OUT_DIR:-build/bench-compile/breakdown}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out"/nvcc_* "$out"/clang_* "$out"/gxx_* "$out/sides" "$out/breakdown.md"  # a previous run's
kokkos_inc=/usr/include/trilinos
cxx_flags=(-std=c++20 -O3 -fno-math-errno -Wno-psabi -Iinclude -isystem "$kokkos_inc")   # as run.sh
nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
nvcc_kops=("$nvcc_bin" -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr -Iinclude)
. bench/compile/keops15/flags.sh
. bench/compile/std_tu.sh
keops15=0
keops15_setup "$out" && keops15=1 || echo "# $keops15_skip" >&2
: >"$out/sides"

replay() {  # dir: runs the steps of dir/dryrun.txt one by one, REPS times each -> dir/steps.txt
  local d=$1 line name w u s _
  (
    while IFS= read -r line; do
      line=${line#'#$ '}
      if [[ $line =~ ^[A-Za-z_]+=(\"[^\"]*\"|[^\"[:space:]]*)[[:space:]]*$ ]]; then
        eval "export $line"; continue
      fi
      [[ $line =~ ^[A-Za-z_]+= || $line == rm\ * ]] && continue  # lists no step uses; clean-up
      case $line in
        gcc*" -E "*) if [[ $line == *-D__CUDA_ARCH__=* ]]; then name="gcc (preprocessing 1)"
                     else name="gcc (preprocessing 4)"; fi ;;
        gcc*) name="gcc (compiling)" ;;
        cudafe++*) name="cudafe++" ;;
        ptxas*) name="ptxas" ;;
        fatbinary*) name="fatbinary" ;;  # before cicc: its line holds --cicc-cmdline
        *cicc*) name="cicc" ;;
        *) name="${line%% *}" ;;
      esac
      for _ in $(seq "$REPS"); do
        /usr/bin/time -f '%e %U %S' -o "$d/t" bash -c "$line" >/dev/null 2>"$d/step.err" ||
          { cat "$d/step.err" >&2; exit 1; }
        read -r w u s <"$d/t"
        echo "$name $w $u $s" >>"$d/steps.txt"
      done
    done <"$d/dryrun.txt"
  )
}

nvcc_side() {  # name label source compiler-and-flags...
  local name=$1 label=$2 src=$3 d="$out/nvcc_$1" host
  shift 3
  mkdir -p "$d"
  echo "nvcc $name $label" >>"$out/sides"
  echo "# nvcc: $label" >&2
  for _ in $(seq "$REPS"); do
    "$@" -c "$src" -o "$d/out.o" --keep --keep-dir "$d" -time "$d/phases.csv" >/dev/null
  done
  "$@" -c "$src" -o "$d/out.o" --keep --keep-dir "$d" --dryrun 2>"$d/dryrun.txt"
  : >"$d/steps.txt"
  replay "$d"
  "$@" -c "$src" -o "$d/trace.o" -fdevice-time-trace "$d/device_trace" >/dev/null
  # nvcc 13 writes device_trace.json (it appends .json); others may keep the name
  if [ ! -f "$d/device_trace.json" ] && [ -f "$d/device_trace" ]; then mv "$d/device_trace" "$d/device_trace.json"; fi
  host=$(grep '^#\$ gcc.* -c ' "$d/dryrun.txt" | tail -1)
  host=${host#'#$ '}
  bash -c "$host -ftime-report" 2>"$d/host_report.txt" >/dev/null ||
    { head -30 "$d/host_report.txt" >&2; echo "breakdown.sh: the host step failed on $src" >&2; exit 1; }
}

gxx_side() {  # name label source compiler flags...
  local name=$1 label=$2 src=$3
  shift 3
  echo "gxx $name $label" >>"$out/sides"
  echo "# g++: $label" >&2
  if command -v clang++ >/dev/null; then
    clang++ "${@:2}" -ftime-trace -c "$src" -o "$out/clang_$name.o" 2>"$out/clang_$name.err" ||
      { head -30 "$out/clang_$name.err" >&2; echo "breakdown.sh: clang++ failed on $src" >&2; exit 1; }
  else
    "$@" -ftime-report -c "$src" -o "$out/gxx_$name.o" 2>"$out/gxx_$name.txt" ||
      { head -30 "$out/gxx_$name.txt" >&2; echo "breakdown.sh: g++ failed on $src" >&2; exit 1; }
  fi
}

if [ -x "$nvcc_bin" ]; then
  nvcc_side empty "empty .cu" bench/compile/empty.cu "${nvcc_kops[@]}"
  nvcc_side kops "kops (b)" bench/compile/gauss_grad.cu "${nvcc_kops[@]}"
  # (b') cut in parts (its PART macro), each side the one before plus one part:
  # the standard headers it reaches (std_tu), its #include lines, its two formulas.
  std_tu "$out/std_kops.cu" "${nvcc_kops[@]}" bench/compile/gauss_grad_min.cu
  nvcc_side kops_std "(b')'s standard headers" "$out/std_kops.cu" "${nvcc_kops[@]}"
  nvcc_side kops_headers "(b')'s includes" bench/compile/gauss_grad_min.cu "${nvcc_kops[@]}" -DPART=1
  nvcc_side kops_formulas "(b')'s formulas" bench/compile/gauss_grad_min.cu "${nvcc_kops[@]}" -DPART=2
  nvcc_side kops_min "kops (b')" bench/compile/gauss_grad_min.cu "${nvcc_kops[@]}"
  if [ $keops15 = 1 ]; then
    nvcc_side keops15_empty "empty .cu, KeOps 1.5's flags" bench/compile/empty.cu "${keops15_nvcc[@]}"
    nvcc_side keops15 "KeOps 1.5" bench/compile/keops15/gauss_grad.cu "${keops15_nvcc[@]}"
  fi
else
  echo "# nvcc not found: nvcc breakdown skipped" >&2
fi
gxx_side empty "empty .cpp" bench/compile/empty.cpp g++ "${cxx_flags[@]}"
gxx_side kokkos_core "Kokkos_Core.hpp alone" bench/compile/kokkos_core.cpp g++ "${cxx_flags[@]}"
gxx_side kops "kops Kokkos TU" bench/compile/gauss_grad_kokkos.cpp g++ "${cxx_flags[@]}" -DORDER=1
if [ $keops15 = 1 ]; then
  gxx_side keops15 "KeOps 1.5 CPU TU" bench/compile/keops15/gauss_grad.cpp "${keops15_cxx[@]}"
fi
{
  echo "# bench/compile/breakdown.sh, REPS=$REPS, $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ $keops15 = 1 ]; then echo "# KEOPS15_DIR=$KEOPS15_DIR"; else echo "# $keops15_skip"; fi
  echo
  python3 bench/compile/breakdown.py "$out"
} | tee "$out/breakdown.md"
