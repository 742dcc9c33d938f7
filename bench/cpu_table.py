#!/usr/bin/env python3
"""Markdown table from the CSV written by bench_cpu and pykeops_cpu.py.

usage: cpu_table.py RESULTS.csv [--pending-kops]
Columns: impl | N=M | time (best wall) | thread CPU time (best) | pairs/s (wall) |
vs hand loop (wall) | vs hand loop (CPU time) | max rel err vs f64 | note.
The ratios are time(hand) / time(impl) at the same size (> 1: faster than the
hand loop). The thread CPU time excludes the slices other processes took from
the pinned core, so on a shared machine it is the steadier of the two.
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
    order = {"kops": 0, "kops-fast": 1, "hand": 2, "hand-libmvec": 3, "pykeops-cpu": 4}
    sizes = sorted({int(r["n"]) for r in rows})
    hand = {int(r["n"]): r for r in rows if r["impl"] == "hand"}
    out = ["| impl | N=M | time (best wall) | thread CPU time (best) | pairs/s (wall) | vs hand loop (wall) "
           "| vs hand loop (CPU time) | max rel err vs f64 | note |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for n in sizes:
        here = sorted((r for r in rows if int(r["n"]) == n), key=lambda r: order.get(r["impl"], 9))
        if pending and not any(r["impl"] == "kops" for r in here):
            out.append(f"| kops | {n} | pending | pending | pending | pending | pending | | kops not built yet |")
        for r in here:
            t, c = float(r["best_s"]), float(r["cpu_best_s"])
            h = hand.get(n)
            rw = f"{float(h['best_s']) / t:.3f}" if h else "n/a"
            rc = f"{float(h['cpu_best_s']) / c:.3f}" if h else "n/a"
            note = r["note"]
            if note.startswith("cold_first_call_s="):
                note = f"first call (cold: JIT compile + run) {float(note.split('=')[1]):.2f} s"
            out.append(f"| {r['impl']} | {n} | {fmt_time(t)} | {fmt_time(c)} | {float(r['pairs_per_s']):.3g} "
                       f"| {rw} | {rc} | {float(r['max_rel_err_f64']):.1e} | {note} |")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
