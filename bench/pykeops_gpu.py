#!/usr/bin/env python3
"""pykeops 2.3 on the GPU, on the data bench_gpu wrote (its --dump folder).

    sum   a_i  = sum_j exp(-g |x_i - y_j|^2) b_j                        Genred(..., axis=1)
    grad  gx_i = sum_j -2 g exp(-g |x_i - y_j|^2) b_j (x_i - y_j)        (written by hand, as in bench_gpu)

float32, x:(N,3) y:(N,3) b:(N,1), for each size, each formula, KeOps' fast math
on and off (Genred's use_fast_math, when this pykeops has it; KeOps' default is
on) and backend GPU_1D, GPU_2D and auto. The first call of each Genred object
and backend JIT-compiles it (the KeOps build folder is a fresh empty directory
by default): it is timed and reported apart; steady state is the best of
--reps later calls. Results are compared with kops' (n<N>_out_kops_*.f32) and
with a double-precision loop on 256 sampled rows (error relative to
sum_j |term|, as bench_gpu).

Interface: pykeops.torch on CUDA tensors when torch with CUDA is importable
(device-resident data, like kops::cuda::eval), else pykeops.numpy (host
arrays: every call copies in and out, like kops::cuda::eval_host). The CSV
note says which.

    pykeops_gpu.py --data DIR --sizes 1e3,1e4 [--reps 5] [--csv FILE] [--build-folder DIR]
                   [--interface auto|torch|numpy]
    pykeops_gpu.py --table FILE.csv      markdown table of the bench_gpu + pykeops rows
"""
import argparse
import csv as csvmod
import inspect
import os
import sys
import tempfile
import time

FORMULAS = {
    "sum": ("Exp(-G*SqDist(X,Y))*B", 1),
    "grad": ("IntCst(-2)*G*Exp(-G*SqDist(X,Y))*B*(X-Y)", 3),
}
ALIASES = ["G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)"]
HEADER = "impl,kernel,policy,scheme,n,m,reps,first_s,best_s,median_s,gpu_best_s,pairs_per_s,max_err,note\n"


def reference(x, y, b, g, kernel, rows):
    """Double-precision value and sum |terms| on the sampled rows."""
    import numpy as np

    xd, yd, bd = x.astype(np.float64), y.astype(np.float64), b.astype(np.float64)[:, 0]
    val, mag = [], []
    for i in rows:  # one row at a time: (N, 3) temporaries only
        diff = xd[i][None, :] - yd
        e = np.exp(-g * (diff ** 2).sum(1)) * bd
        t = e[:, None] if kernel == "sum" else (-2 * g) * e[:, None] * diff
        val.append(t.sum(0))
        mag.append(np.abs(t).sum(0))
    return np.array(val), np.array(mag)


def run(args):
    import numpy as np
    import pykeops
    import keopscore

    want = args.interface
    torch = None
    if want in ("auto", "torch"):
        try:
            import torch as _torch

            if _torch.cuda.is_available():
                torch = _torch
        except ImportError:
            pass
        if want == "torch" and torch is None:
            print("pykeops_gpu: --interface torch but torch with CUDA is not available", file=sys.stderr)
            return 1
    if torch is not None:
        from pykeops.torch import Genred

        iface = "torch"
    else:
        from pykeops.numpy import Genred

        iface = "numpy"

    build = args.build_folder or tempfile.mkdtemp(prefix="keops-build-")
    pykeops.set_build_folder(build)
    fast_options = [True, False] if "use_fast_math" in inspect.signature(Genred.__init__).parameters else [None]
    print(f"pykeops {pykeops.__version__} / keopscore {keopscore.__version__}, interface {iface}, "
          f"build folder {build} (fresh: first calls compile)")
    if fast_options == [None]:
        print("  this Genred has no use_fast_math option: KeOps' default (fast math) only")

    params = dict(line.split() for line in open(os.path.join(args.data, "params.txt")) if line.strip())
    g = float(params["g"])

    out_csv = None
    if args.csv:
        fresh = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
        out_csv = open(args.csv, "a")
        if fresh:
            out_csv.write(HEADER)

    def sync():
        if torch is not None:
            torch.cuda.synchronize()

    status = 0
    compiled = set()
    for n in [int(float(s)) for s in args.sizes.split(",") if s]:
        pre = os.path.join(args.data, f"n{n}_")
        x = np.fromfile(pre + "x.f32", dtype=np.float32).reshape(n, 3)
        y = np.fromfile(pre + "y.f32", dtype=np.float32).reshape(n, 3)
        b = np.fromfile(pre + "b.f32", dtype=np.float32).reshape(n, 1)
        gv = np.array([g], dtype=np.float32)
        if torch is not None:
            data = [torch.from_numpy(a).cuda() for a in (gv, x, y, b)]
        else:
            data = [gv, x, y, b]
        samples = min(n, 256)
        rows = np.array([s * n // samples for s in range(samples)])
        for kernel, (formula, dim) in FORMULAS.items():
            kops_out = np.fromfile(pre + f"out_kops_{kernel}.f32", dtype=np.float32).reshape(n, dim)
            ref, mag = reference(x, y, b, g, kernel, rows)
            for fast in fast_options:
                opts = {} if fast is None else {"use_fast_math": fast}
                policy = "keops-default" if fast is None else ("fast" if fast else "accurate")
                fn = Genred(formula, ALIASES, reduction_op="Sum", axis=1, **opts)
                for backend in ("GPU_1D", "GPU_2D", "auto"):
                    key = (kernel, policy, backend)
                    t0 = time.perf_counter()
                    out = fn(*data, backend=backend)
                    sync()
                    first = time.perf_counter() - t0
                    jit = key not in compiled
                    compiled.add(key)
                    times = []
                    spent = 0.0
                    while len(times) < args.reps and (not times or spent < args.max_seconds):
                        t0 = time.perf_counter()
                        out = fn(*data, backend=backend)
                        sync()
                        dt = time.perf_counter() - t0
                        times.append(dt)
                        spent += dt
                    times.sort()
                    best, median = times[0], times[len(times) // 2]
                    res = out.cpu().numpy() if torch is not None else np.asarray(out)
                    res = res.reshape(n, dim).astype(np.float64)
                    err64 = float(np.max(np.abs(res[rows] - ref) / (mag + 1e-30)))
                    errk = float(np.max(np.abs(res - kops_out) / (np.abs(kops_out).max() + 1e-30)))
                    note = (f"{iface}; first call {'JIT-compiles' if jit else 'already compiled'}; "
                            f"max diff vs kops {errk:.1e} (relative to the largest output)")
                    scheme = "auto" if backend == "auto" else backend
                    print(f"  pykeops-{iface:5s} {kernel:4s} {policy:13s} {scheme:6s} N=M={n:<8d} first {first:9.3f} s "
                          f"best {best:9.4f} s median {median:9.4f} s {n * n / best:9.3e} pairs/s err {err64:.1e} ({note})")
                    sys.stdout.flush()
                    if not err64 < 1e-4:
                        print(f"  ERROR: pykeops {kernel} {policy} {backend} disagrees with the double reference")
                        status = 1
                    if out_csv:
                        out_csv.write(f"pykeops-{iface},{kernel},{policy},{scheme},{n},{n},{len(times)},{first:.6g},"
                                      f"{best:.6g},{median:.6g},,{n * n / best:.6g},{err64:.3g},{note}\n")
                        out_csv.flush()
    return status


def fmt(s):
    return f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.3f} s"


def table(path):
    rows = list(csvmod.DictReader(open(path)))
    if not rows:
        print("(no results)")
        return 0
    # pykeops reference for the ratios: its auto backend with KeOps' default (fast) math.
    ref = {}
    for r in rows:
        if r["impl"].startswith("pykeops") and r["scheme"] == "auto" and r["policy"] in ("fast", "keops-default"):
            ref[(r["kernel"], int(r["n"]))] = float(r["best_s"])
    order = {"kops": 0, "kops-host": 1}
    out = ["| kernel | N=M | impl | policy | scheme | first call | steady (best) | first / steady | pairs/s "
           "| pykeops auto fast / this | max err | note |",
           "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    key = lambda r: (r["kernel"] != "sum", int(r["n"]), order.get(r["impl"], 2), r["impl"], r["policy"], r["scheme"])
    for r in sorted(rows, key=key):
        best, first = float(r["best_s"]), float(r["first_s"])
        p = ref.get((r["kernel"], int(r["n"])))
        ratio = f"{p / best:.2f}" if p else "n/a"
        out.append(f"| {r['kernel']} | {r['n']} | {r['impl']} | {r['policy']} | {r['scheme']} | {fmt(first)} | "
                   f"{fmt(best)} | {first / best:.1f} | {float(r['pairs_per_s']):.3g} | {ratio} | "
                   f"{float(r['max_err']):.1e} | {r['note'].replace('|', '/')} |")
    print("\n".join(out))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="directory written by bench_gpu --dump")
    ap.add_argument("--sizes", default="1000,10000,100000,1000000", help="N = M values, comma separated")
    ap.add_argument("--reps", type=int, default=5, help="steady-state repetitions (best kept)")
    ap.add_argument("--max-seconds", type=float, default=10.0, help="stop repeating once this long was spent")
    ap.add_argument("--csv", default="", help="append one line per (kernel, policy, backend, size)")
    ap.add_argument("--build-folder", default="", help="KeOps build folder (default: fresh temporary: cold JIT)")
    ap.add_argument("--interface", default="auto", choices=["auto", "torch", "numpy"])
    ap.add_argument("--table", default="", help="print the markdown table of this CSV and exit")
    args = ap.parse_args()
    if args.table:
        return table(args.table)
    if not args.data:
        ap.error("--data is required (or --table)")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
