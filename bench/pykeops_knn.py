#!/usr/bin/env python3
"""pykeops 2.3's ArgKMin (K = 10) on the CPU, on bench_knn's data (x_D.f32,
y_D.f32 and kops's argkmin_D.i64 in --data): the 10 nearest y_j of each x_i,

  Genred("SqDist(X,Y)", ["X=Vi(D)", "Y=Vj(D)"], reduction_op="ArgKMin", opt_arg=10, axis=1)

Its first call JIT-compiles the formula and is not timed (the build folder,
--build-folder, keeps the compiled formula for later runs). Prints CSV rows
like bench_knn's: impl,D,M,N,K,seconds,pairs_per_s,mismatch (the indices that
differ from kops's). Run it on one core: OMP_NUM_THREADS=1 taskset -c C
(bench/run_knn.sh does).
"""
import argparse
import time

import numpy as np

K = 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--m", type=int, default=2000)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--dims", default="3,784")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--build-folder", required=True)
    a = ap.parse_args()

    import pykeops
    from pykeops.numpy import Genred

    pykeops.set_build_folder(a.build_folder)
    M, N = a.m, a.n
    for D in (int(d) for d in a.dims.split(",")):
        x = np.fromfile(f"{a.data}/x_{D}.f32", dtype=np.float32).reshape(M, D)
        y = np.fromfile(f"{a.data}/y_{D}.f32", dtype=np.float32).reshape(N, D)
        ref = np.fromfile(f"{a.data}/argkmin_{D}.i64", dtype=np.int64).reshape(M, K)
        fn = Genred("SqDist(X,Y)", [f"X=Vi({D})", f"Y=Vj({D})"], reduction_op="ArgKMin", opt_arg=K, axis=1)
        fn(x[:16], y[:K], backend="CPU")  # JIT compile
        best, out = 1e300, None
        for _ in range(a.reps):
            t0 = time.perf_counter()
            out = fn(x, y, backend="CPU")
            best = min(best, time.perf_counter() - t0)
        mismatch = int((out.astype(np.int64).reshape(M, K) != ref).sum())
        print(f"pykeops_argkmin,{D},{M},{N},{K},{best:.4f},{M * N / best:.4g},{mismatch}", flush=True)


if __name__ == "__main__":
    main()
