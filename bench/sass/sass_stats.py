#!/usr/bin/env python3
"""Kernel quality from SASS, without a GPU: the parser behind bench/sass/run.sh.

usage: sass_stats.py BUILD_DIR --csv OUT.csv --md OUT.md [--docs docs/performance.md]
       sass_stats.py BUILD_DIR --explain STEM     (e.g. kops_gauss3_float_fast: the hot
                                                  loop, hot-path instructions marked *)

BUILD_DIR holds, per compiled translation unit STEM (run.sh makes them):
  STEM.cubin       nvcc -cubin -arch=sm_90 output
  STEM.sass        cuobjdump -sass STEM.cubin
  STEM.res         cuobjdump -res-usage STEM.cubin
  STEM.ptxas.log   nvcc's stderr with -Xptxas -v (registers, stack, spills)
  STEM.json        what was compiled: impl, case, dtype, precision (and, for
                   keopscore, block, dynamic shared bytes and bytes per pair)

Per kernel it reports registers, spill stores/loads and stack frame (ptxas),
shared memory (cuobjdump's static SHARED, which on sm_90 includes the 1 KiB
the hardware reserves per block, plus the dynamic shared memory of the
launch), and the instructions one pair (i, j) costs in the hot loop.

THE HOT-LOOP HEURISTIC (see also docs/performance.md, "SASS analysis")
  1. Loops are backward branches: a BRA whose target is at or before it spans
     the loop [target, branch].  Innermost loops contain no other loop.
  2. Pair loops are the innermost loops that read shared memory (LDS): both
     kops (block_reduce.hpp) and KeOps stage the j-data of a tile in shared
     memory and every pair reads its own j-record from there.  Loops that only
     write shared memory (the tile loads) or only touch registers are not.
  3. Pairs per iteration (the unroll factor U): the j-records of consecutive
     pairs are pair_bytes = (sum of j-variable dims) * sizeof(T) apart in
     shared memory, so for the LDS of one address base the number of records
     touched is  U = (last byte read - first byte read) // pair_bytes + 1;
     the largest over the bases is taken.  (kops' `#pragma unroll 4` gives 4;
     nvcc unrolls KeOps' plain loop by itself, e.g. 4 or 16; 1 when not.)
     For kops, pair_bytes is the kernel's own dynamic shared bytes / tile,
     exported by kops_sass.hpp; for KeOps it is keopscore's dimy * sizeof(T).
     When the loads of several bases together read each byte of their joint
     span exactly once (copies of one base register), U counts that span.
     A kops kernel tuned to R rows per thread (register blocking) evaluates R
     pairs per j-record: U is multiplied by R (kops_sass.hpp exports R).
  4. Phases: a kernel may run several pair loops one after the other between
     __syncthreads (KeOps' chunked mode for large D: one loop per chunk of 64
     dims, then one for the rest of the formula).  Pair loops are grouped by
     the number of barriers (BAR) before them; in each group the loop with the
     largest U is the main loop and the others are the remainder loops nvcc
     adds to an unrolled loop (for the len % U last pairs; they are not
     counted).  A pair's cost is the sum over groups of (main loop) / U.
     When nvcc keeps KeOps' loop over the chunks a loop (D = 1024: 15 of the
     16 chunks), the main loop nested in it (two loops deep: chunks, tiles)
     counts once per chunk of that loop (keops_gen.py writes the chunks).
  6. kops' staged chunk loop (sums over wide coordinates, backends/cuda/
     chunk_loop.hpp; kops_sass.hpp exports its full chunks per tile, C): the
     chunk loop is the loop reading shared memory with no such loop inside,
     within the tile loop; a tile of T pairs costs every instruction of the
     tile loop once (the tail chunk, the rest of the formula for each pair),
     those of the chunk loop C times, and the block's copy of a chunk into
     shared memory ceil(T * chunk width / block) times per chunk; a pair costs
     that / T. Static counts, not rule 5's hot path (whose taken forward
     branches would skip the `if (valid)` guarded work): an upper bound.
  7. kops' final chunks (a wide sum whose kernel part is wide too: backends/
     cuda/final_chunks.hpp; kops_sass.hpp exports the full output chunks per
     tile, F, and their width): as rule 6, with the output chunk loop as a
     second phase after the staged chunk loop in the tile loop (the largest
     inner shared-memory loops of the tile loop, in code order), its
     instructions counted F times per tile (its copy loops once per trip).
     KeOps' own final-chunk kernels (keopscore's gradient at D = 784) are not
     modeled: their rows show registers, spills and stack only.
  5. Inside a loop, conditional forward branches are assumed TAKEN, i.e. the
     code they jump over is treated as cold: this is how nvcc lays out rare
     paths such as the out-of-range branch of the double-precision exp.  The
     count along that path is "instructions/pair"; the count of every
     instruction in the loop range is kept as "static_instr_per_pair" in the
     CSV (they differ only when a loop has such a branch).

THE THROUGHPUT MODEL (H100 SXM5: 132 SMs, 1.98 GHz max boost clock)
  issue:  an SM issues 4 warp-instructions per clock (one per scheduler), one
          warp-instruction does the work of 32 threads = 32 pairs, so
            pairs/s <= 132 * 4 * 32 * clock / (instructions per pair)
  MUFU:   16 special-function results per clock per SM (sm_90):
            pairs/s <= 132 * 16 * clock / (MUFU per pair)
  FP64:   64 double-precision results per clock per SM (DFMA, DADD, DMUL, DSETP ...):
            pairs/s <= 132 * 64 * clock / (FP64 instructions per pair)
  prediction = the minimum.  Assumed: enough resident warps to hide every
  latency (the occupancy column says how many the kernel can have), no memory
  stall (a tile is loaded once per 192 pairs of a thread), shared loads are
  broadcasts (all threads of a warp read the same j-record: no bank conflict),
  every other pipe (integer, FP32) keeps up with issue, the loop over the
  tiles and the final write are free (N, M large).
"""
import argparse
import csv
import json
import os
import re
import struct
import subprocess
import sys
from collections import Counter

SMS = 132
CLOCK_HZ = 1.98e9
ISSUE_PER_SM = 4 * 32  # thread-instructions per clock per SM
MUFU_PER_SM = 16
FP64_PER_SM = 64
FP64_OPS = {"DFMA", "DADD", "DMUL", "DSETP", "DMNMX", "DSET", "DMMA"}
# H100 SM limits for the occupancy column
SM_REGS, SM_WARPS, SM_BLOCKS, SM_SHARED = 65536, 64, 32, 228 * 1024
REG_ALLOC_UNIT = 256  # registers per warp are allocated in units of 256

CASE_LABEL = {
    "gauss3": "Gaussian sum, D=3",
    "gauss_grad3": "Gaussian sum gradient w.r.t. x, D=3",
    "argkmin8": "argkmin<8> of sqdist, D=3",
    "argkmin8_d128": "argkmin<8> of sqdist, D=128",
    "logsumexp3": "logsumexp of -g*sqdist, D=3",
    "gauss64": "Gaussian sum, D=64",
    "gauss128": "Gaussian sum, D=128",
    "gauss256": "Gaussian sum, D=256",
    "gauss1024": "Gaussian sum, D=1024",
    "attention64": "attention: sumsoftmaxweight of g<q,k>, values v, D=64",
    "gauss_grad784": "Gaussian sum gradient w.r.t. x, D=784",
    "dotexp64": "exponential dot-product sum, D=64",
}
CASE_ORDER = list(CASE_LABEL)
# A tuned variant of a case (cases.sh's variant_cases, backends/cuda/
# kernel_traits.hpp: tuning<R, B>): CASE_rRbB, listed after CASE.
VARIANT = re.compile(r"^(.*)_r(\d+)b(\d+)$")


def case_label(case):
    m = VARIANT.match(case)
    if m and m.group(1) in CASE_LABEL:
        return f"{CASE_LABEL[m.group(1)]} (R={m.group(2)}, B={m.group(3)})"
    return CASE_LABEL[case]


def case_order(case):
    m = VARIANT.match(case)
    if m and m.group(1) in CASE_LABEL:
        return (CASE_ORDER.index(m.group(1)), int(m.group(2)), int(m.group(3)))
    return (CASE_ORDER.index(case), 0, 0)
# keopscore kernels whose pair loops the heuristic does not model: no
# instructions per pair (the table shows a dash, the targets leave them out).
KEOPS_NOT_MODELED = {
    "gauss_grad784": "not modeled: keopscore's final chunks (run-time loops over chunks of the "
    "sum and of the output, nested in its tile loop)",
}


def fail(msg):
    sys.exit(f"sass_stats: error: {msg}")


# --------------------------------------------------------------------- SASS


class Instr:
    __slots__ = ("addr", "pred", "op", "base", "args")

    def __init__(self, addr, pred, op, args):
        self.addr, self.pred, self.op, self.args = addr, pred, op, args
        self.base = op.split(".")[0]

    def branch_target(self):
        if self.base != "BRA":
            return None
        m = re.findall(r"0x([0-9a-f]+)", self.args)
        return int(m[-1], 16) if m else None


LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PRED = re.compile(r"^(@!?U?P[T0-9]+)\s+(.*)$")


def read_sass(path):
    """{mangled kernel name: [Instr]} from cuobjdump -sass output."""
    funcs, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*Function : (\S+)", line)
            if m:
                cur = funcs.setdefault(m.group(1), [])
                continue
            m = LINE.match(line)
            if not m or cur is None:
                continue
            text = m.group(2)
            pred = None
            pm = PRED.match(text)
            if pm:
                pred, text = pm.group(1), pm.group(2)
            parts = text.split(None, 1)
            cur.append(Instr(int(m.group(1), 16), pred, parts[0], parts[1] if len(parts) > 1 else ""))
    return funcs


def lds_width(op):
    for suffix, width in ((".128", 16), (".64", 8), (".U8", 1), (".S8", 1), (".U16", 2), (".S16", 2)):
        if suffix in op:
            return width
    return 4


def lds_address(args):
    """(base, offset) of the shared address of an LDS: '[R10+0x10]' -> ('R10', 16)."""
    m = re.search(r"\[([^\]]*)\]", args)
    if not m:
        return None
    base, offset = [], 0
    for term in m.group(1).split("+"):
        term = term.strip()
        if re.fullmatch(r"-?0x[0-9a-f]+", term):
            offset += int(term, 16)
        elif term:
            base.append(term)
    return "+".join(base) or "0", offset


def find_loops(code):
    """[(start, end)] of every backward branch."""
    loops = []
    for ins in code:
        t = ins.branch_target()
        if t is not None and t <= ins.addr:
            loops.append((t, ins.addr))
    return loops


def innermost(loops):
    return [
        (s, e) for (s, e) in loops if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e for (s2, e2) in loops)
    ]


def hot_path(code, start, end, path=None):
    """Counter of the ops executed by one iteration of loop [start, end], forward
    branches taken (rule 5 of the module docstring). `path`: a set that receives
    the addresses on the path."""
    index = {ins.addr: k for k, ins in enumerate(code)}
    k, ops = index[start], Counter()
    seen = path if path is not None else set()
    while k < len(code):
        ins = code[k]
        if ins.addr in seen:
            fail(f"hot path of the loop {start:#x}-{end:#x} runs in circles at {ins.addr:#x}")
        seen.add(ins.addr)
        ops[ins.op] += 1
        if ins.addr == end:
            break
        t = ins.branch_target()
        if t is not None and ins.addr < t <= end and t in index:
            k = index[t]
            continue
        if ins.base == "EXIT" and ins.pred is None:
            break
        if t is not None and (t > end or t < start) and ins.pred is None:
            break  # unconditional jump out of the loop: the iteration ends there
        k += 1
    return ops


def loop_unroll(body, pair_bytes):
    spans = {}
    for ins in body:
        if ins.base != "LDS":
            continue
        a = lds_address(ins.args)
        if a is None:
            continue
        base, off = a
        lo, hi = spans.get(base, (off, off + lds_width(ins.op)))
        spans[base] = (min(lo, off), max(hi, off + lds_width(ins.op)))
    if not spans or not pair_bytes:
        return 1
    u = max((hi - 1 - lo) // pair_bytes + 1 for lo, hi in spans.values())
    # nvcc may address consecutive records through copies of one base register
    # (kops' register blocking in double: [R14], [R14+0x10], [R32+0x20] ...):
    # when the loads of every base together read each byte of their joint
    # span exactly once, the span counts the records.
    loads = [(lds_address(i.args), lds_width(i.op)) for i in body if i.base == "LDS"]
    offs = sorted((a[1], a[1] + w) for a, w in loads if a is not None)
    lo, hi = min(o[0] for o in offs), max(o[1] for o in offs)
    disjoint = all(offs[k][1] <= offs[k + 1][0] for k in range(len(offs) - 1))
    if disjoint and sum(e - b for b, e in offs) == hi - lo:
        u = max(u, (hi - 1 - lo) // pair_bytes + 1)
    return u


def pair_cost(code, pair_bytes, explain=False, chunk_repeat=0, rows=1):
    """(per-pair Counter along the hot path, per-pair static Counter, loop notes).
    explain: print the main loops, '*' marking the instructions on the hot path.
    chunk_repeat: KeOps' chunked mode kept as a run-time loop over all chunks but
    the last (rule 4): a main loop inside two others (that loop and the tile
    loop) counts chunk_repeat times. rows: output rows per thread (kops' register
    blocking): each j-record read serves that many pairs."""
    every = find_loops(code)
    loops = innermost(every)
    barriers = [ins.addr for ins in code if ins.base == "BAR"]
    groups = {}
    for s, e in loops:
        body = [ins for ins in code if s <= ins.addr <= e]
        if not any(ins.base == "LDS" for ins in body):
            continue
        u = loop_unroll(body, pair_bytes) * rows
        phase = sum(1 for b in barriers if b < s)
        groups.setdefault(phase, []).append((u, len(body), s, e, body))
    per_pair, static, notes = Counter(), Counter(), []
    for phase in sorted(groups):
        u, n, s, e, body = max(groups[phase], key=lambda g: (g[0], g[1]))
        mufu = sum(1 for ins in body if ins.base == "MUFU")
        if mufu % u:
            print(f"sass_stats: warning: loop {s:#x}-{e:#x} has {mufu} MUFU for {u} pairs per iteration: "
                  "check the unroll factor with --explain", file=sys.stderr)
        path = set()
        depth = sum(1 for (s2, e2) in every if (s2, e2) != (s, e) and s2 <= s and e <= e2)
        times = chunk_repeat if chunk_repeat and depth >= 2 else 1
        for op, c in hot_path(code, s, e, path).items():
            per_pair[op] += c * times / u
        if explain:
            print(f"-- phase {phase}: loop {s:#x}-{e:#x}, {u} pair(s) per iteration, {len(path)} of {n} on the hot path")
            for ins in body:
                mark = "*" if ins.addr in path else " "
                print(f"{mark} {ins.addr:06x}  {ins.pred or '':6} {ins.op} {ins.args}")
        for ins in body:
            static[ins.op] += 1 / u
        rest = [f"{g[2]:#x}-{g[3]:#x}" for g in groups[phase] if g[2] != s]
        notes.append(f"{s:#x}-{e:#x} x{u} ({n} instr)" + (f" x{times} chunks" if times > 1 else "")
                     + (f" remainder {' '.join(rest)}" if rest else ""))
    return per_pair, static, notes


def staged_pair_cost(code, tile, phases, explain=False):
    """pair_cost for kops' staged chunk loop (backends/cuda/chunk_loop.hpp, heuristic 6
    of the file comment) and final chunks (final_chunks.hpp, heuristic 7): per tile of
    `tile` pairs, the tile loop holds one chunk loop per phase, in code order, phase
    (chunks, stage_trips) running `chunks` times; the tile loop's hot path (which
    passes through each chunk loop once) also holds the tail chunks and the
    formula's other part for each pair; the loops inside a chunk loop (the block's
    copy of the chunk into shared memory) run `stage_trips` times per chunk."""
    loops = find_loops(code)

    def has_lds(s, e):
        return any(ins.base == "LDS" for ins in code if s <= ins.addr <= e)

    def inside(a, b):  # loop a strictly inside loop b
        return a != b and b[0] <= a[0] and a[1] <= b[1]

    lds_loops = [l for l in loops if has_lds(*l)]
    inner = [l for l in lds_loops if not any(inside(o, l) for o in lds_loops)]
    if not inner:
        fail("staged kernel: no chunk loop (a loop reading shared memory with no such loop inside)")
    first = max(inner, key=lambda se: se[1] - se[0])
    around = [l for l in loops if inside(first, l)]
    if not around:
        fail(f"staged kernel: no tile loop around the chunk loop {first[0]:#x}-{first[1]:#x}")
    ts, te = min(around, key=lambda se: se[1] - se[0])
    # The chunk loops: the largest inner loops of the tile loop, one per phase, in code order.
    in_tile = sorted(sorted((l for l in inner if inside(l, (ts, te))), key=lambda se: se[0] - se[1])[: len(phases)])
    if len(in_tile) != len(phases):
        fail(f"staged kernel: {len(in_tile)} chunk loops in the tile loop {ts:#x}-{te:#x}, {len(phases)} expected")
    chunk_loops = [(s, e, chunks, trips, [l for l in loops if inside(l, (s, e))])
                   for (s, e), (chunks, trips) in zip(in_tile, phases)]
    # Static counts: the hot path of rule 5 would take the forward branches of
    # the `if (valid)` / `if (jj < len)` guards and skip the work they guard,
    # so every instruction of the tile loop counts once per tile (a chunk
    # loop's once per chunk, the copy loops' once per trip): an upper bound
    # (it includes the out-of-range paths of a double exp, once per pair).
    per_pair = Counter()
    for ins in code:
        if not (ts <= ins.addr <= te):
            continue
        n = 1
        for s, e, chunks, trips, nested in chunk_loops:
            if s <= ins.addr <= e:
                n = chunks
                if any(a <= ins.addr <= b for a, b in nested):
                    n *= trips
        per_pair[ins.op] += n / tile
    static = Counter(per_pair)
    if explain:
        for s, e, chunks, trips, nested in chunk_loops:
            print(f"-- staged: chunk loop {s:#x}-{e:#x} x{chunks} per tile of {tile} pairs, tile loop "
                  f"{ts:#x}-{te:#x}, loops in the chunk loop x{trips}: {[f'{a:#x}-{b:#x}' for a, b in nested]}")
        for ins in code:
            if ts <= ins.addr <= te:
                mark = "*" if any(s <= ins.addr <= e for s, e, *_ in chunk_loops) else " "
                print(f"{mark} {ins.addr:06x}  {ins.pred or '':6} {ins.op} {ins.args}")
    notes = [f"staged {s:#x}-{e:#x} x{chunks}" for s, e, chunks, *_ in chunk_loops]
    notes[-1] += f" in {ts:#x}-{te:#x} / {tile}"
    return per_pair, static, notes


def count(counter, pred):
    return sum(c for op, c in counter.items() if pred(op))


def base_of(op):
    return op.split(".")[0]


# ------------------------------------------------------- ptxas, res-usage, ELF


def read_ptxas(path):
    """{mangled: {regs, stack, spill_st, spill_ld}} from nvcc -Xptxas -v stderr."""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.search(r"Function properties for (\S+)", line)
            if m:
                cur = out.setdefault(m.group(1), {})
                continue
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m and cur is not None:
                cur.update(stack=int(m.group(1)), spill_st=int(m.group(2)), spill_ld=int(m.group(3)))
                continue
            m = re.search(r"Used (\d+) registers", line)
            if m and cur is not None:
                cur["regs"] = int(m.group(1))
                cur = None
    return out


def read_res(path):
    """{mangled: {REG, STACK, SHARED, LOCAL}} from cuobjdump -res-usage."""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*Function (\S+):", line)
            if m:
                cur = m.group(1)
                continue
            if cur and "REG:" in line:
                out[cur] = {k: int(v) for k, v in re.findall(r"(\w+):(\d+)", line)}
                cur = None
    return out


def elf_symbols(path):
    """{symbol name: bytes} of the data symbols of an ELF64 little-endian file (the cubin)."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        fail(f"{path}: not a 64-bit little-endian ELF file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    out = {}
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for k in range(sec[5] // 24):
            st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                "<IBBHQQ", data, sec[4] + k * 24
            )
            if st_size == 0 or st_shndx == 0 or st_shndx >= len(sections):
                continue
            end = data.index(b"\0", strtab[4] + st_name)
            name = data[strtab[4] + st_name : end].decode()
            target = sections[st_shndx]
            if target[1] == 8:  # SHT_NOBITS
                continue
            out[name] = data[target[4] + st_value : target[4] + st_value + st_size]
    return out


def demangle(names):
    names = list(names)
    if not names:
        return {}
    try:
        r = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"c++filt failed ({e}); it comes with binutils")
    lines = r.stdout.splitlines()
    if len(lines) != len(names):
        fail("c++filt returned a different number of names")
    return dict(zip(names, lines))


def template_arg(demangled, name):
    """The text between the <> that follow `name` in a demangled symbol."""
    k = demangled.find(name + "<")
    if k < 0:
        return None
    k += len(name)
    depth = 0
    for j in range(k, len(demangled)):
        if demangled[j] == "<":
            depth += 1
        elif demangled[j] == ">":
            depth -= 1
            if depth == 0:
                return demangled[k + 1 : j]
    return None


# ------------------------------------------------------------------- model


def occupancy(regs, block, shared):
    if not block:
        return None
    warps_per_block = -(-block // 32)
    regs_per_warp = -(-max(regs, 1) * 32 // REG_ALLOC_UNIT) * REG_ALLOC_UNIT
    blocks = min(
        SM_BLOCKS,
        SM_WARPS // warps_per_block,
        (SM_REGS // regs_per_warp) // warps_per_block,
        SM_SHARED // shared if shared else SM_BLOCKS,
    )
    return blocks * warps_per_block / SM_WARPS


def predict(instr, mufu, fp64):
    limits = {"issue": SMS * ISSUE_PER_SM * CLOCK_HZ / instr if instr else float("inf")}
    if mufu:
        limits["MUFU"] = SMS * MUFU_PER_SM * CLOCK_HZ / mufu
    if fp64:
        limits["FP64"] = SMS * FP64_PER_SM * CLOCK_HZ / fp64
    which = min(limits, key=limits.get)
    return limits[which], which


# -------------------------------------------------------------------- main


def analyse(build, explain=None):
    stems = sorted(f[: -len(".json")] for f in os.listdir(build) if f.endswith(".json"))
    if explain:
        if explain not in stems:
            fail(f"--explain: no {explain}.json in {build}")
        stems = [explain]
    if not stems:
        fail(f"no STEM.json in {build}")
    rows = []
    for stem in stems:
        path = os.path.join(build, stem)
        meta = json.load(open(path + ".json"))
        for ext in (".cubin", ".sass", ".res", ".ptxas.log"):
            if not os.path.exists(path + ext):
                fail(f"{path + ext} is missing")
        funcs = read_sass(path + ".sass")
        ptxas = read_ptxas(path + ".ptxas.log")
        res = read_res(path + ".res")
        symbols = elf_symbols(path + ".cubin")
        names = demangle(list(funcs) + [s for s in symbols if "launch_facts" in s])
        facts = {}
        for s, raw in symbols.items():
            if "launch_facts" in s:
                k = template_arg(names[s], "kops_sass::launch_facts")
                facts[k] = struct.unpack("<8Q", raw[:64])
        if not funcs:
            fail(f"{path}.sass: no kernel")
        size = 8 if meta["dtype"] == "double" else 4  # half, bfloat16: evaluated in float
        reduce_count = 0
        for mangled, code in sorted(funcs.items(), key=lambda kv: names[kv[0]]):
            dem = names[mangled]
            if meta["impl"] == "kops":
                if "::reduce_kernel<" in dem:
                    kind = "reduce"
                    k = template_arg(dem, "kops::cuda::detail::reduce_kernel")
                elif "::gpu_2d_combine_kernel<" in dem:
                    kind = "combine"
                    k = template_arg(dem, "kops::cuda::detail::gpu_2d_combine_kernel")
                else:
                    kind, k = "other", None
                dyn, tile, block, chunks, width, fchunks, fwidth, rows_per_thread = (
                    facts.get(k, (0,) * 8) if kind == "reduce" else (0,) * 8)
                if kind == "reduce" and k not in facts:
                    fail(f"{stem}: no kops_sass::launch_facts for the kernel {dem[:200]}...")
                pair_bytes = dyn // tile if tile else 0
                if kind == "combine":
                    block = facts.get(k, (0,) * 8)[2]
            else:
                chunks, tile, fchunks, rows_per_thread = 0, 0, 0, 1
                kind = "reduce" if mangled.startswith("GpuConv1D") else "other"
                dyn, block, pair_bytes = meta["dynamic_shared_bytes"], meta["block"], meta["pair_bytes"]
            if kind == "reduce":
                reduce_count += 1
            p = ptxas.get(mangled)
            r = res.get(mangled)
            if p is None or "regs" not in p or r is None:
                fail(f"{stem}: no ptxas -v or -res-usage record for {dem[:200]}")
            row = {
                "impl": meta["impl"],
                "case": meta["case"],
                "dtype": meta["dtype"],
                "precision": meta["precision"],
                "kernel": kind,
                "regs": p["regs"],
                "spill_stores": p["spill_st"],
                "spill_loads": p["spill_ld"],
                "stack": p["stack"],
                "static_shared": r.get("SHARED", 0),
                "dynamic_shared": dyn,
                "block": block,
                "pair_bytes": pair_bytes,
                "sass_instr_total": len(code),
                "stem": stem,
                "name": dem if len(dem) < 160 else dem[:157] + "...",
            }
            row["occupancy"] = occupancy(row["regs"], block, dyn + row["static_shared"])
            if kind == "reduce" and meta["impl"] == "keopscore" and meta["case"] in KEOPS_NOT_MODELED:
                row.update(loops=KEOPS_NOT_MODELED[meta["case"]])
            elif kind == "reduce":
                if explain:
                    print(f"== {stem}: {dem[:120]}")
                if chunks or fchunks:
                    # the cooperative copy of a chunk of the tile: ceil(tile * width / block) trips
                    phases = ([(chunks, -(-tile * width // block))] if chunks else []) + (
                        [(fchunks, -(-tile * fwidth // block))] if fchunks else [])
                    per, static, notes = staged_pair_cost(code, tile, phases, explain=bool(explain))
                else:
                    repeat = max(0, meta.get("chunks", 0) - 1) if meta["impl"] == "keopscore" else 0
                    per, static, notes = pair_cost(code, pair_bytes, explain=bool(explain), chunk_repeat=repeat,
                                                   rows=max(1, rows_per_thread))
                if not per:
                    fail(f"{stem}: found no pair loop in {dem[:200]}")
                instr = sum(per.values())
                mufu = count(per, lambda op: base_of(op) == "MUFU")
                fp64 = count(per, lambda op: base_of(op) in FP64_OPS)
                pred, limit = predict(instr, mufu, fp64)
                f = "F" if size == 4 else "D"
                row.update(
                    instr_per_pair=instr,
                    static_instr_per_pair=sum(static.values()),
                    mufu_per_pair=mufu,
                    lds_per_pair=count(per, lambda op: base_of(op) == "LDS"),
                    ffma_per_pair=count(per, lambda op: base_of(op) == f + "FMA"),
                    fadd_per_pair=count(per, lambda op: base_of(op) == f + "ADD"),
                    fmul_per_pair=count(per, lambda op: base_of(op) == f + "MUL"),
                    fp64_per_pair=fp64,
                    local_per_pair=count(per, lambda op: base_of(op) in ("LDL", "STL")),
                    loops="; ".join(notes),
                    pairs_per_s=pred,
                    limit=limit,
                )
            rows.append(row)
        if reduce_count == 0:
            fail(f"{stem}: no reduction kernel found")
    return rows


CSV_FIELDS = [
    "impl", "case", "dtype", "precision", "kernel", "regs", "spill_stores", "spill_loads", "stack",
    "static_shared", "dynamic_shared", "block", "occupancy", "pair_bytes", "instr_per_pair",
    "static_instr_per_pair", "mufu_per_pair", "lds_per_pair", "ffma_per_pair", "fadd_per_pair",
    "fmul_per_pair", "fp64_per_pair", "local_per_pair", "pairs_per_s", "limit", "loops",
    "sass_instr_total", "stem", "name",
]


def sort_key(r):
    impl = {"kops": 0, "keopscore": 1}[r["impl"]]
    prec = {"fast": 0, "accurate": 1}[r["precision"]]
    dtype = {"float": 0, "half": 1, "bfloat16": 2, "double": 3}[r["dtype"]]
    return (case_order(r["case"]), dtype, impl, prec, r["kernel"], r["stem"])


def fmt(x, nd=1):
    if x is None or x == "":
        return ""
    if isinstance(x, float):
        return f"{x:.{nd}f}".rstrip("0").rstrip(".") if nd else f"{x:.0f}"
    return str(x)


def table(rows):
    out = [
        "| kernel | impl | dtype | precision | regs | spill st/ld B | stack B | shared B | occupancy "
        "| instr/pair | MUFU/pair | LDS/pair | FMA/ADD/MUL per pair | predicted pairs/s (limit) |",
        "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        if r["kernel"] != "reduce":
            continue
        prec = r["precision"] if r["impl"] == "kops" else "fast-math"
        out.append(
            f"| {case_label(r['case'])} | {r['impl']} | {r['dtype']} | {prec} | {r['regs']} "
            f"| {r['spill_stores']}/{r['spill_loads']} | {r['stack']} "
            f"| {r['static_shared'] + r['dynamic_shared']} | {r['occupancy']:.0%} "
            + (
                f"| {r['instr_per_pair']:.1f} | {fmt(r['mufu_per_pair'], 2)} | {fmt(r['lds_per_pair'], 2)} "
                f"| {fmt(r['ffma_per_pair'], 2)}/{fmt(r['fadd_per_pair'], 2)}/{fmt(r['fmul_per_pair'], 2)} "
                f"| {r['pairs_per_s']:.2e} ({r['limit']}) |"
                if r.get("instr_per_pair") is not None
                else "| — | — | — | — | — (not modeled) |"
            )
        )
    return "\n".join(out)


def targets(rows):
    red = [r for r in rows if r["kernel"] == "reduce"]

    def one(impl, case, dtype, prec="fast"):
        m = [r for r in red if (r["impl"], r["case"], r["dtype"]) == (impl, case, dtype)
             and (impl != "kops" or r["precision"] == prec)]
        return m

    lines = []
    g = one("kops", "gauss3", "float")
    if g:
        v = sum(r["instr_per_pair"] for r in g)
        lines.append(
            f"- fast 3-D Gaussian sum, float, at most 11 SASS instructions per pair in the hot loop: "
            f"**{'met' if v <= 11 else 'not met'}** ({v:.1f})."
        )
    worse = []
    checked = 0
    for case in CASE_ORDER:
        for dtype in ("float", "double"):
            k, o = one("kops", case, dtype), one("keopscore", case, dtype)
            if not k or not o or any(r.get("instr_per_pair") is None for r in k + o):
                continue
            checked += 1
            kv, ov = sum(r["instr_per_pair"] for r in k), sum(r["instr_per_pair"] for r in o)
            if kv >= ov:
                worse.append(f"{CASE_LABEL[case]} {dtype} ({kv:.1f} vs {ov:.1f})")
    lines.append(
        f"- fewer instructions per pair than keopscore for every formula of the set (kops fast policy "
        f"against keopscore's fast-math kernel, {checked} pairs of kernels): "
        + ("**met**." if not worse else f"**not met** for {len(worse)}: " + "; ".join(worse) + ".")
    )
    spills = [
        f"{case_label(r['case'])} {r['dtype']} {r['precision']} ({r['spill_stores']}/{r['spill_loads']} B)"
        for r in red
        if r["impl"] == "kops" and (r["spill_stores"] or r["spill_loads"])
    ]
    lines.append(
        "- no spills at any width (every kops kernel above, D = 3 to 1024, every type and policy; sums over "
        ">= 128 coordinates are chunked): "
        + ("**met**." if not spills else "**not met**: " + "; ".join(spills) + ".")
    )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--csv")
    ap.add_argument("--md")
    ap.add_argument("--explain", metavar="STEM", help="print the hot loops of BUILD/STEM.*, hot path marked, and stop")
    ap.add_argument("--docs", help="markdown file whose <!-- sass-table:begin/end --> block is refreshed")
    ap.add_argument("--header", default="", help="a line saying how the results were made (toolchain versions)")
    a = ap.parse_args()
    if a.explain:
        analyse(a.build, a.explain)
        return
    if not a.csv or not a.md:
        fail("--csv and --md are required (or --explain)")

    rows = sorted(analyse(a.build), key=sort_key)
    os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items() if k in CSV_FIELDS})

    block = (
        (a.header + "\n\n" if a.header else "")
        + table(rows)
        + "\n\nTargets:\n\n"
        + targets(rows)
        + "\n"
    )
    with open(a.md, "w") as f:
        f.write(
            "# SASS analysis of the kops and keopscore GPU kernels (sm_90)\n\n"
            "Made by `bash bench/sass/run.sh` (no GPU needed); raw numbers in "
            "`bench/results/sass.csv`; method and model in `docs/performance.md` "
            "(GPU, \"SASS analysis\") and in `bench/sass/sass_stats.py`.\n\n" + block
        )
    if a.docs:
        text = open(a.docs).read()
        begin, end = "<!-- sass-table:begin -->", "<!-- sass-table:end -->"
        if begin not in text or end not in text:
            fail(f"{a.docs}: no {begin} ... {end} block to refresh")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        with open(a.docs, "w") as f:
            f.write(head + begin + "\n" + block + end + tail)
    print(table(rows))
    print()
    print(targets(rows))


if __name__ == "__main__":
    main()
