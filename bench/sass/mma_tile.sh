#!/usr/bin/env bash
# SASS of bench/sass/mma_tile.cu (the tensor cores' building block, no GPU needed):
# per instantiation (TF32 / 3xTF32 / fp16, D = 64 and 128), the registers, spills,
# and the outer loop's HMMA and instruction counts (one iteration = 128 pairs,
# the inner copy loop of B included).
#   bash bench/sass/mma_tile.sh
# nvcc: from PATH or /usr/local/cuda/bin; cuobjdump: from PATH or build/sass/venv
# (made by bench/sass/run.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../.."
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if ! command -v cuobjdump >/dev/null; then
  bin=$(find build/sass/venv -type f -name cuobjdump -perm -u+x 2>/dev/null | head -n1)
  [ -n "$bin" ] || { echo "mma_tile.sh: no cuobjdump (run bench/sass/run.sh once, or put it on PATH)" >&2; exit 2; }
  export PATH="$(dirname "$bin"):$PATH"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$nvcc" -std=c++20 -O3 --expt-relaxed-constexpr -I include -cubin -arch=sm_90 -o "$tmp/t.cubin" "$here/mma_tile.cu"
cuobjdump -res-usage "$tmp/t.cubin" >"$tmp/res.txt"
cuobjdump -sass "$tmp/t.cubin" >"$tmp/t.sass"
python3 - "$tmp/t.sass" "$tmp/res.txt" <<'PY'
import re, sys
sass, res = sys.argv[1], sys.argv[2]
regs = {}
cur = None
for line in open(res):
    m = re.search(r"Function (\S+):", line)
    if m: cur = m.group(1)
    m = re.search(r"REG:(\d+).*LOCAL:(\d+)", line)
    if m and cur: regs[cur] = (int(m.group(1)), int(m.group(2)))
funcs, cur = {}, None
for line in open(sass):
    m = re.search(r"Function : (\S+)", line)
    if m: cur = m.group(1); funcs[cur] = []; continue
    m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
    if m and cur: funcs[cur].append((int(m.group(1), 16), m.group(2)))
kinds = {"E0": "TF32", "E1": "3xTF32", "E2": "fp16"}
print("| arithmetic | D | HMMA / 128 pairs | instructions / 128 pairs | registers | local bytes |")
print("|---|---|---|---|---|---|")
for f, ins in funcs.items():
    loops = []
    for addr, txt in ins:
        m = re.search(r"BRA .*?0x([0-9a-f]+)", txt)
        if m and int(m.group(1), 16) < addr: loops.append((int(m.group(1), 16), addr))
    outer = max(loops, key=lambda l: l[1] - l[0])
    body = [t for a, t in ins if outer[0] <= a <= outer[1]]
    k = re.search(r"mma_arithE(\d)ELi(\d+)", f)
    r = regs.get(f, ("?", "?"))
    print(f"| {kinds.get('E' + k.group(1), '?')} | {k.group(2)} | {sum('HMMA' in t for t in body)} | {len(body)} | {r[0]} | {r[1]} |")
PY
