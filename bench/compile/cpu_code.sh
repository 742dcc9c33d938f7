#!/usr/bin/env bash
# Whether a change moved the CPU backend's machine code: the CPU benchmarks'
# translation units (bench_cpu, bench_wide and its unchunked build, bench_knn,
# bench_half, bench_block_sparse) compiled with the include/ of two git revisions, -O3 and the
# benchmarks' target flags, and their disassembly compared function by function
# (objdump -d, addresses, encodings and symbol offsets stripped). The CPU
# counterpart of bench/sass/compare.sh. No Kokkos library needed, only its
# headers (KOKKOS_INCLUDE: Debian's, /usr/include/trilinos, by default).
#   usage: bash bench/compile/cpu_code.sh REV_A REV_B
#   env:   CXX (g++), ARCH (-march=x86-64-v4), JOBS (2)
# Prints a DIFF line per translation unit whose code differs (and the
# functions that differ), then the counts; exits 1 when any differs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../.."
[ $# -eq 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
cxx=${CXX:-g++}
arch=${ARCH:--march=x86-64-v4}
kokkos=${KOKKOS_INCLUDE:-/usr/include/trilinos}
[ -f "$kokkos/Kokkos_Core.hpp" ] || { echo "cpu_code.sh: no Kokkos_Core.hpp in $kokkos (KOKKOS_INCLUDE=)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in a b; do mkdir -p "$tmp/$r"; done
git archive "$1" include | tar -x -C "$tmp/a"
git archive "$2" include | tar -x -C "$tmp/b"
# name | source | extra defines
units=(
  "bench_cpu|bench/bench_cpu.cpp|"
  "bench_wide|bench/bench_wide.cpp|"
  "bench_wide_unchunked|bench/bench_wide.cpp|-DKOPS_CPU_CHUNK_MIN_DIM=1000000"
  "bench_knn|bench/bench_knn.cpp|"
  "bench_half|bench/bench_half.cpp|"
  "bench_block_sparse|bench/bench_block_sparse.cpp|"
)
# The disassembly of an object, one "== function" header per function, with
# nothing that moves when only code before it changes.
disasm() {
  objdump -d --no-show-raw-insn "$1" |
    sed -n -e 's/^[0-9a-f]* <\(.*\)>:$/== \1/p' -e 's/^ *[0-9a-f]*:\t//p' |
    sed -e 's/<[^>]*>//g' -e 's/\b[0-9a-f]\{3,\}\b/ADDR/g' -e 's/[[:space:]]*$//'
}
compile() {  # rev name src defs
  # shellcheck disable=SC2086
  "$cxx" -std=c++20 -O3 $arch -w -fopenmp -I "$tmp/$1/include" -I "$kokkos" -I bench $4 -c "$3" -o "$tmp/$1/$2.o"
  disasm "$tmp/$1/$2.o" >"$tmp/$1/$2.s"
}
same=0 differ=0
for u in "${units[@]}"; do
  IFS='|' read -r name src defs <<<"$u"
  compile a "$name" "$src" "$defs" &
  compile b "$name" "$src" "$defs"
  wait
  if cmp -s "$tmp/a/$name.s" "$tmp/b/$name.s"; then
    same=$((same + 1))
    echo "same $name ($(grep -c '^== ' "$tmp/a/$name.s") functions, $(grep -vc '^== ' "$tmp/a/$name.s") instructions)"
  else
    differ=$((differ + 1))
    echo "DIFF $name"
    python3 - "$tmp/a/$name.s" "$tmp/b/$name.s" <<'PY'
import sys
def funcs(p):
    out, cur = {}, None
    for line in open(p):
        if line.startswith("== "):
            cur = line[3:].strip(); out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out
a, b = funcs(sys.argv[1]), funcs(sys.argv[2])
for n in sorted(set(a) | set(b)):
    if a.get(n) != b.get(n):
        print("   ", "only in A:" if n not in b else "only in B:" if n not in a else "differs:",
              n[:160], len(a.get(n, [])), "->", len(b.get(n, [])), "instructions")
PY
  fi
done
echo "cpu_code: $same translation units identical, $differ differ"
[ "$differ" -eq 0 ]
