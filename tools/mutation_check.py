#!/usr/bin/env python3
"""Mutations of the CUDA backend for tools/mutation_check.sh, and its report.

Each mutation is one exact string replacement in one header under include/
(applied to a copy: the real tree is never touched). The old string must occur
exactly once, so that a change of the code shows here as an error rather than
as a mutation that silently no longer applies.

  mutation_check.py list                      ids of every mutation
  mutation_check.py flavors ID                the builds a mutation gets: plain, and tsan / asan
  mutation_check.py check INCLUDE             every pattern occurs exactly once (exit 2 if not)
  mutation_check.py apply ID INCLUDE          mutate the copy INCLUDE (an include/ folder)
  mutation_check.py describe                  the mutations as a markdown list
  mutation_check.py summarize WORK ID...      the result table of a run (WORK/<id>/<flavor>/);
                                              exit 0 if the baseline passes and every mutation is caught

A run folder WORK/<id>/<flavor>/ holds rc (the test binary's exit status; 124
or 137: timed out), run.out (Catch's output) and run.err (stderr: the test
listener's "@@mutation@@ start|pass|fail <test>" lines interleaved with any
sanitizer or emulator report).
"""
import os
import re
import sys

CUDA = "kops/backends/cuda/"

# id, what (for the table and the docs), file under include/, old, new,
# sanitizer build besides the plain one (None, "tsan" or "asan").
MUTATIONS = [
    dict(id="barrier-1",
         what="the tile walk (tile_walk.hpp): the first `__syncthreads()` of the tile load removed (the one before the tile is "
              "overwritten)",
         file=CUDA + "tile_walk.hpp",
         old="__syncthreads();  // the previous tile has been used by every thread\n"
             "    tile_loader<K>::load(tile, a.p, j0, len);",
         new="/* mutation: first barrier removed */\n"
             "    tile_loader<K>::load(tile, a.p, j0, len);",
         san="tsan"),
    dict(id="barrier-2",
         what="the tile walk: the second `__syncthreads()` of the tile load removed (the one after the tile load)",
         file=CUDA + "tile_walk.hpp",
         old="tile_loader<K>::load(tile, a.p, j0, len);\n    __syncthreads();",
         new="tile_loader<K>::load(tile, a.p, j0, len);\n    /* mutation: second barrier removed */",
         san="tsan"),
    dict(id="len+1",
         what="the tile walk: a partial (last) tile one index too long: `len = je - j0 + 1`",
         file=CUDA + "tile_walk.hpp",
         old="len = je - j0 < K::tile ? int(je - j0) : K::tile;",
         new="len = je - j0 < K::tile ? int(je - j0) + 1 : K::tile;",
         san=None),
    dict(id="len-1",
         what="the tile walk: a full tile one index too short: `len = K::tile - 1` (the loop still steps by "
              "K::tile)",
         file=CUDA + "tile_walk.hpp",
         old="len = je - j0 < K::tile ? int(je - j0) : K::tile;",
         new="len = je - j0 < K::tile ? int(je - j0) : K::tile - 1;",
         san=None),
    dict(id="loader-1",
         what="tile_loader: the load loop's bound one row short, `e < (len - 1) * D` (the tile's last row "
              "is not loaded)",
         file=CUDA + "tile_context.hpp",
         old="for (int e = int(threadIdx.x); e < len * D; e += K::block) {",
         new="for (int e = int(threadIdx.x); e < (len - 1) * D; e += K::block) {",
         san=None),
    dict(id="scratch-x",
         what="GPU_2D pass 1 (reduce_kernel) stores its accumulator at `scratch[blockIdx.x * rows + row]` "
              "instead of `blockIdx.y`",
         file=CUDA + "gpu_1d.hpp",
         old="if (scratch) scratch[std::int64_t(blockIdx.y) * rows + row] = acc;",
         new="if (scratch) scratch[std::int64_t(blockIdx.x) * rows + row] = acc;",
         san=None),
    dict(id="scratch-c-1",
         what="GPU_2D combine kernel: the fold reads chunk `c - 1` instead of `c`, `scratch[(c - 1) * rows + "
              "row]`",
         file=CUDA + "gpu_2d.hpp",
         old="K::op::template combine<Math>(acc, scratch[c * rows + row]);",
         new="K::op::template combine<Math>(acc, scratch[(c - 1) * rows + row]);",
         san=None),
    dict(id="order-fold",
         what="GPU_2D combine kernel: the per-group fold combines the later chunk first, `combine(later, "
              "acc)`",
         file=CUDA + "gpu_2d.hpp",
         old="K::op::template combine<Math>(acc, scratch[c * rows + row]);",
         new="{ acc_type later = scratch[c * rows + row]; K::op::template combine<Math>(later, acc); "
             "acc = later; }",
         san=None),
    dict(id="order-tree",
         what="GPU_2D combine kernel: the tree combines group g + s before group g, `combine(partial[t + "
              "s..], acc)`",
         file=CUDA + "gpu_2d.hpp",
         old="K::op::template combine<Math>(acc, partial[t + (s << row_shift)]);",
         new="{ acc_type later = partial[t + (s << row_shift)]; K::op::template combine<Math>(later, acc); "
             "acc = later; }",
         san=None),
    dict(id="shared-1",
         what="kernel_traits: `K::shared_bytes` one element (`sizeof(T)`) short (the tile loop's launches, "
              "GPU_1D and GPU_2D pass 1)",
         file=CUDA + "kernel_traits.hpp",
         old="else return std::size_t(tile) * red_dims * sizeof(T);",
         new="else return std::size_t(tile) * red_dims * sizeof(T) - (red_dims ? sizeof(T) : 0);  // mutation",
         san="asan"),
    dict(id="shared-combine-1",
         what="GPU_2D combine launch: its shared memory one accumulator short, `(threads - 1) * "
              "sizeof(acc_type)`",
         file=CUDA + "launch.hpp",
         old="const std::size_t shared = shape.groups > 1 ? threads * k.facts.acc_bytes : 0;",
         new="const std::size_t shared = shape.groups > 1 ? (threads - 1) * k.facts.acc_bytes : 0;",
         san="asan"),
]
BY_ID = {m["id"]: m for m in MUTATIONS}


def die(msg, code=2):
    print("mutation_check: " + msg, file=sys.stderr)
    sys.exit(code)


def mutation(mid):
    if mid not in BY_ID:
        die(f"unknown mutation {mid!r} (known: {', '.join(BY_ID)})")
    return BY_ID[mid]


def count(include, m):
    path = os.path.join(include, m["file"])
    if not os.path.isfile(path):
        return path, None, 0
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return path, text, text.count(m["old"])


def cmd_check(include):
    bad = []
    for m in MUTATIONS:
        path, _, n = count(include, m)
        if n != 1:
            bad.append(f"  {m['id']}: {path}: the pattern occurs {n} times (must be exactly once):\n"
                       + "\n".join("      | " + l for l in m["old"].splitlines()))
    if bad:
        die("the code no longer matches these mutations; update tools/mutation_check.py:\n" + "\n".join(bad))
    print(f"mutation_check: all {len(MUTATIONS)} patterns found exactly once under {include}")


def cmd_apply(mid, include):
    m = mutation(mid)
    path, text, n = count(include, m)
    if n != 1:
        die(f"{mid}: {path}: the pattern occurs {n} times (must be exactly once); update tools/mutation_check.py")
    mutated = text.replace(m["old"], m["new"])
    assert mutated != text
    with open(path, "w", encoding="utf-8") as f:
        f.write(mutated)
    print(f"mutation_check: {mid}: mutated {m['file']}")


def cmd_describe():
    for m in MUTATIONS:
        extra = {"tsan": " (plain and ThreadSanitizer builds)",
                 "asan": " (plain and AddressSanitizer + UBSan builds)"}.get(m["san"], "")
        print(f"- `{m['id']}`: {m['what']}; in `include/{m['file']}`{extra}.")


SAN_PATTERNS = [
    ("TSan", re.compile(r"WARNING: ThreadSanitizer: ([a-z -]+)")),
    ("ASan", re.compile(r"ERROR: AddressSanitizer: ([a-zA-Z-]+)")),
    ("UBSan", re.compile(r"runtime error: (.{0,60})")),
    ("LSan", re.compile(r"ERROR: LeakSanitizer: (.{0,40})")),
    ("emulator", re.compile(r"(kops::cuda_emulated[^\n]{0,80})")),
    ("glibc heap check", re.compile(r"^((?:double free or corruption|free\(\)|malloc\(\)|corrupted )[^\n]{0,60})")),
]
# Template test cases are named "<name> - <type>": the table groups them by name.
CONFIG_SUFFIX = re.compile(r" - (kops_test::cfg<.*>|float|double)$")
EVENT = re.compile(r"^@@mutation@@ (start|pass|fail) (.*)$")


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def analyse(folder):
    """One run: dict(ran, rc, passed, failed [names], aborted_in, report)."""
    rc_text = read(os.path.join(folder, "rc")).strip()
    if not rc_text:
        return dict(ran=False)
    rc = int(rc_text)
    err = read(os.path.join(folder, "run.err"))
    started, failed, passed = None, [], 0
    report, report_in = None, None
    for line in err.splitlines():
        ev = EVENT.match(line)
        if ev:
            kind, name = ev.groups()
            if kind == "start":
                started = name
            else:
                if kind == "fail":
                    failed.append(name)
                else:
                    passed += 1
                started = None
            continue
        if report is None:
            for tool, rx in SAN_PATTERNS:
                mm = rx.search(line)
                if mm:
                    report, report_in = f"{tool}: {mm.group(1).strip()}", started
                    break
    return dict(ran=True, rc=rc, passed=passed, failed=failed, aborted_in=started if rc != 0 else None,
                report=report, report_in=report_in)


def caught(r):
    return r["ran"] and (r["rc"] != 0 or r["failed"] or r["report"])


def verdict(r, flavor):
    if not r["ran"]:
        return "not run"
    if not caught(r):
        return f"survives ({r['passed']} test cases pass)"
    parts = []
    if r["rc"] in (124, 137):
        parts.append("timed out")
    if r["report"]:
        parts.append(r["report"] + (f" (in \"{short(r['report_in'], 100)}\")" if r["report_in"] else ""))
    n = len(r["failed"])
    if n:
        parts.append(f"{n} of {n + r['passed']} test cases fail")
    if r["aborted_in"] and not r["report"]:
        parts.append(f"aborted (exit {r['rc']}) in \"{short(r['aborted_in'], 100)}\"")
    if not parts:
        parts.append(f"exit {r['rc']}")
    return "**caught**: " + "; ".join(parts)


def short(name, n=70):
    name = re.sub(r"kops_test::cfg<kops_test::(\w+), (\w+)>", r"\1 \2", name)
    return name if len(name) <= n else name[: n - 1] + "…"


def cmd_summarize(work, ids):
    base = {fl: analyse(os.path.join(work, "baseline", fl)) for fl in ("plain", "tsan", "asan")}
    ok = True
    lines = ["| mutation | plain build | sanitizer build | failing tests (first few) |", "|---|---|---|---|"]
    for fl, r in base.items():
        if not r["ran"]:
            continue
        good = not caught(r)
        ok &= good
        lines.append(f"| baseline ({fl}) | {'passes' if good else 'FAILS'}: {r['passed']} test cases, exit "
                     f"{r['rc']}{', ' + r['report'] if r['report'] else ''} | | "
                     f"{', '.join(short(n, 60) for n in r['failed'][:3])} |")
    survivors = []
    for mid in ids:
        m = mutation(mid)
        plain = analyse(os.path.join(work, mid, "plain"))
        san = analyse(os.path.join(work, mid, m["san"])) if m["san"] else None
        hit = caught(plain) or (san is not None and caught(san))
        if not hit:
            survivors.append(mid)
        names = list(plain["failed"]) if plain["ran"] else []
        if plain["ran"] and plain["aborted_in"] and plain["aborted_in"] not in names:
            names.append(plain["aborted_in"])
        if san is not None and san["ran"]:
            for n in san["failed"] + ([san["report_in"]] if san["report_in"] else []):
                if n and n not in names:
                    names.append(n)
        groups = {}  # test name without its template argument -> instances
        for n in names:
            base = CONFIG_SUFFIX.sub("", n)
            groups[base] = groups.get(base, 0) + 1
        items = [f"\"{short(b, 70)}\"" + (f" ×{k}" if k > 1 else "") for b, k in groups.items()]
        shown = "; ".join(items[:4]) + (f"; +{len(items) - 4} more tests" if len(items) > 4 else "")
        if san is None:
            san_cell = "—"
        else:  # the report names its tool; otherwise say which build this is
            label = {"tsan": "TSan build", "asan": "ASan+UBSan build"}[m["san"]]
            san_cell = verdict(san, m["san"]) if san["ran"] and san["report"] else f"{label}: " + verdict(
                san, m["san"])
        lines.append(f"| `{mid}` | {verdict(plain, 'plain')} | {san_cell} | {shown or '—'} |")
    print("\n".join(lines))
    print()
    if not ok:
        print("mutation_check: the UNMUTATED baseline fails: no mutation result means anything")
        return 1
    if survivors:
        print("mutation_check: surviving mutations (no test fails): " + ", ".join(survivors))
        return 1
    print(f"mutation_check: all {len(ids)} mutations caught")
    return 0


def main(argv):
    if len(argv) < 2:
        die(__doc__.strip(), 2)
    cmd, args = argv[1], argv[2:]
    if cmd == "list":
        print(" ".join(m["id"] for m in MUTATIONS))
    elif cmd == "flavors" and len(args) == 1:
        m = mutation(args[0])
        print("plain" + (" " + m["san"] if m["san"] else ""))
    elif cmd == "check" and len(args) == 1:
        cmd_check(args[0])
    elif cmd == "apply" and len(args) == 2:
        cmd_apply(args[0], args[1])
    elif cmd == "describe":
        cmd_describe()
    elif cmd == "summarize" and len(args) >= 1:
        return cmd_summarize(args[0], args[1:])
    else:
        die("bad arguments: " + " ".join(argv[1:]) + "\n" + __doc__.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
