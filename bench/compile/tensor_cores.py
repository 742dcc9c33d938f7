#!/usr/bin/env python3
"""Compile time of the tensor-core kernel, side by side in one run:
bench/sass's gauss.cu (D = 64, 256) and argkmin.cu (D = 128), float, precision
fast, each compiled with nvcc -cubin -arch=sm_90 -O3 with the tensor cores off
(bench/sass's default: the CUDA-core kernel alone) and allowed (-DSASS_TC: the
tensor-core kernel beside its CUDA-core fallback). Best of REPS (default 3)
CPU seconds (user + sys of nvcc and its subprocesses) each, alternating.

    python3 bench/compile/tensor_cores.py        (from the repository root)
"""
import os
import resource
import subprocess
import sys

REPS = int(os.environ.get("REPS", "3"))
NVCC = os.environ.get("NVCC", "nvcc")
CASES = [("gauss.cu", 64), ("gauss.cu", 256), ("argkmin.cu", 128)]


def cpu_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main():
    out = "build/compile_tc.cubin"
    os.makedirs("build", exist_ok=True)
    for src, d in CASES:
        best = {False: float("inf"), True: float("inf")}
        for _ in range(REPS):
            for tc in (False, True):
                cmd = [NVCC, "-cubin", "-arch=sm_90", "-O3", "-std=c++20", "--expt-relaxed-constexpr", "-Iinclude",
                       "-DSASS_PREC=fast", f"-DSASS_D={d}", "-DSASS_T=float", "-o", out, f"bench/sass/{src}"]
                if tc:
                    cmd.insert(-3, "-DSASS_TC")
                best[tc] = min(best[tc], cpu_seconds(cmd))
        print(f"{src} D={d}: off {best[False]:.2f} s, tensor cores {best[True]:.2f} s "
              f"({best[True] / best[False]:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
