#!/usr/bin/env python3
"""The peers of bench_wide on its data (x.f32, y.f32, b.f32, out_kops.f32 in --data):

  blas     the dense route a numpy user writes: |x|^2 + |y|^2 - 2 X Y^T (one
           SGEMM), exp, a matrix-vector product; O(M N) memory (run it with a
           numpy whose BLAS is OpenBLAS, e.g. the PyPI wheel: Debian's numpy
           uses the reference BLAS)
  pykeops  pykeops 2.3's Genred on the CPU (if importable; its first call
           JIT-compiles and is not timed)

Prints CSV rows like bench_wide's: impl,D,M,N,seconds,pairs_per_s,max_rel_err
(the error against kops's output, relative to max |a|). Run it on one core:
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 taskset -c 0 (run_wide.sh does).
"""
import argparse
import time

import numpy as np


def best_of(reps, f):
    best, r = 1e300, None
    for _ in range(reps):
        t0 = time.perf_counter()
        r = f()
        best = min(best, time.perf_counter() - t0)
    return best, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--m", type=int, default=10000)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--d", type=int, default=784)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", choices=["blas", "pykeops"], help="run one peer (each may need its own venv)")
    a = ap.parse_args()
    M, N, D = a.m, a.n, a.d
    x = np.fromfile(f"{a.data}/x.f32", dtype=np.float32).reshape(M, D)
    y = np.fromfile(f"{a.data}/y.f32", dtype=np.float32).reshape(N, D)
    b = np.fromfile(f"{a.data}/b.f32", dtype=np.float32).reshape(N, 1)
    ref = np.fromfile(f"{a.data}/out_kops.f32", dtype=np.float32)
    g = np.float32(1.0 / D)

    def blas():
        d2 = (x * x).sum(1)[:, None] + (y * y).sum(1)[None, :] - 2 * (x @ y.T)
        return (np.exp(-g * d2) @ b).ravel()

    def row(name, secs, out):
        err = np.abs(out.astype(np.float64) - ref).max() / np.abs(ref).max()
        print(f"{name},{D},{M},{N},{secs:.4f},{M * N / secs:.4g},{err:.2e}", flush=True)

    if a.only != "pykeops":
        secs, out = best_of(a.reps, blas)
        row("blas", secs, out)
    if a.only == "blas":
        return
    try:
        from pykeops.numpy import Genred
    except Exception as e:  # noqa: BLE001
        print(f"# pykeops not available: {e}")
        return
    f = Genred("Exp(-G*SqDist(X,Y))*B", [f"X=Vi({D})", f"Y=Vj({D})", "B=Vj(1)", "G=Pm(1)"],
               reduction_op="Sum", axis=1)
    gg = np.array([g], dtype=np.float32)
    f(x, y, b, gg, backend="CPU")  # JIT compile
    secs, out = best_of(a.reps, lambda: f(x, y, b, gg, backend="CPU"))
    row("pykeops", secs, out.ravel())


if __name__ == "__main__":
    main()
