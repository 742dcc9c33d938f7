#!/usr/bin/env python3
"""A stand-in for the CUDA driver library (libcuda.so.1) on a machine without a
GPU: one sm_90 device that answers its queries, and every other entry point of
the driver (the symbols of the toolkit's stub, lib64/stubs/libcuda.so) returning
CUDA_ERROR_NOT_SUPPORTED (801), named on stderr the first time it is called.

It exists for one check (tools/gpu_check.sh --prepare, through bench/peer/
peers.py --jit-check): that pykeops 2.3's first GPU call, with the environment
peers.py gives it on the GPU machine, gets through KeOps's JIT here -- its two
host modules compiled with g++, the formula's CUDA source generated and
compiled to a cubin by nvrtc -- before the GPU slot, whose minutes are few.
Loading that cubin (cuModuleLoadDataEx) is where such a run must stop.

usage: fake_libcuda.py OUTDIR [--cuda /usr/local/cuda] [--cc gcc]
writes OUTDIR/libcuda.so.1 and OUTDIR/libcuda.so; put OUTDIR first on
LD_LIBRARY_PATH. FAKE_LIBCUDA_TRACE=1 in the environment logs each call.
"""
import argparse
import os
import subprocess
import sys

# CUresult codes and device attributes (cuda.h), the ones answered below.
DEVICE = r"""
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
enum { OK = 0, NOT_INITIALIZED = 3, INVALID_DEVICE = 101, NOT_SUPPORTED = 801 };
static int initialized;
static CUcontext current;
static char primary[64];
#define TRACE(...) do { if (getenv("FAKE_LIBCUDA_TRACE")) fprintf(stderr, "[fake libcuda] " __VA_ARGS__); } while (0)

CUresult cuInit(unsigned flags) { TRACE("cuInit(%u)\n", flags); initialized = 1; return OK; }
CUresult cuDriverGetVersion(int* v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int* n) { if (!initialized) return NOT_INITIALIZED; *n = 1; return OK; }
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (!initialized) return NOT_INITIALIZED;
  if (ordinal != 0) return INVALID_DEVICE;
  *d = 0;
  return OK;
}
/* An H100-like sm_90 device; attributes not listed answer 1. */
CUresult cuDeviceGetAttribute(int* v, int attribute, CUdevice d) {
  (void)d;
  if (!initialized) return NOT_INITIALIZED;
  switch (attribute) {
    case 1: case 2: case 3: *v = 1024; break;          /* max threads per block, block dims x, y */
    case 4: *v = 64; break;                             /* block dim z */
    case 5: *v = 2147483647; break;                     /* grid dim x */
    case 6: case 7: *v = 65535; break;                  /* grid dims y, z */
    case 8: *v = 49152; break;                          /* shared memory per block */
    case 9: *v = 65536; break;                          /* constant memory */
    case 10: *v = 32; break;                            /* warp size */
    case 12: *v = 65536; break;                         /* registers per block */
    case 13: *v = 1980000; break;                       /* clock, kHz */
    case 16: *v = 132; break;                           /* multiprocessors */
    case 39: *v = 2048; break;                          /* threads per multiprocessor */
    case 75: *v = 9; break;                             /* compute capability major */
    case 76: *v = 0; break;                             /* minor */
    case 81: *v = 233472; break;                        /* shared memory per multiprocessor */
    case 82: *v = 65536; break;                         /* registers per multiprocessor */
    case 97: *v = 232448; break;                        /* shared memory per block, opt-in */
    default: *v = 1; break;
  }
  TRACE("cuDeviceGetAttribute(%d) = %d\n", attribute, *v);
  return OK;
}
CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice d) { (void)d; *major = 9; *minor = 0; return OK; }
CUresult cuDeviceGetName(char* name, int len, CUdevice d) { (void)d; strncpy(name, "kops fake sm_90 device", (size_t)len); return OK; }
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) { (void)d; *bytes = (size_t)80 << 30; return OK; }
CUresult cuDeviceTotalMem(size_t* bytes, CUdevice d) { return cuDeviceTotalMem_v2(bytes, d); }
CUresult cuDeviceGetUuid(char* uuid, CUdevice d) { (void)d; memset(uuid, 0x6b, 16); return OK; }
CUresult cuDeviceGetUuid_v2(char* uuid, CUdevice d) { return cuDeviceGetUuid(uuid, d); }
static const char* error_name(int e) {
  switch (e) {
    case OK: return "CUDA_SUCCESS";
    case NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
    case INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
    case NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
    default: return "CUDA_ERROR_UNKNOWN";
  }
}
CUresult cuGetErrorName(int e, const char** s) { *s = error_name(e); return OK; }
CUresult cuGetErrorString(int e, const char** s) { *s = error_name(e); return OK; }
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) { (void)d; *c = primary; return OK; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return OK; }
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return OK; }
CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned* flags, int* active) { (void)d; *flags = 0; *active = 1; return OK; }
CUresult cuCtxGetCurrent(CUcontext* c) { *c = current; return OK; }
CUresult cuCtxSetCurrent(CUcontext c) { current = c; return OK; }
CUresult cuCtxPushCurrent_v2(CUcontext c) { current = c; return OK; }
CUresult cuCtxPushCurrent(CUcontext c) { current = c; return OK; }
CUresult cuCtxPopCurrent_v2(CUcontext* c) { if (c) *c = current; return OK; }
CUresult cuCtxPopCurrent(CUcontext* c) { return cuCtxPopCurrent_v2(c); }
CUresult cuCtxGetDevice(CUdevice* d) { *d = 0; return OK; }
CUresult cuCtxSynchronize(void) { return OK; }
"""

ANSWERED = {
    "cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetAttribute",
    "cuDeviceComputeCapability", "cuDeviceGetName", "cuDeviceTotalMem_v2", "cuDeviceTotalMem", "cuDeviceGetUuid",
    "cuDeviceGetUuid_v2", "cuGetErrorName", "cuGetErrorString", "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxGetState", "cuCtxGetCurrent",
    "cuCtxSetCurrent", "cuCtxPushCurrent_v2", "cuCtxPushCurrent", "cuCtxPopCurrent_v2", "cuCtxPopCurrent",
    "cuCtxGetDevice", "cuCtxSynchronize",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--cuda", default=os.environ.get("CUDA_HOME") or "/usr/local/cuda")
    ap.add_argument("--cc", default=os.environ.get("CC") or "gcc")
    a = ap.parse_args()
    stub = os.path.join(a.cuda, "lib64", "stubs", "libcuda.so")
    if not os.path.exists(stub):
        print(f"fake_libcuda.py: no {stub} (the CUDA toolkit's driver stub)", file=sys.stderr)
        return 1
    nm = subprocess.run(["nm", "-D", "--defined-only", stub], capture_output=True, text=True, check=True).stdout
    symbols = sorted({f[2] for f in (line.split() for line in nm.splitlines()) if len(f) == 3 and f[1] == "T"})
    refused = [s for s in symbols if s not in ANSWERED]
    src = [DEVICE, "#define REFUSE(f) int f(void) { static int said; if (!said) { said = 1; "
                   "fprintf(stderr, \"[fake libcuda] %s: not supported here (801)\\n\", #f); } return NOT_SUPPORTED; }"]
    src += [f"REFUSE({s})" for s in refused]
    os.makedirs(a.outdir, exist_ok=True)
    c = os.path.join(a.outdir, "fake_libcuda.c")
    with open(c, "w") as f:
        f.write("\n".join(src) + "\n")
    lib = os.path.join(a.outdir, "libcuda.so.1")
    subprocess.run([a.cc, "-shared", "-fPIC", "-O1", "-w", "-Wl,-soname,libcuda.so.1", "-o", lib, c], check=True)
    link = os.path.join(a.outdir, "libcuda.so")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink("libcuda.so.1", link)
    print(f"fake_libcuda.py: {lib}: {len(symbols)} driver symbols, {len(symbols) - len(refused)} answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
