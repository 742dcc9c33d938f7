#!/usr/bin/env bash
# Is KeOps's kernel, as the scoreboard compiles it (nvcc, ahead of time), the
# kernel pykeops runs (nvrtc, at run time)? For every generated source, this
# compiles it twice for sm_90 without a GPU:
#   nvrtc  bench/peer/nvrtc_cubin.cpp: keopscore's options, -arch=sm_90 -use_fast_math
#   nvcc   the flags bench/peer/peer.cmake gives kops_peer's KeOps objects in a
#          Release build: -O3 -std=c++20 --expt-relaxed-constexpr -use_fast_math,
#          code for sm_90
# and compares the two SASS listings (cuobjdump -sass, addresses and encodings
# dropped). Prints one line per source and "N of M identical", then a table of
# both kernels' registers and hot-loop instructions per pair (bench/sass's parser).
#
#   bash bench/peer/sass_nvrtc.sh [DIR]   (DIR: the sources, default .whl/keops-src,
#                                          which tools/gpu_check.sh --prepare fills)
# Needs nvcc and libnvrtc (CUDA toolkit; NVCC= to choose) and cuobjdump (PATH, or
# build/sass/venv as bench/sass/run.sh installs it). Work files: build/peer-sass/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
src=${1:-$root/.whl/keops-src}
out=$root/build/peer-sass
die() { echo "sass_nvrtc.sh: $*" >&2; exit 1; }

nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || die "nvcc not found (NVCC=...)"
cuda=$(cd "$(dirname "$nvcc")/.." && pwd)
cuobjdump=$(command -v cuobjdump || find "$root/build/sass/venv" -type f -name cuobjdump -perm -u+x 2>/dev/null | head -n 1)
[ -n "$cuobjdump" ] || die "cuobjdump not found (PATH; or run bench/sass/run.sh once: build/sass/venv)"
compgen -G "$src/keops_*.json" >/dev/null || die "no keops_*.json in $src (bash tools/gpu_check.sh --prepare)"

mkdir -p "$out"
g++ -std=c++17 -O1 -I "$cuda/include" "$root/bench/peer/nvrtc_cubin.cpp" -L "$cuda/lib64" -lnvrtc \
  -Wl,-rpath,"$cuda/lib64" -o "$out/nvrtc_cubin"

# The SASS instructions of a cubin, without addresses, encodings or comments.
sass() { "$cuobjdump" -sass "$1" | sed -n 's@^ */\*[0-9a-f]\{4\}\*/ *\(.*[^ ]\) *;.*@\1@p'; }

same=0 total=0
for f in "$src"/keops_*.json; do
  stem=$(basename "${f%.json}")
  "$out/nvrtc_cubin" "$src/$stem.cu" sm_90 "$out/$stem.nvrtc.cubin"
  "$nvcc" -cubin -O3 -std=c++20 --expt-relaxed-constexpr -use_fast_math -w \
    "--generate-code=arch=compute_90,code=[sm_90]" "$src/$stem.cu" -o "$out/$stem.nvcc.cubin"
  sass "$out/$stem.nvrtc.cubin" >"$out/$stem.nvrtc.sass"
  sass "$out/$stem.nvcc.cubin" >"$out/$stem.nvcc.sass"
  total=$((total + 1))
  n=$(wc -l <"$out/$stem.nvrtc.sass")
  [ "$n" -gt 0 ] || die "$stem: no SASS read from the nvrtc cubin"
  if cmp -s "$out/$stem.nvrtc.sass" "$out/$stem.nvcc.sass"; then
    same=$((same + 1))
    echo "$stem: identical ($n instructions)"
  else
    echo "$stem: DIFFERENT: $(diff "$out/$stem.nvrtc.sass" "$out/$stem.nvcc.sass" | grep -c '^[<>]') lines differ" \
      "(nvrtc $n, nvcc $(wc -l <"$out/$stem.nvcc.sass") instructions; diff $out/$stem.{nvrtc,nvcc}.sass)"
  fi
done
echo "sass_nvrtc.sh: $same of $total KeOps kernels have identical SASS from nvrtc and nvcc ($("$nvcc" --version | tail -n 1))"

# Where they differ, by how much: bench/sass/sass_stats.py's hot-loop count of
# both, nvcc's listed as precision "fast" and nvrtc's as "accurate" (its only
# two labels), registers and stack from cuobjdump -res-usage (no ptxas log for
# nvrtc: the spill columns are not read).
stats=$out/stats
rm -rf "$stats" && mkdir -p "$stats"
for f in "$src"/keops_*.json; do
  stem=$(basename "${f%.json}")
  for c in nvcc nvrtc; do
    o=$stats/${stem}_$c
    cp "$out/$stem.$c.cubin" "$o.cubin"
    "$cuobjdump" -sass "$o.cubin" >"$o.sass"
    "$cuobjdump" -res-usage "$o.cubin" >"$o.res"
    printf 'ptxas info : Function properties for GpuConv1DOnDevice\n    %s bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\nptxas info : Used %s registers\n' \
      "$(grep -o 'STACK:[0-9]*' "$o.res" | cut -d: -f2)" "$(grep -o 'REG:[0-9]*' "$o.res" | cut -d: -f2)" >"$o.ptxas.log"
    label=$([ "$c" = nvcc ] && echo fast || echo accurate)
    sed "s/\"precision\": \"fast\"/\"precision\": \"$label\"/" "$f" >"$o.json"
  done
done
python3 "$root/bench/sass/sass_stats.py" "$stats" --csv "$stats/stats.csv" --md "$stats/stats.md" >/dev/null
python3 - "$stats/stats.csv" <<'EOF'
import csv, sys
rows = {(r["case"], r["dtype"], r["precision"]): r for r in csv.DictReader(open(sys.argv[1]))}
print("| case | T | registers nvcc / nvrtc | hot-loop instructions per pair nvcc / nvrtc |")
print("|---|---|---:|---:|")
for (case, t, p), a in rows.items():
    if p == "fast":
        b = rows[(case, t, "accurate")]
        print(f"| {case} | {t} | {a['regs']} / {b['regs']} | {a['instr_per_pair']} / {b['instr_per_pair']} |")
EOF
