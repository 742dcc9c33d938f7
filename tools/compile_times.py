#!/usr/bin/env python3
"""Sums up a KOPS_COMPILE_TIMES log (tools/cache.sh, tools/timed_compile.sh):
compile seconds by build folder and by target, and the longest objects.

    python3 tools/compile_times.py LOG [--top N]

Each log line: <start> <end> <folder the compile ran in> <object>. The build
folder is the folder's path up to its first component named build* (else the
folder itself); the target is the object's CMakeFiles/<target>.dir. Seconds
are wall seconds of each compile: with -jN they add up to about N times the
build's wall time when the cores are busy.
"""
import argparse
import collections
import re


def build_of(folder):
    parts = folder.split("/")
    for k, p in enumerate(parts):
        if p.startswith("build"):
            return "/".join(parts[: k + 1])
    return folder


def target_of(obj):
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", obj)
    return m.group(1) if m else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--top", type=int, default=20, help="longest objects to list (default 20)")
    args = ap.parse_args()
    rows = []
    with open(args.log) as f:
        for line in f:
            p = line.split(maxsplit=3)
            if len(p) == 4:
                rows.append((float(p[0]), float(p[1]), p[2], p[3].strip()))
    if not rows:
        print("no compiles logged")
        return 0
    by_build = collections.defaultdict(lambda: [0.0, 0, float("inf"), 0.0])
    by_target = collections.defaultdict(lambda: [0.0, 0])
    for s, e, folder, obj in rows:
        b = by_build[build_of(folder)]
        b[0] += e - s
        b[1] += 1
        b[2] = min(b[2], s)
        b[3] = max(b[3], e)
        t = by_target[(build_of(folder), target_of(obj))]
        t[0] += e - s
        t[1] += 1
    print(f"{'compile s':>10} {'objects':>8} {'span s':>8}  build folder")
    for k, (sec, n, s0, e1) in sorted(by_build.items(), key=lambda kv: -kv[1][0]):
        print(f"{sec:10.0f} {n:8d} {e1 - s0:8.0f}  {k}")
    print(f"\n{'compile s':>10} {'objects':>8}  target (build folder)")
    for (b, t), (sec, n) in sorted(by_target.items(), key=lambda kv: -kv[1][0])[: max(args.top, 10)]:
        print(f"{sec:10.0f} {n:8d}  {t} ({b})")
    print(f"\n{'s':>7}  longest objects")
    for s, e, folder, obj in sorted(rows, key=lambda r: r[0] - r[1])[: args.top]:
        print(f"{e - s:7.1f}  {build_of(folder)}: {obj}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
