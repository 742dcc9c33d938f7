#!/usr/bin/env python3
"""Markdown table from the CSV written by bench_cpu and pykeops_cpu.py.

usage: cpu_table.py RESULTS.csv [--pending-kops]
Columns: impl | N=M | time (best wall) | thread CPU time (best) | pairs/s | ratio vs hand loop |
max rel err vs f64 | note. pairs/s and the ratio use the best wall time; the ratio is
time(hand) / time(impl) at the same size (> 1: faster than the hand loop).
"""
import csv
import sys


def fmt_time(s):
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = list(csv.DictReader(open(sys.argv[1])))
    pending = "--pending-kops" in sys.argv[2:]
    order = {"kops": 0, "hand": 1, "hand-libmvec": 2, "pykeops-cpu": 3}
    sizes = sorted({int(r["n"]) for r in rows})
    hand = {int(r["n"]): float(r["best_s"]) for r in rows if r["impl"] == "hand"}
    out = ["| impl | N=M | time (best wall) | thread CPU time (best) | pairs/s | ratio vs hand loop "
           "| max rel err vs f64 | note |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for n in sizes:
        here = sorted((r for r in rows if int(r["n"]) == n), key=lambda r: order.get(r["impl"], 9))
        if pending and not any(r["impl"] == "kops" for r in here):
            out.append(f"| kops | {n} | pending | pending | pending | pending | | kops not built yet |")
        for r in here:
            t = float(r["best_s"])
            ratio = f"{hand[n] / t:.3f}" if n in hand else "n/a"
            note = r["note"]
            if r["impl"] == "pykeops-cpu" and note.startswith("first_call_s="):
                note = f"first call {float(note.split('=')[1]):.2f} s"
            out.append(f"| {r['impl']} | {n} | {fmt_time(t)} | {fmt_time(float(r['cpu_best_s']))} "
                       f"| {float(r['pairs_per_s']):.3g} | {ratio} "
                       f"| {float(r['max_rel_err_f64']):.1e} | {note} |")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
