#!/usr/bin/env python3
"""pykeops 2.3 on the CPU, same 3-D Gaussian sum and same data as bench_cpu.

    a_i = sum_j exp(-g |x_i - y_j|^2) b_j      float32, x:(M,3) y:(N,3) b:(N,1)

Reads the raw float32 inputs that `bench_cpu --dump DIR` wrote
(DIR/n<N>_{x,y,b}.f32, DIR/params.txt) and compares with its outputs
(out_kops.f32 if present, else out_hand.f32).

Run it with one thread: OMP_NUM_THREADS=1 taskset -c 0 (run_cpu.sh does);
pykeops' CPU kernels are OpenMP loops compiled by keopscore with g++ -O3 -fopenmp.

The first call of the formula JIT-compiles it. By default the KeOps build folder
is a fresh empty directory, so the first call (at the first size) is a cold
start (compile + load + one evaluation); steady state is the best of up to
--reps later calls (at later sizes the first call is already warm and counts as
one of them), stopping early once --max-seconds are spent.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="directory written by bench_cpu --dump")
    ap.add_argument("--sizes", default="10000,100000", help="N = M values, comma separated")
    ap.add_argument("--reps", type=int, default=5, help="steady-state repetitions (best kept)")
    ap.add_argument("--max-seconds", type=float, default=60.0,
                    help="stop repeating a size once its steady-state calls took this long (>= 1 call; "
                         "at N = M = 1e5 one call takes minutes)")
    ap.add_argument("--csv", default="", help="append one line per size to this CSV file")
    ap.add_argument("--build-folder", default="",
                    help="KeOps build folder (default: a fresh temporary one: cold first call)")
    args = ap.parse_args()

    omp = os.environ.get("OMP_NUM_THREADS")
    if omp != "1":
        print(f"pykeops_cpu: warning: OMP_NUM_THREADS={omp!r}, not 1: not a one-thread measurement",
              file=sys.stderr)

    import pykeops
    import keopscore
    from pykeops.numpy import Genred

    build = args.build_folder or tempfile.mkdtemp(prefix="keops-build-")
    pykeops.set_build_folder(build)

    params = dict(line.split() for line in open(os.path.join(args.data, "params.txt")) if line.strip())
    g = np.array([float(params["g"])], dtype=np.float32)

    formula = "Exp(-G*SqDist(X,Y))*B"
    aliases = ["G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)"]
    fn = Genred(formula, aliases, reduction_op="Sum", axis=1)
    print(f"pykeops {pykeops.__version__} / keopscore {keopscore.__version__}, backend CPU, float32, "
          f"OMP_NUM_THREADS={omp}, build folder {build}")
    print(f"  Genred('{formula}', {aliases}, reduction_op='Sum', axis=1)")

    csv = None
    if args.csv:
        fresh = not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0
        csv = open(args.csv, "a")
        if fresh:
            csv.write("impl,n,m,reps,best_s,median_s,cpu_best_s,pairs_per_s,max_rel_err_f64,note\n")

    status = 0
    first = True
    for n in [int(float(s)) for s in args.sizes.split(",") if s]:
        pre = os.path.join(args.data, f"n{n}_")
        x = np.fromfile(pre + "x.f32", dtype=np.float32).reshape(n, 3)
        y = np.fromfile(pre + "y.f32", dtype=np.float32).reshape(n, 3)
        b = np.fromfile(pre + "b.f32", dtype=np.float32).reshape(n, 1)
        ref_name = "kops" if os.path.exists(pre + "out_kops.f32") else "hand"
        ref = np.fromfile(pre + f"out_{ref_name}.f32", dtype=np.float32)

        c0, t0 = time.thread_time(), time.perf_counter()
        out = fn(g, x, y, b, backend="CPU")
        t_first, c_first = time.perf_counter() - t0, time.thread_time() - c0
        if first:
            kind = "cold: includes JIT compile"
            note = f"cold_first_call_s={t_first:.4g}"
            times, cpus = [], []
        else:  # formula already compiled and loaded: a steady-state call like the others
            kind = "formula already compiled: counted as a steady-state sample"
            note = "formula already compiled"
            times, cpus = [t_first], [c_first]
        first = False

        spent = sum(times)
        while len(times) < args.reps and (not times or spent < args.max_seconds):
            c0, t0 = time.thread_time(), time.perf_counter()
            out = fn(g, x, y, b, backend="CPU")
            dt = time.perf_counter() - t0
            times.append(dt)
            cpus.append(time.thread_time() - c0)
            spent += dt
        times.sort()
        best, median = times[0], times[len(times) // 2]
        out = np.asarray(out, dtype=np.float32).reshape(-1)
        err = float(np.max(np.abs(out.astype(np.float64) - ref) / np.abs(ref.astype(np.float64))))

        # double-precision reference on the same 256 sampled rows as bench_cpu
        samples = min(n, 256)
        rows = np.array([s * n // samples for s in range(samples)])
        xd, yd, bd = x.astype(np.float64), y.astype(np.float64), b.astype(np.float64)[:, 0]
        d2 = ((xd[rows, None, :] - yd[None, :, :]) ** 2).sum(-1)
        exact = (np.exp(-float(g[0]) * d2) * bd[None, :]).sum(1)
        err64 = float(np.max(np.abs(out[rows] - exact) / np.abs(exact)))

        print(f"  pykeops-cpu   N=M={n:<7d} first call {t_first:9.3f} s ({kind})")
        print(f"  pykeops-cpu   N=M={n:<7d} best {best:9.4f} s  median {median:9.4f} s  cpu {min(cpus):9.4f} s  "
              f"{n * n / best:9.3e} pairs/s  ({len(times)} reps)  max rel err vs f64 {err64:.1e}, "
              f"vs {ref_name} {err:.1e}")
        if not err < 1e-4:
            print(f"  ERROR: pykeops and {ref_name} disagree")
            status = 1
        if csv:
            csv.write(f"pykeops-cpu,{n},{n},{len(times)},{best:.6g},{median:.6g},{min(cpus):.6g},{n * n / best:.6g},"
                      f"{err64:.3g},{note}\n")
            csv.flush()
        sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
