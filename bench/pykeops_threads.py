#!/usr/bin/env python3
"""pykeops 2.3 on the CPU with OMP_NUM_THREADS threads, on the data and shapes
of bench_threads (--dump DIR): the 3-D Gaussian sum, float32, g = 2,

    square:   M = N = 1e5        few:  M = 16, N = 1e7

One warm-up call (it JIT-compiles the formula on the first shape), then the best
of --reps calls. Prints CSV lines shape,M,N,pykeops,threads,seconds,pairs_per_s
and the largest relative difference from kops's output.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    import pykeops
    from pykeops.numpy import Genred
    pykeops.set_build_folder(tempfile.mkdtemp(prefix="keops-build-"))
    fn = Genred("Exp(-G*SqDist(X,Y))*B", ["G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)"], reduction_op="Sum", axis=1)
    g = np.array([2.0], dtype=np.float32)
    threads = os.environ.get("OMP_NUM_THREADS", "?")
    status = 0
    for name, m, n in (("square", 100000, 100000), ("few", 16, 10000000)):
        if args.only and args.only != name:
            continue
        pre = os.path.join(args.data, name + "_")
        x = np.fromfile(pre + "x.f32", dtype=np.float32).reshape(m, 3)
        y = np.fromfile(pre + "y.f32", dtype=np.float32).reshape(n, 3)
        b = np.fromfile(pre + "b.f32", dtype=np.float32).reshape(n, 1)
        ref = np.fromfile(pre + "out_kops.f32", dtype=np.float32).astype(np.float64)
        out = fn(g, x, y, b, backend="CPU")  # warm-up (JIT at the first shape)
        best = 1e300
        for _ in range(args.reps):
            t0 = time.perf_counter()
            out = fn(g, x, y, b, backend="CPU")
            best = min(best, time.perf_counter() - t0)
        diff = float(np.max(np.abs(np.asarray(out, dtype=np.float64).reshape(-1) - ref) / np.abs(ref)))
        print(f"{name},{m},{n},pykeops,{threads},{best:.6f},{m * n / best:.4g}")
        print(f"# {name}: max relative difference pykeops vs kops {diff:.2e}", file=sys.stderr)
        if not diff < 1e-4:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
