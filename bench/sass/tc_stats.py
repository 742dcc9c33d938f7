#!/usr/bin/env python3
"""SASS statistics of the tensor-core kernel (bench/sass/tensor_cores.sh).

usage: tc_stats.py DIR STEM...      (DIR/STEM.sass and DIR/STEM.ptxas.log per case)

Per case, the tensor-core reduce kernel (reduce_kernel<tc_traits<...>>) and the
CUDA-core one of the same TU (reduce_kernel<kernel_traits<...>>):

  loops        backward branches (BRA to an address at or before it).
  step loop    the first loop that holds HMMA and a barrier (not nested in
               another such): one iteration is one tile step of tensor_core.hpp
               (the block's staging, then per warp the MMAs and 4 NT pairs per
               lane) in the main walk; the last steps' loop (a test per pair)
               is not counted.
  step body    the step loop's instructions outside the loops nested in it:
               the MMAs, B-fragment loads, the per-pair formula and the
               accumulation; divided by the pairs a lane evaluates per step
               (4 NT, NT = HMMA per k-step ... read from the kernel as
               HMMA count / k-steps) gives "body / pair".
  k loops      nested loops holding HMMA (rows too wide for registers, read
               per k-step): counted in the body once per k-step they cover.
  staging      the other nested loops (the block's copy of the tile, the norms):
               reported by static size; their trip counts depend on D and the
               block (tensor_core.hpp), so they are not folded into a per-pair
               figure here.
The CUDA-core kernel is summarised by its static size only; its per-pair
cost is sass_stats.py's (bench/sass/results.md).
"""
import re
import sys
from pathlib import Path

INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


def functions(text):
    parts = re.split(r"\n\s+Function : ", text)
    for p in parts[1:]:
        name = p.split("\n", 1)[0].strip()
        ins = [(int(a, 16), op, rest) for a, op, rest in INS.findall(p)]
        yield name, ins


def loops(ins):
    out = []
    for a, op, rest in ins:
        if op.startswith("BRA"):
            m = re.search(r"0x([0-9a-f]+)", rest)
            if m and int(m.group(1), 16) <= a:
                out.append((int(m.group(1), 16), a))
    return out


def ptxas(log, key):
    """registers and spill bytes of the kernel whose mangled name contains key."""
    regs = spill = None
    lines = log.splitlines()
    for k, line in enumerate(lines):
        if "Compiling entry function" in line and key in line:
            for l2 in lines[k + 1:k + 4]:
                m = re.search(r"Used (\d+) registers", l2)
                if m:
                    regs = int(m.group(1))
                m = re.search(r"(\d+) bytes spill stores", l2)
                if m:
                    spill = int(m.group(1))
            break
    return regs, spill


def tc_row(stem, d):
    text = (d / f"{stem}.sass").read_text()
    log = (d / f"{stem}.ptxas.log").read_text()
    tc = cc = None
    for name, ins in functions(text):
        if "13reduce_kernelINS1_9tc_traits" in name:
            tc = (name, ins)
        elif "13reduce_kernelINS1_13kernel_traits" in name:
            cc = (name, ins)
    if tc is None:
        return f"| {stem} | no tensor-core kernel | | | | | |"
    name, ins = tc
    all_hmma = [a for a, op, _ in ins if op.startswith("HMMA")]
    bars = [a for a, op, _ in ins if op.startswith("BAR")]
    # Step loops: loops with HMMA and a barrier, none nested in another such;
    # the first is the walk's main loop (every pair in range, no test), the
    # second its last steps (tested per pair), not counted.
    steps = [l for l in loops(ins) if any(l[0] <= h <= l[1] for h in all_hmma) and any(l[0] <= b <= l[1] for b in bars)]
    steps = [l for l in steps if not any(o != l and o[0] <= l[0] and l[1] <= o[1] for o in steps)]
    step = min(steps)
    hmma = [a for a in all_hmma if step[0] <= a <= step[1]]
    nested = [l for l in loops(ins) if step[0] <= l[0] and l[1] <= step[1] and l != step]
    # outermost nested loops only
    nested = [l for l in nested if not any(o != l and o[0] <= l[0] and l[1] <= o[1] for o in nested)]
    dm = re.search(r"(?:gauss|argkmin8_d)(\d+)", stem)
    D = int(dm.group(1))
    half = "half" in stem or "bf16" in stem
    kstep = 16 if half else 8
    ksteps = -(-D // kstep)
    dpad = ksteps * kstep
    # NT as tensor_core.hpp's tc_traits picks it (the tile's shared memory within 48 KiB)
    red_dims = 1 if stem.startswith("gauss") else 0
    ldb, opsize = (dpad + 8, 2) if half else (dpad + 4, 4)
    nt = next(n for n in (8, 4, 2, 1) if 8 * n * (red_dims + 1) * 4 + 8 * n * ldb * opsize <= 49152 or n == 1)
    pairs = 4 * nt
    in_step = [a for a, _, _ in ins if step[0] <= a <= step[1]]
    body = 0
    staging = 0
    kloops = 0
    for a in in_step:
        if not any(l[0] <= a <= l[1] for l in nested):
            body += 1
    for l in nested:
        size = sum(1 for a in in_step if l[0] <= a <= l[1])
        h = sum(1 for a in hmma if l[0] <= a <= l[1])
        if h:  # a k-step loop (rows read per k-step): its body once per h / NT k-steps
            body += size * ksteps * nt // h
            kloops += 1
        else:
            staging += size
    # The staging loops' cost per step and thread (the block's 8 warps share
    # it): the vector copy loop (vector loads) runs tile * dpad / (V * block)
    # times its vector stores' count; the norms' loop (one row per thread,
    # rows < tile: tile / block of the warps busy) D / (its inner loop's
    # shared loads' coordinates) times; the scalar copy loop (a misaligned
    # argument) and the narrow variables' loop (one row per thread, its
    # unrolled form not reached) are not counted.
    block, tile = 256, 8 * nt
    V = 4 if D % 4 == 0 else 1
    stage = 0.0
    for l in nested:
        sub = [(op, rest) for a, op, rest in ins if l[0] <= a <= l[1]]
        if any(op.startswith("HMMA") for op, _ in sub):
            continue
        ops = [op for op, _ in sub]
        vec_ld = sum(1 for op in ops if op.startswith("LDG") and (op.endswith(".128") or op.endswith(".64")))
        vec_st = sum(1 for op in ops if op.startswith("STS") and (op.endswith(".128") or op.endswith(".64")))
        inner = [m for m in nested_of(ins, l)]
        if vec_ld and vec_st:
            per = 2 if "split" in stem else 1
            stage += len(sub) * (tile * dpad / (V * block)) / (vec_st / per)
        elif inner:
            isize = sum(1 for a, _, _ in ins if inner[0][0] <= a <= inner[0][1])
            lds = [rest for a, op, rest in ins if inner[0][0] <= a <= inner[0][1] and op.startswith("LDS")]
            coords = sum(4 if op.endswith(".128") else 2 if op.endswith(".64") else 1
                         for a, op, _ in ins if inner[0][0] <= a <= inner[0][1] and op.startswith("LDS"))
            coords = coords if not half else coords * 2 // 2
            trips = dpad / max(coords, 1)
            stage += (len(sub) - isize + isize * trips) * min(1.0, tile / block)
    regs, spill = ptxas(log, "13reduce_kernelINS1_9tc_traits")
    cregs, cspill = ptxas(log, "13reduce_kernelINS1_13kernel_traits")
    per_step_hmma = len(hmma) if not kloops else ksteps * nt
    total = (body + stage) / pairs
    cc_pair = cuda_core_per_pair(stem)
    ratio = f"{cc_pair / total:.1f}x" if cc_pair else "n/a"
    return (f"| {stem} | {regs} / {spill} B | {per_step_hmma} | {nt} | {body} | {body / pairs:.1f} | "
            f"{stage / pairs:.1f} | {total:.1f} | {cc_pair or 'n/a'} | {ratio} |")


def nested_of(ins, outer):
    ls = [l for l in loops(ins) if outer[0] <= l[0] and l[1] <= outer[1] and l != outer]
    return [l for l in ls if not any(o != l and o[0] <= l[0] and l[1] <= o[1] for o in ls)]


RESULTS = Path(__file__).resolve().parent / "results.md"


def cuda_core_per_pair(stem):
    """The CUDA-core kernel's instructions per pair in bench/sass/results.md
    (bench/sass/run.sh's table; argkmin at D = 128 in half has no row there:
    the float row, whose kernel evaluates in float too)."""
    m = re.match(r"(gauss|argkmin8_d)(\d+)_(float|half)", stem)
    if not m or not RESULTS.exists():
        return None
    kind, D, T = m.groups()
    label = f"Gaussian sum, D={D} " if kind == "gauss" else f"argkmin<8> of sqdist, D={D} "
    for t in ([T, "float"] if T == "half" else [T]):
        for line in RESULTS.read_text().splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 11 and cells[1] == label.strip() and cells[2] == "kops" and cells[3] == t and cells[4] == "fast":
                return float(cells[10])
    return None


def main():
    d = Path(sys.argv[1])
    print("| case | registers / spills | HMMA per step | NT | step body (instr) | body / pair | staging / pair |"
          " total / pair | CUDA-core / pair | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for stem in sys.argv[2:]:
        print(tc_row(stem, d))


if __name__ == "__main__":
    main()
