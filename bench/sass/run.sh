#!/usr/bin/env bash
# SASS analysis of the kops GPU kernels next to keopscore's, without a GPU.
#
#   bash bench/sass/run.sh        (from anywhere; a few minutes on 2 cores)
#
# 1. A Python venv in build/sass/venv with, from PyPI, nvidia-cuda-cuobjdump and
#    nvidia-cuda-nvdisasm 13.2.x (the disassemblers; nvcc 13.0 has none here) and
#    keopscore 2.3 (pure Python; generates KeOps' CUDA source).
# 2. kops: the sources of bench/sass/ (gauss.cu, gauss_grad.cu, argkmin.cu,
#    logsumexp.cu; cases.sh's cases and the tuned variants of variant_cases)
#    in float and double, precision fast and accurate, each compiled
#    with  nvcc -cubin -arch=sm_90 -O3 -std=c++20 --expt-relaxed-constexpr
#    -I include  (+ -Xptxas -v for registers, stack, spills).
# 3. keopscore: the same formulas, its generated source (keops_gen.py) compiled
#    with the same nvcc and flags plus --use_fast_math (pykeops' default; keopscore
#    passes -use_fast_math to nvrtc).
# 4. cuobjdump -sass and -res-usage of every cubin, then sass_stats.py: per kernel
#    registers, spills, stack, shared memory, the hot loop's instructions per pair
#    and a predicted H100 throughput.
#
# Writes bench/results/sass.csv (every kernel), bench/sass/results.md (the table
# and the targets) and refreshes the table between the sass-table markers of
# docs/performance.md. Intermediate files: build/sass/ (rebuilt on every run).
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
# PYTHON (the interpreter that makes the venv, default python3), JOBS (default nproc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
out=build/sass
venv=$out/venv
jobs=${JOBS:-$(nproc)}

die() { echo "run.sh: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- toolchain
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || die "nvcc not found (set NVCC=...)"
[ -f /usr/include/boost/hana.hpp ] ||
  echo "run.sh: warning: no /usr/include/boost/hana.hpp (Debian: apt-get install -y libboost1.81-dev)" >&2
command -v c++filt >/dev/null || die "c++filt not found (binutils)"

want_tools='nvidia-cuda-cuobjdump==13.2.* nvidia-cuda-nvdisasm==13.2.* keopscore==2.3'
if [ ! -x "$venv/bin/python" ]; then
  echo "== creating $venv"
  "${PYTHON:-python3}" -m venv "$venv" ||
    die "python3 -m venv failed (Debian python: apt-get install -y python3-venv, or set PYTHON=)"
fi
# pip does not touch the network when the installed versions already match.
# shellcheck disable=SC2086
"$venv/bin/python" -m pip install --disable-pip-version-check -q $want_tools ||
  die "pip install of $want_tools failed"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
# The wheels put the binaries in site-packages/nvidia/cu13/bin.
bindir=$(dirname "$(find "$site/nvidia" -type f -name cuobjdump -perm -u+x | head -n1)")
if [ ! -x "$bindir/cuobjdump" ] || [ ! -x "$bindir/nvdisasm" ]; then
  die "cuobjdump/nvdisasm not found under $site/nvidia"
fi
export PATH="$bindir:$PATH"  # cuobjdump -sass runs nvdisasm from PATH

echo "== $("$nvcc" --version | tail -n1)"
echo "== $(cuobjdump --version | tail -n1) (cuobjdump), $(nvdisasm --version | tail -n1) (nvdisasm)"

rm -rf "$out/kops" "$out/keops" "$out/all"
mkdir -p "$out/kops" "$out/keops" "$out/all"

# ------------------------------------------------------------- the kernel set
. "$here/cases.sh"
flags=(-cubin -arch=sm_90 -O3 -std=c++20 --expt-relaxed-constexpr)

jobfile=$out/jobs.txt
: >"$jobfile"
for c in "${cases[@]}" "${variant_cases[@]}"; do
  IFS='|' read -r name src defs types <<<"$c"
  for t in ${types:-float double}; do
    case $t in half | bfloat16) ct=kops::$t ;; *) ct=$t ;; esac
    for p in fast accurate; do
      stem=kops_${name}_${t}_${p}
      printf '{"impl": "kops", "case": "%s", "dtype": "%s", "precision": "%s", "source": "bench/sass/%s %s"}\n' \
        "$name" "$t" "$p" "$src" "$defs" >"$out/all/$stem.json"
      echo "$stem $here/$src -I include -DSASS_T=$ct -DSASS_PREC=$p${defs:+ $defs}" >>"$jobfile"
    done
  done
done

echo "== generating keopscore sources"
# (keopscore warns that it found no CUDA driver and switches to CPU mode: expected here.)
"$venv/bin/python" "$here/keops_gen.py" "$out/keops" >"$out/keops_gen.log" 2>&1 ||
  { cat "$out/keops_gen.log" >&2; die "keops_gen.py failed"; }
grep -v '^\[KeOps\] Warning' "$out/keops_gen.log" || true
for f in "$out"/keops/keops_*.cu; do
  stem=$(basename "$f" .cu)
  cp "$out/keops/$stem.json" "$out/all/$stem.json"
  echo "$stem $f --use_fast_math" >>"$jobfile"
done

# ------------------------------------------------------------------ compile
compile_one() {  # stem source-and-flags...  (common flags from $FLAGS_STR)
  local stem=$1; shift
  local o=$OUT_DIR/all/$stem
  local -a common
  read -ra common <<<"$FLAGS_STR"
  if ! "$NVCC_BIN" "${common[@]}" "$@" -Xptxas -v -o "$o.cubin" 2>"$o.ptxas.log"; then
    echo "run.sh: error: compiling $stem failed:" >&2
    cat "$o.ptxas.log" >&2
    return 255  # makes xargs stop
  fi
  cuobjdump -sass "$o.cubin" >"$o.sass" || { echo "run.sh: error: cuobjdump -sass $stem" >&2; return 255; }
  cuobjdump -res-usage "$o.cubin" >"$o.res" || { echo "run.sh: error: cuobjdump -res-usage $stem" >&2; return 255; }
  echo "   $stem"
}
export -f compile_one
export OUT_DIR=$out NVCC_BIN=$nvcc
# bash cannot export arrays: pass the flags through a string.
export FLAGS_STR="${flags[*]}"
n=$(wc -l <"$jobfile")
echo "== compiling $n translation units ($jobs at a time)"
start=$SECONDS
# One line of $jobfile per translation unit: "stem source flags..." (no spaces in paths).
xargs -P "$jobs" -L 1 bash -c 'compile_one "$@"' _ <"$jobfile" ||
  die "a compilation or disassembly failed (see above)"
echo "== compiled in $((SECONDS - start)) s"

# -------------------------------------------------------------------- parse
header="nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), \
cuobjdump/nvdisasm $("$venv/bin/python" -m pip show nvidia-cuda-cuobjdump | sed -n 's/^Version: //p'), \
keopscore $("$venv/bin/python" -m pip show keopscore | sed -n 's/^Version: //p'); sm_90; \
prediction for an H100 SXM5 (132 SMs, 1.98 GHz boost clock), min of the issue, MUFU and FP64 limits."
"$venv/bin/python" "$here/sass_stats.py" "$out/all" \
  --csv bench/results/sass.csv --md bench/sass/results.md --docs docs/performance.md --header "$header"
echo "== wrote bench/results/sass.csv, bench/sass/results.md, docs/performance.md (sass-table block)"
