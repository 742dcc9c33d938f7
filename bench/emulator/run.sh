#!/usr/bin/env bash
# The emulator's context switch against glibc's swapcontext, side by side:
# bench/emulator/switch.cu built twice (the emulator's own x86-64 switch, and
# -DKOPS_EMULATED_UCONTEXT) with the host compiler, run in turn, and the ratio
# of every line. No CUDA toolkit needed.
#
#   bash bench/emulator/run.sh        (REPS=3; CXX=g++)
#
# Output: the table on stdout and in build/bench-emulator/results.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT="$ROOT/build/bench-emulator"
mkdir -p "$OUT"
CXX=${CXX:-g++}
REPS=${REPS:-3}
flags=(-std=c++20 -O2 -DNDEBUG -x c++ -I "$ROOT/include/kops/cuda_emulated/shim" -I "$ROOT/include"
       -DKOPS_CUDA_EMULATED=1 -include cuda_runtime.h)
echo "== building (2 binaries, $CXX)"
"$CXX" "${flags[@]}" "$ROOT/bench/emulator/switch.cu" -o "$OUT/switch_asm" -lpthread &
"$CXX" "${flags[@]}" -DKOPS_EMULATED_UCONTEXT "$ROOT/bench/emulator/switch.cu" -o "$OUT/switch_ucontext" -lpthread
wait
echo "== running (REPS=$REPS)"
"$OUT/switch_asm" "$REPS" | tee "$OUT/asm.txt"
"$OUT/switch_ucontext" "$REPS" | tee "$OUT/ucontext.txt"
{
  echo "| case | own switch (s) | swapcontext (s) | swapcontext / own |"
  echo "|---|--:|--:|--:|"
  paste -d' ' <(awk '{print $1, $2}' "$OUT/asm.txt") <(awk '{print $2}' "$OUT/ucontext.txt") |
    awk '{printf "| %s | %.4f | %.4f | %.2fx |\n", $1, $2, $3, $3 / $2}'
  echo
  echo "$("$CXX" --version | head -n 1), $(nproc) cores; \`bash bench/emulator/run.sh\`, REPS=$REPS"
} | tee "$OUT/results.md"
