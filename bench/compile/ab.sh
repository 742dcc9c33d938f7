#!/usr/bin/env bash
# A/B of kops's headers between two git revisions on one TU, side by side in
# one run: the include/ of each revision (git archive) compiled alternately,
# REPS rounds (default 5), the best CPU time (user + sys of the compiler and
# its subprocesses) of each. nvcc for a .cu (kops::cuda's flags, as run.sh),
# g++ -O3 -c for a .cpp (Debian's Kokkos headers, as run.sh).
#   usage: [REPS=5] bash bench/compile/ab.sh REV_A REV_B TU...
#   e.g.   bash bench/compile/ab.sh HEAD~1 HEAD bench/compile/gauss_grad_min.cu bench/compile/gauss_grad_kokkos.cpp
# Prints one line per TU: "TU: A s, B s (B/A)". Run on a quiet machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
REPS="${REPS:-5}"
[ $# -ge 3 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
a=$1 b=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in A B; do mkdir -p "$tmp/$r"; done
git archive "$a" include | tar -x -C "$tmp/A"
git archive "$b" include | tar -x -C "$tmp/B"
nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
cpu() {  # include-dir TU -> CPU seconds of one compile
  local inc=$1 tu=$2 cmd
  case $tu in
    *.cu) cmd=("$nvcc_bin" -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr "-I$inc" -c "$tu" -o "$tmp/o.o") ;;
    *) cmd=(g++ -std=c++20 -O3 -fno-math-errno -Wno-psabi "-I$inc" -isystem /usr/include/trilinos -c "$tu" -o "$tmp/o.o") ;;
  esac
  /usr/bin/time -f '%U %S' -o "$tmp/t" "${cmd[@]}" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  awk '{printf "%.3f", $1 + $2}' "$tmp/t"
}
for tu in "$@"; do
  ba=999 bb=999
  for _ in $(seq "$REPS"); do
    ba=$(python3 -c "print(min($ba, $(cpu "$tmp/A/include" "$tu")))")
    bb=$(python3 -c "print(min($bb, $(cpu "$tmp/B/include" "$tu")))")
  done
  python3 -c "print(f'$tu: $a {$ba:.2f} s, $b {$bb:.2f} s ($b/$a {$bb/$ba:.3f})')"
done
