#!/usr/bin/env python3
"""SASS statistics of the tensor-core kernel (bench/sass/tensor_cores.sh).

usage: tc_stats.py DIR STEM...      (DIR/STEM.sass and DIR/STEM.ptxas.log per case)

Per case, the tensor-core reduce kernel (reduce_kernel<tc_traits<...>>): its
registers and spills (ptxas), and the instructions a lane issues for one step
of its walk (backends/cuda/tensor_core.hpp: a tile of 8 NT indices, 4 NT pairs
per lane), divided by those pairs. The model, on the SASS's loops (backward
branches):

  step loop    the first loop holding HMMA and a barrier, not nested in
               another such: one iteration is one step of the main walk (the
               last steps' loop, which tests each pair, follows it and is not
               counted).
  chunk loop   a loop nested in it holding HMMA and a barrier: the chunks of
               coordinates after the first (which is peeled, straight-line in
               the step loop); counted chunks - 1 times, chunks = k-steps of D
               over the chunk's k-steps (its HMMA / NT).
  copies       the block's staging of operands is straight-line code (an
               unrolled walk); the loops that copy with scalar loads into
               vector stores are the fallback for a misaligned argument: not
               counted.
  norm loops   shared loads only: a tile row's norm, run by the threads that
               own a tile row (tile / 256 of the warps), kc / (coordinates per
               iteration) times.
  insertions   registers only (no memory access, HMMA or barrier): the
               k-min's deferred insertion (tensor_core.hpp: tc_traits::deferred),
               one pass per pair that passes the step's threshold test. Not
               counted in the step; reported apart, as instructions per
               insertion (the loop's size). A warp runs the loop as often as
               its busiest lane needs: per row half and step, the most of 32
               lanes' counts among their 2 NT pairs; with each pair entering
               with probability f, per pair = (step + 2 E[max] size) / pairs,
               E[max] the expected maximum of 32 binomial(2 NT, f) counts (f
               is about K ln(n) / n after n terms of random data).
  other loops  counted once (a static size).
Straight-line code is counted once per pass, branches or not (as
sass_stats.py counts the CUDA-core kernel's: there the k-min's insertion,
inline in the pair loop, is counted whole for every pair). The CUDA-core kernel's
instructions per pair come from bench/sass/results.md (sass_stats.py's model).
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


def classify(ins, loop):
    """'fallback' (a scalar copy: scalar loads, vector stores; taken only for a
    misaligned argument), 'norm' (shared loads only: a tile row's norm), or
    'other'; with the coordinates one iteration of a norm loop reads."""
    sub = [op for a, op, _ in ins if loop[0] <= a <= loop[1]]
    lds = [op for op in sub if op.startswith("LDS")]
    if any(op.startswith("STS") for op in sub) and any(op == "LDG.E" or op.startswith("LDG.E.U") for op in sub):
        return "fallback", 0
    if lds and not any(op.startswith(("STS", "LDG", "HMMA")) for op in sub):
        return "norm", sum(4 if op.endswith(".128") else 2 if op.endswith(".64") else 1 for op in lds)
    if not any(op.startswith(("LD", "ST", "HMMA", "BAR")) for op in sub):
        return "insert", 0
    return "other", 0


def tc_row(stem, d):
    text = (d / f"{stem}.sass").read_text()
    log = (d / f"{stem}.ptxas.log").read_text()
    tc = None
    for name, ins in functions(text):
        if "13reduce_kernelINS1_9tc_traits" in name:
            tc = (name, ins)
    if tc is None:
        return f"| {stem} | no tensor-core kernel | | | | | | | |"
    name, ins = tc
    dm = re.search(r"(?:gauss|argkmin8_d|dotexp)(\d+)", stem)
    D = int(dm.group(1))
    half = "half" in stem or "bf16" in stem
    kstep = 16 if half else 8
    ksteps = -(-D // kstep)
    dpad = ksteps * kstep
    # NT and the chunk as tensor_core.hpp's tc_traits picks them (3xTF32, a
    # float dot product under precision accurate: two parts of each operand)
    parts = 2 if stem.endswith("_accurate") and not half else 1
    red_dims = 0 if stem.startswith("argkmin") else 1  # b_j
    cache_rows = ksteps * 4 * parts <= 64

    def ldw(kc):  # a staged row in words, both parts (tc_row_words: fragment order)
        w = kc // (2 if half else 1) * parts
        return (w + 16 if w % 32 == 0 else w) if parts == 2 else (w + 8 if w % 16 == 0 else w)

    layout = lambda n, kc: 8 * n * (red_dims + 1) * 4 + (8 * n + (0 if cache_rows else 128)) * ldw(kc) * 4
    smallest = dpad if cache_rows else kstep
    nt = next((n for n in (8, 4, 2) if layout(n, smallest) <= 49152), 1)
    block, tile = 256, 8 * nt
    pairs = 4 * nt
    busy = min(1.0, tile / block)  # the warps whose threads own a tile row (norms)

    hmma_all = [a for a, o, _ in ins if o.startswith("HMMA")]
    bars = [a for a, o, _ in ins if o.startswith("BAR")]
    has = lambda l, xs: any(l[0] <= x <= l[1] for x in xs)
    mma_loops = [l for l in loops(ins) if has(l, hmma_all) and has(l, bars)]
    outer = [l for l in mma_loops if not any(o != l and o[0] <= l[0] and l[1] <= o[1] for o in mma_loops)]
    step = min(outer)  # the main walk (the last steps' loop, tested per pair, follows it)
    size = lambda l: sum(1 for a, _, _ in ins if l[0] <= a <= l[1])

    inserts = []

    def cost(loop, kc):
        """Instructions of one pass of `loop`: its straight-line code, plus its
        nested loops (norm loops by their trip count, fallback copies not at
        all, a chunk loop by its own cost times its trips)."""
        total = size(loop)
        hm = 0
        for inner in nested_of(ins, loop):
            total -= size(inner)
            if has(inner, hmma_all) and has(inner, bars):
                k_inner = sum(1 for h in hmma_all if inner[0] <= h <= inner[1]) // nt  # k-steps per chunk
                chunks = ksteps // k_inner
                total += (chunks - 1) * cost(inner, k_inner * kstep)
                continue
            kind, coords = classify(ins, inner)
            if kind == "norm":
                total += size(inner) * (kc / coords) * busy
            elif kind == "insert":
                inserts.append(size(inner))
            elif kind == "other":
                total += size(inner)
        return total

    kc = dpad if cache_rows else None
    chunk_loops = [l for l in nested_of(ins, step) if has(l, hmma_all) and has(l, bars)]
    if chunk_loops:
        kc = sum(1 for h in hmma_all if chunk_loops[0][0] <= h <= chunk_loops[0][1]) // nt * kstep
    per_step = cost(step, kc)
    regs, spill = ptxas(log, "13reduce_kernelINS1_9tc_traits")
    total = per_step / pairs
    cc_pair = cuda_core_per_pair(stem, d)
    ratio = f"{cc_pair / total:.1f}x" if cc_pair else "n/a"
    chunks = dpad // kc
    ins = f"{max(inserts)}" if inserts else "-"
    return (f"| {stem} | {regs} / {spill} B | {nt} | {kc} x {chunks} | {per_step:.0f} | {total:.1f} | {ins} | "
            f"{cc_pair or 'n/a'} | {ratio} |")


def nested_of(ins, outer):
    ls = [l for l in loops(ins) if outer[0] <= l[0] and l[1] <= outer[1] and l != outer]
    return [l for l in ls if not any(o != l and o[0] <= l[0] and l[1] <= o[1] for o in ls)]


RESULTS = Path(__file__).resolve().parent / "results.md"


def cuda_core_per_pair(stem, d=None):
    """The CUDA-core kernel's instructions per pair in bench/sass/results.md
    (bench/sass/run.sh's table, then DIR/cc/out.md, tensor_cores.sh's rows for
    what run.sh lacks; argkmin at D = 128 in half has no row: the float row,
    whose kernel evaluates in float too)."""
    m = re.match(r"(gauss|argkmin8_d|dotexp)(\d+)_(float|half)", stem)
    if not m or not RESULTS.exists():
        return None
    kind, D, T = m.groups()
    prec = "accurate" if stem.endswith("_accurate") else "fast"
    label = {"gauss": f"Gaussian sum, D={D} ", "dotexp": f"exponential dot-product sum, D={D} "}.get(
        kind, f"argkmin<8> of sqdist, D={D} ")
    tables = [RESULTS.read_text()]
    if d is not None and (d / "cc" / "out.md").exists():
        tables.append((d / "cc" / "out.md").read_text())  # tensor_cores.sh's own CUDA-core rows
    for t in ([T, "float"] if T == "half" else [T]):
        for line in "\n".join(tables).splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 11 and cells[1] == label.strip() and cells[2] == "kops" and cells[3] == t and cells[4] == prec:
                return float(cells[10])
    return None


def expected_max(f, n, lanes=32):
    """E[max] of `lanes` independent binomial(n, f) counts: how often a warp
    runs the deferred insertion loop per row half and step."""
    from math import comb
    cdf = [sum(comb(n, k) * f ** k * (1 - f) ** (n - k) for k in range(m + 1)) for m in range(n + 1)]
    return sum(1 - cdf[m] ** lanes for m in range(n))


def main():
    d = Path(sys.argv[1])
    print("| case | registers / spills | NT | coordinates per chunk x chunks | instr per step (lane) |"
          " instr / pair | deferred insertion, instr per entering pair | CUDA-core instr / pair | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = [tc_row(stem, d) for stem in sys.argv[2:]]
    for r in rows:
        print(r)
    # The rows with a deferred insertion: their ratio when each pair enters the
    # k smallest with probability f (a warp pays its busiest lane's count).
    fs = (0.0, 0.001, 0.01, 0.1, 0.2, 1.0)
    deferred = [r for r in rows if r.count("|") > 8 and r.split("|")[7].strip() not in ("-", "")]
    if deferred:
        print()
        print("| case, ratio at f = | " + " | ".join(str(f) for f in fs) + " |")
        print("|---|" + "---|" * len(fs))
        for r in deferred:
            c = [x.strip() for x in r.split("|")]
            nt, pair, ins, cc = int(c[3]), float(c[6]), float(c[7]), c[8]
            if cc in ("n/a", "None"):
                continue
            ratios = [float(cc) / (pair + 2 * expected_max(f, 2 * nt) * ins / (4 * nt)) for f in fs]
            print(f"| {c[1]} | " + " | ".join(f"{x:.1f}x" for x in ratios) + " |")


if __name__ == "__main__":
    main()
