#!/usr/bin/env python3
"""pykeops 2.3 block-sparse ("ranges") on the CPU, on the data and structure of
`bench_block_sparse --dump DIR`: the 3-D Gaussian sum, float32,

    a_i = sum_j exp(-g |x_i - y_j|^2) b_j  over the kept (i, j) pairs only,

with ranges = (ranges_i, slices_i, redranges_j, ranges_j, slices_j, redranges_i)
built from kops' structure and its transpose (pykeops takes all six). One
warm-up call (it JIT-compiles the formula), then the best of --reps calls.
Prints the CSV line pykeops,N,seconds,pairs,kept_fraction and, on stderr, the
largest relative difference from kops' block-sparse output (exit 1 above 1e-4).
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
    args = ap.parse_args()
    import pykeops
    from pykeops.numpy import Genred
    pykeops.set_build_folder(tempfile.mkdtemp(prefix="keops-build-"))
    d = args.data
    x = np.fromfile(os.path.join(d, "x.f32"), dtype=np.float32).reshape(-1, 3)
    b = np.fromfile(os.path.join(d, "b.f32"), dtype=np.float32).reshape(-1, 1)
    g = np.fromfile(os.path.join(d, "g.f32"), dtype=np.float32)
    ref = np.fromfile(os.path.join(d, "out_kops.f32"), dtype=np.float32).astype(np.float64)

    def pairs(name):
        return np.fromfile(os.path.join(d, name), dtype=np.int64).reshape(-1, 2)

    def ends(name):
        return np.fromfile(os.path.join(d, name), dtype=np.int64)

    ranges = (pairs("i_ranges.i64"), ends("i_slices.i64"), pairs("i_red.i64"),
              pairs("j_ranges.i64"), ends("j_slices.i64"), pairs("j_red.i64"))
    n = x.shape[0]
    kept = sum((r[1] - r[0]) * sum(int(q[1] - q[0]) for q in ranges[2][(ranges[1][k - 1] if k else 0):ranges[1][k]])
               for k, r in enumerate(ranges[0]))
    fn = Genred("Exp(-G*SqDist(X,Y))*B", ["G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)"], reduction_op="Sum", axis=1)
    t0 = time.perf_counter()
    out = fn(g, x, x, b, backend="CPU", ranges=ranges)  # warm-up: JIT compilation
    first = time.perf_counter() - t0
    best = 1e300
    for _ in range(args.reps):
        t0 = time.perf_counter()
        out = fn(g, x, x, b, backend="CPU", ranges=ranges)
        best = min(best, time.perf_counter() - t0)
    out = np.asarray(out, dtype=np.float64).reshape(-1)
    diff = float(np.max(np.abs(out - ref) / np.maximum(np.abs(ref), 1e-30)))
    print(f"pykeops,{n},{best:.6f},{kept:.0f},{kept / (n * n):.6f}")
    print(f"# pykeops: first call {first:.2f} s (compilation included); max relative difference vs kops {diff:.2e}",
          file=sys.stderr)
    return 0 if diff < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
