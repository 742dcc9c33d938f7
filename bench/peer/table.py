#!/usr/bin/env python3
"""The scoreboard's summary: one row per formula, element type and size, from
kops_peer's CSV (kops and KeOps's kernels), peers.py's CSV (pykeops, PyTorch,
the hardware's rates) and bench/sass's model (bench/results/sass.csv).

usage: table.py --scoreboard scoreboard.csv [--peers peers.csv] [--sass bench/results/sass.csv] [--md OUT.md]

Columns: the fastest kops row (its policy and scheme) and, per precision
policy, kops's best time over the schemes; KeOps's kernel as pykeops runs it
(nvrtc; nvcc where there is no nvrtc row); KeOps / kops (> 1: kops faster, the
fast policy against KeOps's fast-math kernel); pykeops 2.3 end to end and
PyTorch dense at the same size (when peers.py ran); kops's pairs/s against the
SASS model's prediction for that kernel (its issue or unit limit on an H100:
the fraction of the limit the model says binds). Then the measured hardware
rates. Rows that disagreed (verdict FAIL) are marked. Prints to stdout, or
writes --md.
"""
import argparse
import csv
import os
import sys


def read(path):
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def ms(v):
    return f"{1e3 * v:.3f}" if v is not None else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scoreboard", required=True)
    ap.add_argument("--peers", default="")
    ap.add_argument("--sass", default=os.path.join(os.path.dirname(__file__), "..", "results", "sass.csv"))
    ap.add_argument("--md", default="")
    a = ap.parse_args()
    board, peers, sass = read(a.scoreboard), read(a.peers), read(a.sass)
    if not board:
        sys.exit(f"table.py: no rows in {a.scoreboard}")

    # bench/sass's prediction per (case, dtype, precision): the slowest reduce kernel's.
    model = {}
    for r in sass:
        if r["impl"] == "kops" and r["kernel"] == "reduce" and r["pairs_per_s"]:
            k = (r["case"], r["dtype"], r["precision"])
            p = float(r["pairs_per_s"])
            if k not in model or p < model[k][0]:
                model[k] = (p, r["limit"])

    groups = {}
    for r in board:
        groups.setdefault((r["case"], r["dtype"], int(r["rows"]), int(r["cols"])), []).append(r)
    other = {}  # (case, rows) -> {impl: median}
    for r in peers:
        if r["verdict"] != "ok":
            continue
        case = {"argkmin8_d3": "argkmin8", "attention_dh64": "attention64"}.get(r["case"], r["case"])
        dtype = {"float32": "float"}.get(r["dtype"], r["dtype"])
        other.setdefault((case, dtype, int(r["rows"])), {})[r["impl"]] = float(r["median_s"])

    out = [f"Scoreboard summary ({board[0]['device']}); times are medians in ms.", "",
           "| case | T | M = N | kops best (policy, scheme) | kops accurate | kops fast | KeOps kernel (nvrtc) | "
           "KeOps (nvcc) | KeOps / kops fast | pykeops 2.3 | PyTorch | kops fast pairs/s / SASS model |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for (case, dtype, rows, cols), rs in groups.items():
        kops = [r for r in rs if r["impl"] == "kops"]
        if not kops:
            continue
        best = min(kops, key=lambda r: float(r["median_s"]))
        by_policy = {p: min((float(r["median_s"]) for r in kops if r["policy"] == p), default=None)
                     for p in ("accurate", "fast")}
        keops = {("nvrtc" if "nvrtc" in r["impl"] else "nvcc"): float(r["median_s"]) for r in rs
                 if r["impl"].startswith("KeOps")}
        ref = keops.get("nvrtc", keops.get("nvcc"))
        ratio = f"{ref / by_policy['fast']:.2f}" if ref and by_policy["fast"] else "-"
        peer = other.get((case, dtype, rows), {})
        pk = peer.get("pykeops 2.3")  # torch tensors; else the numpy child's (host copies included)
        pk_note = ""
        if pk is None and "pykeops 2.3 (numpy)" in peer:
            pk, pk_note = peer["pykeops 2.3 (numpy)"], " (numpy)"
        torch = min((v for k, v in peer.items() if k.startswith("torch")), default=None)
        frac = "-"
        m = model.get((case, dtype, "fast"))
        if m and by_policy["fast"]:
            measured = rows * cols / by_policy["fast"]
            frac = f"{measured:.3g} / {m[0]:.3g} = {measured / m[0]:.0%} ({m[1]})"
        failed = any(r["verdict"] != "ok" for r in rs)
        size = f"{rows}" if rows == cols else f"{rows} x {cols}"
        out.append(f"| {case}{' **FAIL**' if failed else ''} | {dtype} | {size} | {ms(float(best['median_s']))} "
                   f"({best['policy']}, {best['scheme']}) | {ms(by_policy['accurate'])} | {ms(by_policy['fast'])} | "
                   f"{ms(keops.get('nvrtc'))} | {ms(keops.get('nvcc'))} | {ratio} | {ms(pk)}{pk_note} | {ms(torch)} | {frac} |")
    limits = [r for r in peers if r["impl"] == "limit" and r["verdict"] == "ok"]
    if limits:
        out += ["", "Hardware rates measured in the same run (peers.py):", "",
                "| what | rate |", "|---|---:|"]
        out += [f"| {r['case']} ({r['policy']}) | {float(r['pairs_per_s']):.3g} {r['scheme']} |" for r in limits]
    text = "\n".join(out) + "\n"
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
