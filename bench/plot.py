#!/usr/bin/env python3
"""The performance plots of docs/performance.md, from the CSV files in bench/results/.

usage: python3 bench/plot.py [--out DIR] [CSV ...]

  --out DIR   where the PNGs go (default: docs/img of this repository; created if missing)
  CSV ...     input files (default: bench/results/*.csv of this repository). The kind of
              a file comes from its name:
                cpu*.csv      bench/run_cpu.sh's cpu_results.csv  -> cpu_throughput.png
                compile*.csv  bench/compile/run.sh's compile.csv  -> compile_time.png,
                                                                     compile_derivatives.png
                sass*.csv     bench/sass/run.sh's sass.csv        -> nothing (a table in the docs)
                half*.csv     bench/run_half.sh's half.csv        -> nothing (a table in the docs)
                wide*.csv     bench/run_wide.sh's wide.csv        -> nothing (a table in the docs)
Required columns: cpu*.csv impl,n,pairs_per_s; compile*.csv key,what,compiler,order,seconds.
When compile*.csv also has cpu_seconds (CPU time, user + sys), the plots show it as the
main measure and the wall time beside it: on a loaded machine only the CPU time compares.
The date in each footnote is the first "YYYY-MM-DD HH:MM UTC" of the run's log, the
file next to the CSV with the suffix .log; without one the footnote says "date unknown".
A CSV that lacks a column a plot needs is an error (exit status 2), as is a file of
unknown kind. Only Debian's python3-matplotlib is needed (Agg backend, no network);
under another python3 without matplotlib the script re-runs itself with /usr/bin/python3.
"""
import argparse
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SYSTEM_PYTHON = "/usr/bin/python3"

try:
    import matplotlib
except ImportError:
    # e.g. a pyenv python3 first on PATH: use the Debian interpreter that has the package
    if (os.path.exists(SYSTEM_PYTHON) and not os.environ.get("KOPS_PLOT_REEXEC")
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)):
        os.environ["KOPS_PLOT_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
    sys.exit("bench/plot.py: matplotlib not found (Debian: apt-get install python3-matplotlib)")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

DPI = 110
SIZE = (7.6, 4.6)  # inches: 836 x 506 pixels at DPI
LABEL_BOX = dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8)
COMMAND = "python3 bench/plot.py"  # for the footnotes: set by main() to this run's arguments

CPU_COLUMNS = ("impl", "n", "pairs_per_s")
COMPILE_COLUMNS = ("key", "what", "compiler", "order", "seconds")

# the order and the names the plots give bench_cpu's / pykeops_cpu.py's implementations
CPU_IMPLS = {
    "kops": ("kops, precision::accurate", "#1f77b4"),
    "kops-fast": ("kops, precision::fast", "#6baed6"),
    "hand": ("hand-written AVX-512 loop", "#2ca02c"),
    "hand-libmvec": ("hand loop + libmvec expf", "#98df8a"),
    "pykeops-cpu": ("pykeops 2.3, CPU", "#d62728"),
}
NVCC_TARGET = 2.3    # DESIGN.md: (b)/(a) for nvcc at most 2.3
ORDER4_TARGET = 20.0  # DESIGN.md: 4th derivative compiles in under 20 s


class InputError(Exception):
    pass


def read_csv(path, required):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}")
    missing = [c for c in required if c not in columns]
    if missing:
        raise InputError(f"{path}: missing required column(s) {', '.join(missing)} "
                         f"(has: {', '.join(columns) or 'no header'}; needs: {', '.join(required)})")
    if not rows:
        raise InputError(f"{path}: no data rows")
    return rows


def number(path, row, column):
    try:
        return float(row[column])
    except (TypeError, ValueError):
        raise InputError(f"{path}: column {column}: not a number: {row[column]!r}")


def shown_path(path):
    p = os.path.abspath(path)
    return os.path.relpath(p, ROOT) if p.startswith(ROOT + os.sep) else path


def run_date(path):
    log = os.path.splitext(path)[0] + ".log"
    try:
        with open(log) as f:
            m = re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", f.read())
    except OSError:
        m = None
    return f"run {m.group(0)}" if m else "date unknown"


def ratio_text(r):
    return f"{r:.2f}×" if r >= 0.1 else f"{r:.3f}×"


def finish(fig, path, note, out, name):
    fig.text(0.01, 0.01, f"data: {shown_path(path)} ({run_date(path)}); {note}\n"
             f"plot: {COMMAND}", fontsize=7, color="#555555", ha="left", va="bottom")
    target = os.path.join(out, name)
    fig.savefig(target, dpi=DPI)
    plt.close(fig)
    print(f"bench/plot.py: wrote {target}")


def plot_cpu(path, out):
    rows = read_csv(path, CPU_COLUMNS)
    data = {}
    for r in rows:
        data[(r["impl"], int(number(path, r, "n")))] = number(path, r, "pairs_per_s")
    sizes = sorted({n for _, n in data})
    impls = [i for i in CPU_IMPLS if any((i, n) in data for n in sizes)]
    impls += sorted({i for i, _ in data} - set(impls))
    fig, ax = plt.subplots(figsize=SIZE)
    width = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        label, color = CPU_IMPLS.get(impl, (impl, None))
        for s, n in enumerate(sizes):
            if (impl, n) not in data:
                continue
            v = data[(impl, n)]
            x = s + (k - (len(impls) - 1) / 2) * width
            ax.bar(x, v, width * 0.92, color=color, label=label if s == 0 else None)
            hand = data.get(("hand", n))
            text = f"{v:.2g}".replace("e+0", "e") + (f"\n{ratio_text(v / hand)}" if hand else "")
            ax.annotate(text, (x, v), xytext=(0, 2), textcoords="offset points", ha="center",
                        va="bottom", fontsize=6.5, bbox=LABEL_BOX)
    for s, n in enumerate(sizes):
        if ("hand", n) in data:
            ax.hlines(data[("hand", n)], s - 0.45, s + 0.45, colors="#2ca02c", linestyles="--",
                      linewidth=1, label="hand loop: the practical ceiling" if s == 0 else None)
    ax.set_yscale("log")
    lo = min(data.values())
    ax.set_ylim(lo / 3, max(data.values()) * 6)
    ax.set_xticks(range(len(sizes)), [f"N = M = {n:.0e}".replace("e+0", "e") for n in sizes])
    ax.set_xlabel("problem size (x: M points, y: N points, 3-D, float32)")
    ax.set_ylabel("throughput (pairs (i, j) per second, log scale)")
    ax.set_title("CPU, one core: 3-D Gaussian sum, float32 (bar labels: pairs/s, ratio to the hand loop)",
                 fontsize=9.5)
    ax.legend(fontsize=7.5, loc="upper right", ncol=2)
    ax.grid(axis="y", which="major", alpha=0.3)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    finish(fig, path, "best wall time of the repetitions (column reps); command: bash bench/run_cpu.sh", out,
           "cpu_throughput.png")


def plot_compile(path, out):
    rows = read_csv(path, COMPILE_COLUMNS)
    by_key = {r["key"]: r for r in rows}
    wall = {k: number(path, r, "seconds") for k, r in by_key.items()}
    # The CPU time (user + sys; optional column) leaves out the time other processes held
    # the core, so on a loaded machine it is the number to compare; on a quiet one the two
    # agree. It is the bar when present, the wall time an outline around it.
    cpu = {k: number(path, r, "cpu_seconds") for k, r in by_key.items() if r.get("cpu_seconds")}
    main_t = cpu if len(cpu) == len(wall) else wall
    main_name = "CPU time (user + sys)" if main_t is cpu else "wall time"
    groups = [("nvcc -O3, sm_90", [("nvcc_empty", "empty TU"),
                                   ("nvcc_gauss_grad", "Gaussian + gradient\n<kops/cuda.hpp>"),
                                   ("nvcc_gauss_grad_min", "the same, only\nthe headers used")]),
              ("g++ -O3", [("gxx_empty", "empty TU"),
                           ("gxx_gauss_grad", "Gaussian + gradient\nKokkos backend")])]
    groups = [(g, [b for b in bars if b[0] in wall]) for g, bars in groups]
    groups = [(g, bars) for g, bars in groups if bars]
    if not groups:
        raise InputError(f"{path}: none of the keys nvcc_empty, nvcc_gauss_grad, gxx_empty, "
                         f"gxx_gauss_grad (has: {', '.join(by_key)})")
    shown = [key for _, bars in groups for key, _ in bars]
    top = max(max(wall[k], main_t[k]) for k in shown)
    fig, ax = plt.subplots(figsize=SIZE)
    x, ticks, labels, labelled = 0.0, [], [], False
    colors = {"empty": "#bbbbbb", "gauss_grad": "#1f77b4", "gauss_grad_min": "#6baed6"}
    for g, bars in groups:
        empty = bars[0][0] if bars[0][0].endswith("_empty") else None
        start = x
        for key, label in bars:
            v = main_t[key]
            first = not labelled and not key.endswith("_empty")  # the legend's sample bar
            labelled = labelled or first
            ax.bar(x, v, 0.75, color=colors.get(key.split("_", 1)[1], "#888888"),
                   label=main_name if first else None)
            if main_t is cpu:
                ax.bar(x, wall[key], 0.75, fill=False, edgecolor="#555555", linestyle=":",
                       linewidth=1, label="wall time" if first else None)
            text = f"{v:.2f} s"
            if empty and key != empty:
                text += f"\n{v / main_t[empty]:.2f}× empty"
            if main_t is cpu:
                text += f"\n(wall {wall[key]:.2f} s" + \
                    (f", {wall[key] / wall[empty]:.2f}×)" if empty and key != empty else ")")
            ax.annotate(text, (x, max(v, wall[key])), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)
            ticks.append(x)
            labels.append(label)
            x += 1
        ax.annotate(g, ((start + x - 1) / 2, 0), xytext=(0, -34), textcoords="offset points",
                    ha="center", va="top", fontsize=9, fontweight="bold", annotation_clip=False)
        if g.startswith("g++") and empty:
            ax.annotate(f"(the ratio is not meaningful:\nthe empty TU takes {main_t[empty]:.2f} s)",
                        ((start + x - 1) / 2, 0), xytext=(0, -48), textcoords="offset points",
                        ha="center", va="top", fontsize=7, color="#555555", annotation_clip=False)
        if g.startswith("nvcc") and empty:
            t = NVCC_TARGET * main_t[empty]
            ax.hlines(t, start - 0.45, x - 0.55, colors="#d62728", linestyles="--", linewidth=1,
                      label=f"target for nvcc: {NVCC_TARGET} × empty TU = {t:.2f} s")
        x += 0.6
    ax.set_xticks(ticks, labels, fontsize=7.5)
    ax.set_ylabel("compile time (s, best of REPS)")
    ax.set_ylim(0, top * 1.35)
    ax.set_title("Compile time of one translation unit: empty vs the Gaussian sum and its gradient",
                 fontsize=9.5)
    ax.legend(fontsize=7.5, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    finish(fig, path, "command: bash bench/compile/run.sh", out, "compile_time.png")

    def curve_of(times):
        return sorted((int(number(path, by_key[k], "order")), t) for k, t in times.items()
                      if by_key[k]["order"].strip())
    curve = curve_of(main_t)
    if not curve:
        raise InputError(f"{path}: no rows with a derivative order")
    fig, ax = plt.subplots(figsize=SIZE)
    xs, ys = zip(*curve)
    ax.plot(xs, ys, "o-", color="#1f77b4", label=main_name)
    for i, (n, v) in enumerate(curve):
        text = f"{v:.2f} s" + (f"\n×{v / curve[i - 1][1]:.2f}" if i else "")
        ax.annotate(text, (n, v), xytext=(6, -4), textcoords="offset points", ha="left",
                    va="top", fontsize=8, color="#1f77b4")
    if main_t is cpu:
        wx, wy = zip(*curve_of(wall))
        ax.plot(wx, wy, "s:", color="#555555", markersize=4, linewidth=1, label="wall time")
        for n, v in zip(wx, wy):
            ax.annotate(f"{v:.2f} s", (n, v), xytext=(-6, 4), textcoords="offset points",
                        ha="right", va="bottom", fontsize=7.5, color="#555555")
        ys = ys + wy
    empty = "gxx_empty"
    if empty in main_t:
        ax.axhline(main_t[empty], color="#888888", linewidth=1, linestyle="-.",
                   label=f"empty TU ({main_name}: {main_t[empty]:.2f} s)")
    ax.axhline(ORDER4_TARGET, color="#d62728", linestyle="--", linewidth=1,
               label=f"target: order 4 in < {ORDER4_TARGET:.0f} s")
    ax.set_xticks(range(1, max(xs) + 1))
    ax.set_xlim(0.5, max(xs) + 0.5)
    ax.set_ylim(0, max(max(ys), ORDER4_TARGET) * 1.15)
    ax.set_xlabel("derivative order n (grad of grad ... w.r.t. x)")
    ax.set_ylabel("compile time (s, best of REPS)")
    ax.set_title("Compile time vs derivative order: Gaussian sum + its n-th derivative, "
                 "g++ -O3, Kokkos backend", fontsize=9.5)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    finish(fig, path, "command: bash bench/compile/run.sh", out, "compile_derivatives.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img"), help="output folder")
    ap.add_argument("csv", nargs="*", help="input CSV files (default: bench/results/*.csv)")
    args = ap.parse_args()
    global COMMAND
    COMMAND = " ".join(["python3 bench/plot.py", "--out", shown_path(args.out)]
                       + [shown_path(p) for p in args.csv])
    paths = args.csv
    if not paths:
        d = os.path.join(HERE, "results")
        paths = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".csv")) \
            if os.path.isdir(d) else []
        if not paths:
            sys.exit(f"bench/plot.py: no CSV files in {d}")
    os.makedirs(args.out, exist_ok=True)
    try:
        for p in paths:
            name = os.path.basename(p)
            if name.startswith("cpu"):
                plot_cpu(p, args.out)
            elif name.startswith("compile"):
                plot_compile(p, args.out)
            elif any(name.startswith(k) for k in ("sass", "half", "wide", "knn")):
                continue  # bench/sass/run.sh's, bench/run_half.sh's, bench/run_knn.sh's: tables in docs/performance.md, no plot
            else:
                raise InputError(f"{p}: unknown kind of file (expected cpu*.csv or compile*.csv)")
    except InputError as e:
        print(f"bench/plot.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
