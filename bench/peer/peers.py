#!/usr/bin/env python3
"""The scoreboard's other columns, on the GPU machine (issue 32 part 2): what users
pick instead of kops, and what the hardware allows, timed in the same command as
kops_peer and written as rows of the same CSV layout.

usage: peers.py --csv FILE --md FILE [--deadline S] [--wheels DIR] [--work DIR] [--skip GROUP,...]
       peers.py --jit-check FAKE_DRIVER_DIR [--wheels DIR] [--work DIR]   (no GPU: jit_check below)

Groups (pykeops first, with at most 70 % of the --deadline; then limits and
torch; --deadline stops starting new rows after S seconds):
  limits   the hardware's rates: an FP32 FMA-bound kernel (CuPy RawKernel, nvrtc),
           bf16 and TF32 matmuls through torch (tensor cores), a device-to-device
           copy (bandwidth, bytes read + written)
  torch    PyTorch dense, the route users take without KeOps: the Gaussian sum
           (D = 3, 64; matmul expansion + exp + matvec, in row chunks that fit
           memory), kNN (torch.cdist + torch.topk, D = 3, 128), and
           torch.nn.functional.scaled_dot_product_attention (one head of dim 64,
           128, L = the size below; float16, bfloat16, float32) on each backend
           that accepts the inputs
  pykeops  pykeops 2.3 end to end, in two subprocesses (installed from --wheels with
           pip --no-index --target; CUDA 13's include/cccl on CPATH, the toolkit's lib64
           and stubs on LIBRARY_PATH, one fresh KEOPS_CACHE_FOLDER): first on numpy
           arrays with backend="GPU" in a process without torch (impl "pykeops 2.3
           (numpy)": host copies in every call), then on torch tensors (impl "pykeops
           2.3"); each: its first call (JIT) and steady calls of the Gaussian sum (D = 3,
           64), argkmin (K = 8, D = 3) and LogSumExp (D = 3); check_health(), every
           failure's output, the exit status and, after a crash, a native backtrace
           go to the log. (On the one GPU run so far the torch child ended silently
           in its first call's compile; a fake-driver run here got the same JIT
           through nvrtc, so the numpy child tells torch's presence from KeOps's JIT.)

Sizes follow kops_peer's rule (rows = cols = max(32768, sqrt(1.2e11 / D))), so the
kops and KeOps rows of scoreboard.csv are at the same sizes. Timings: CUDA events
(the pykeops numpy child: wall time of each call, its host copies included),
one warm-up call, median of --reps. Exit: 0; 77 when torch or a CUDA device is
missing (nothing to measure: the dry run here); 1 on an error.
"""
import argparse
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import textwrap
import time

COLUMNS = ("case,dtype,impl,policy,scheme,rows,cols,launch,reps,first_s,median_s,best_s,pairs_per_s,"
           "err_ref,tol,diff_vs_keops,keops_over_kops,verdict,device")


def size_for(d):
    return max(32768, int(math.sqrt(1.2e11 / d)))


class Report:
    """Rows appended to the CSV and the markdown table as they come."""

    def __init__(self, csv_path, md_path, device):
        self.device = device
        self.csv = open(csv_path, "w")
        self.csv.write(COLUMNS + "\n")
        self.md = open(md_path, "w")
        self.md.write(f"peers.py on {device}\n\n| case | T | impl | policy | rows | cols | first ms | median ms | rate | note |\n"
                      "|---|---|---|---|---:|---:|---:|---:|---:|---|\n")
        self.flush()

    def flush(self):
        self.csv.flush()
        self.md.flush()

    def row(self, case, dtype, impl, policy, rows, cols, first, times, rate, unit, note="", err=""):
        med = statistics.median(times) if times else float("nan")
        best = min(times) if times else float("nan")
        # The scheme column holds the rate's unit (pairs/s, flop/s, B/s): the pairs_per_s column is that rate.
        self.csv.write(f"{case},{dtype},{impl},{policy},{unit},{rows},{cols},-,{len(times)},{first:.6g},{med:.6g},"
                       f"{best:.6g},{rate:.6g},{err},,,,{'ok' if times else 'skipped'},\"{self.device}\"\n")
        self.md.write(f"| {case} | {dtype} | {impl} | {policy} | {rows} | {cols} | {1e3 * first:.3f} | "
                      f"{1e3 * med:.3f} | {rate:.3g} {unit} | {note} |\n")
        print(f"peers: {case} {dtype} {impl} {policy} {rows}x{cols}: median {1e3 * med:.3f} ms, {rate:.3g} {unit} {note}",
              flush=True)
        self.flush()

    def skip(self, case, impl, why):
        self.md.write(f"| {case} | - | {impl} | - | - | - | - | - | - | skipped: {why} |\n")
        print(f"peers: {case} {impl}: skipped: {why}", flush=True)
        self.flush()


def timed(torch, fn, reps):
    """First call (wall, synchronised), one more warm call, then the median of reps (CUDA events)."""
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(1e-3 * a.elapsed_time(b))
    return first, times


def limits(torch, rep, reps):
    try:
        import cupy
    except ImportError:
        rep.skip("fp32_fma", "limit", "no CuPy")
    else:
        src = textwrap.dedent("""
            extern "C" __global__ void fma_bound(float* out, int iters) {
              float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f, v[8];
              for (int k = 0; k < 8; ++k) v[k] = a + k;
              for (int i = 0; i < iters; ++i) {
                #pragma unroll
                for (int k = 0; k < 8; ++k) v[k] = fmaf(v[k], b, c);
              }
              float s = 0; for (int k = 0; k < 8; ++k) s += v[k];
              if (s == 12345.f) out[0] = s;  // keeps the chains alive
            }""")
        kernel = cupy.RawKernel(src, "fma_bound")
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        blocks, threads, iters = sms * 16, 256, 4096
        out = cupy.zeros(1, dtype=cupy.float32)
        first, times = timed(torch, lambda: kernel((blocks,), (threads,), (out, cupy.int32(iters))), reps)
        flops = 2.0 * 8 * iters * blocks * threads
        rep.row("fp32_fma", "float", "limit", "FMA-bound kernel", blocks * threads, iters, first, times,
                flops / statistics.median(times), "flop/s")
    n = 8192
    for name, dt, tf32 in (("bf16_matmul", torch.bfloat16, False), ("tf32_matmul", torch.float32, True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, n, device="cuda", dtype=dt)
        first, times = timed(torch, lambda: a @ b, reps)
        rep.row(name, str(dt).replace("torch.", ""), "limit", "torch matmul", n, n, first, times,
                2.0 * n ** 3 / statistics.median(times), "flop/s")
        del a, b
    torch.backends.cuda.matmul.allow_tf32 = False
    src = torch.empty(1 << 28, device="cuda", dtype=torch.float32)  # 1 GiB
    dst = torch.empty_like(src)
    first, times = timed(torch, lambda: dst.copy_(src), reps)
    rep.row("d2d_copy", "float", "limit", "copy_", src.numel(), 1, first, times,
            2.0 * src.numel() * 4 / statistics.median(times), "B/s")


def dense(torch, rep, reps, deadline):
    gen = torch.Generator(device="cuda").manual_seed(12345)

    def data(n, d):
        return torch.rand(n, d, device="cuda", generator=gen) + 1e-7

    for d in (3, 64):
        if time.time() > deadline:
            return rep.skip(f"gauss{d}", "torch", "deadline")
        n = size_for(d)
        x, y = data(n, d), data(n, d)
        b = torch.rand(n, 1, device="cuda", generator=gen) + 0.5
        g = 6.0 / d
        chunk = max(1, min(n, (1 << 29) // n))  # 2 GiB of float32 kernel matrix at a time
        y2 = (y * y).sum(1)

        def gauss():
            out = torch.empty(n, 1, device="cuda")
            for s in range(0, n, chunk):
                xc = x[s:s + chunk]
                d2 = (xc * xc).sum(1, keepdim=True) + y2 - 2 * xc @ y.T
                out[s:s + chunk] = torch.exp(-g * d2.clamp_min_(0)) @ b
            return out

        first, times = timed(torch, gauss, reps)
        ref = (torch.exp(-g * ((x[:64].double()[:, None] - y.double()[None]) ** 2).sum(-1)) @ b.double())
        err = ((gauss()[:64].double() - ref).abs() / ref.abs()).max().item()
        rep.row(f"gauss{d}", "float", "torch", "matmul+exp+matvec", n, n, first, times,
                n * n / statistics.median(times), "pairs/s", f"chunks of {chunk} rows", f"{err:.3g}")
    for d in (3, 128):
        if time.time() > deadline:
            return rep.skip(f"knn{d}", "torch", "deadline")
        n = size_for(d)  # kops_peer's sizes: argkmin8 (D = 3) and argkmin8_d128
        x, y = data(n, d), data(n, d)
        chunk = max(1, min(n, (1 << 29) // n))

        def knn():
            idx = torch.empty(n, 8, device="cuda", dtype=torch.int64)
            for s in range(0, n, chunk):
                idx[s:s + chunk] = torch.cdist(x[s:s + chunk], y).topk(8, largest=False).indices
            return idx

        first, times = timed(torch, knn, reps)
        rep.row(f"argkmin8_d{d}", "float", "torch", "cdist+topk", n, n, first, times,
                n * n / statistics.median(times), "pairs/s", f"chunks of {chunk} rows")
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backends = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("math", SDPBackend.MATH)]
    for dh in (64, 128):
        for dt in (torch.float16, torch.bfloat16, torch.float32):
            # One head at kops_peer's size for the width (its attention64 row: one
            # sumsoftmaxweight over L x L pairs); pairs/s = L^2 / time.
            L = size_for(dh)
            q = torch.randn(1, 1, L, dh, device="cuda", dtype=dt)
            k, v = torch.randn_like(q), torch.randn_like(q)
            for name, be in backends:
                if time.time() > deadline:
                    return rep.skip("attention", "torch", "deadline")
                if name == "math" and dt != torch.float32:
                    continue
                try:
                    with sdpa_kernel([be]):
                        first, times = timed(torch, lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v),
                                             reps)
                except RuntimeError as e:
                    rep.skip(f"attention_dh{dh}", f"torch sdpa {name}", f"{str(dt)[6:]}: {str(e).splitlines()[0][:80]}")
                    continue
                rep.row(f"attention_dh{dh}", str(dt)[6:], f"torch sdpa {name}", "1 head", L, L, first, times,
                        L * L / statistics.median(times), "pairs/s")


# A pykeops child: argv = reps, mode. mode "torch": torch CUDA tensors (no host
# copies); mode "numpy": numpy arrays with backend="GPU" (each call copies to and
# from the device), in a process that never imports torch -- run first, so that
# a failure in the torch child that this one does not share points at torch's
# presence (its CUDA context and libraries) rather than at KeOps's JIT.
PYKEOPS_CHILD = r"""
import json, math, os, statistics, sys, time, traceback
T0 = time.perf_counter()
reps, mode = int(sys.argv[1]), sys.argv[2]
if mode == "torch":
    import torch
import pykeops
print("pykeops", pykeops.__version__, "from", pykeops.__file__, "mode", mode, flush=True)
try:
    pykeops.check_health()
except Exception:
    traceback.print_exc()
if mode == "torch":
    from pykeops.torch import Genred
    def rand(*shape, lo): return torch.rand(*shape, device="cuda") + lo
    def const(v): return torch.tensor([v], device="cuda")
    def call(op, args): op(*args)
    def sync(): torch.cuda.synchronize()
    def timed(op, args):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); op(*args); b.record(); b.synchronize()
        return 1e-3 * a.elapsed_time(b)
else:
    import numpy as np
    from pykeops.numpy import Genred
    rng = np.random.default_rng(7)
    def rand(*shape, lo): return (rng.random(shape, dtype=np.float32) + np.float32(lo)).astype(np.float32)
    def const(v): return np.array([v], dtype=np.float32)
    def call(op, args): op(*args, backend="GPU")  # returns the host result: synchronous
    def sync(): pass
    def timed(op, args):
        t0 = time.perf_counter(); call(op, args)
        return time.perf_counter() - t0
def size_for(d): return max(32768, int(math.sqrt(1.2e11 / d)))
cases = [("gauss3", "Exp(-G*SqDist(X,Y))*B", "Sum", 3), ("gauss64", "Exp(-G*SqDist(X,Y))*B", "Sum", 64),
         ("argkmin8", "SqDist(X,Y)", "ArgKMin", 3), ("logsumexp3", "-G*SqDist(X,Y)", "LogSumExp", 3)]
for name, f, red, d in cases:
    n = size_for(d)
    print(f"case {name} at {time.perf_counter() - T0:.1f} s", flush=True)  # (where a time limit stopped it)
    aliases = [f"X=Vi({d})", f"Y=Vj({d})"] + (["B=Vj(1)", "G=Pm(1)"] if "B" in f else ["G=Pm(1)"] if "G" in f else [])
    try:
        op = Genred(f, aliases, reduction_op=red, axis=1, **({"opt_arg": 8} if red == "ArgKMin" else {}))
        args = [rand(n, d, lo=1e-7), rand(n, d, lo=1e-7)]
        if "B" in f: args.append(rand(n, 1, lo=0.5))
        if "G" in f: args.append(const(6.0 / d))
        t0 = time.perf_counter(); call(op, args); sync(); first = time.perf_counter() - t0
        call(op, args)
        ts = [timed(op, args) for _ in range(reps)]
        print("ROW " + json.dumps([name, n, first, ts]), flush=True)
    except Exception:
        print(f"FAIL {name}", flush=True)
        traceback.print_exc()
"""


def pykeops_env(wheels, work, extra=None):
    """(environment for a pykeops child, None) with pykeops and keopscore 2.3
    installed from the wheels under work, or (None, why not)."""
    wh = sorted(glob.glob(os.path.join(wheels, "pykeops-2.3-*.whl")) + glob.glob(os.path.join(wheels, "keopscore-2.3-*.whl")))
    if len(wh) != 2:
        return None, f"no pykeops/keopscore 2.3 wheels in {wheels} (tools/gpu_check.sh --prepare)"
    site = os.path.join(work, "pykeops-site")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--upgrade",
                        "--target", site] + wh, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        return None, "pip install --target failed (log)"
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    env = dict(os.environ, PYTHONPATH=site + os.pathsep + os.environ.get("PYTHONPATH", ""), PYKEOPS_VERBOSE="1",
               PYTHONUNBUFFERED="1", CUDA_HOME=cuda, CUDA_PATH=cuda,
               CPATH=os.path.join(cuda, "include", "cccl") + os.pathsep + os.environ.get("CPATH", ""),
               LIBRARY_PATH=os.pathsep.join([os.path.join(cuda, "lib64"), os.path.join(cuda, "lib64", "stubs"),
                                             os.environ.get("LIBRARY_PATH", "")]),
               KEOPS_CACHE_FOLDER=os.path.join(work, f"keops-cache-{os.getpid()}"), **(extra or {}))
    return env, None


def pykeops(rep, reps, wheels, work, deadline):
    env, why = pykeops_env(wheels, work)
    if env is None:
        return rep.skip("pykeops", "pykeops 2.3", why)
    # The numpy child first (it also builds KeOps's two host modules in the shared
    # cache folder), with at most half of the time left; then the torch child;
    # then the post-mortems of those that gave no row (a debugger run may take
    # minutes: it must not eat the torch child's time).
    failed = []
    for mode, impl, policy in (("numpy", "pykeops 2.3 (numpy)", "numpy arrays, host copies in each call"),
                               ("torch", "pykeops 2.3", "torch tensors")):
        left = deadline - time.time()
        child = [sys.executable, "-X", "faulthandler", "-c", PYKEOPS_CHILD, str(reps), mode]
        code, out = run_logged(child, env, max(10, left / 2 if mode == "numpy" else left))
        tag = f"pykeops-{mode}| "
        print(textwrap.indent(out, "  " + tag), flush=True)
        print(f"  {tag}(child {describe_exit(code)})", flush=True)
        rows = 0
        for line in out.splitlines():
            if line.startswith("ROW "):
                name, n, first, ts = json.loads(line[4:])
                rep.row(name, "float", impl, policy, n, n, first, ts, n * n / statistics.median(ts),
                        "pairs/s", f"first call {first:.2f} s (JIT)")
                rows += 1
        if rows == 0:
            rep.skip("pykeops", impl, f"no row ({describe_exit(code)}): see the log (check_health, the failing compile)")
            failed.append((child, code, tag))
    for child, code, tag in failed:
        pykeops_post_mortem(child, env, code, env["KEOPS_CACHE_FOLDER"], deadline, tag)


def jit_check(wheels, work, fake_driver, limit):
    """No GPU: the numpy child against bench/peer/fake_libcuda.py's driver in
    fake_driver, with the environment the GPU run gives it. KeOps's JIT must
    get through -- its host modules built, each case's source compiled to a
    cubin by nvrtc -- and the call stop at the driver's module load. 0 when
    every case left its cubin."""
    ld = os.pathsep.join([os.path.abspath(fake_driver), os.environ.get("LD_LIBRARY_PATH", "")])
    env, why = pykeops_env(wheels, work, {"LD_LIBRARY_PATH": ld})
    if env is None:
        print(f"peers.py --jit-check: {why}")
        return 1
    child = [sys.executable, "-X", "faulthandler", "-c", PYKEOPS_CHILD, "1", "numpy"]
    code, out = run_logged(child, env, limit)
    print(textwrap.indent(out, "  jit-check| "), flush=True)
    cases = sum(1 for line in out.splitlines() if line.startswith("case "))
    cubins = [f for _, _, files in os.walk(env["KEOPS_CACHE_FOLDER"]) for f in files if f.startswith("cubin_")]
    stopped = out.count("cuModuleLoadDataEx")
    ok = cases > 0 and len(cubins) == cases and code == 0
    print(f"peers.py --jit-check: child {describe_exit(code)}; {len(cubins)} cubins for {cases} cases; "
          f"{stopped} stops at cuModuleLoadDataEx (the fake driver's end): {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def run_logged(cmd, env, limit):
    """(exit code or None on timeout, stdout + stderr) of cmd, stopped after `limit` seconds."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
        return None, text(e.stdout) + text(e.stderr) + f"\n(stopped after {limit:.0f} s)"


def describe_exit(code):
    if code is None:
        return "stopped at its time limit"
    if code < 0:
        import signal
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def pykeops_post_mortem(child, env, code, cache, deadline, tag="pykeops| "):
    """What a failed pykeops child left: KeOps's build folder, and for a crash the native
    backtrace (the child again under cuda-gdb, which debugs host code there; KINDS.md)."""
    print(f"  {tag}KeOps's build folder {cache}:", flush=True)
    for root, _, files in os.walk(cache):
        for f in sorted(files):
            path = os.path.join(root, f)
            print(f"  {tag}  {os.path.relpath(path, cache)} ({os.path.getsize(path)} B)", flush=True)
    debugger = next((d for d in ("cuda-gdb", "gdb") if shutil.which(d)), None)
    left = deadline - time.time()
    if code is None or code >= 0 or debugger is None or left < 30:
        why = ("it did not crash" if code is None or code >= 0 else
               "no cuda-gdb or gdb here" if debugger is None else f"{left:.0f} s left")
        print(f"  {tag}(no native backtrace: {why})", flush=True)
        return
    cmd = [debugger, "-batch", "-ex", "run", "-ex", "info sharedlibrary", "-ex", "bt 40", "--args"] + child
    _, out = run_logged(cmd, env, min(left - 5, 120))
    print(textwrap.indent("\n".join(out.splitlines()[-150:]), "  " + tag.replace("|", "-gdb|")), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv")
    ap.add_argument("--md")
    ap.add_argument("--deadline", type=float, default=1e9)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--wheels", default=os.path.join(os.path.dirname(__file__), "..", "..", ".whl"))
    ap.add_argument("--work", default="build/gpu_check")
    ap.add_argument("--skip", default="")
    ap.add_argument("--jit-check", metavar="FAKE_DRIVER_DIR",
                    help="no GPU: pykeops's JIT through bench/peer/fake_libcuda.py's driver in this folder (jit_check)")
    a = ap.parse_args()
    if a.jit_check:
        return jit_check(a.wheels, a.work, a.jit_check, min(a.deadline, 600))
    if not (a.csv and a.md):
        ap.error("--csv and --md are required (but for --jit-check)")
    deadline = time.time() + a.deadline
    skip = set(a.skip.split(","))
    try:
        import torch
    except ImportError:
        print("peers.py: skipped: no torch here (the GPU image has it)")
        return 77
    if not torch.cuda.is_available():
        print("peers.py: skipped: torch sees no CUDA device")
        return 77
    os.makedirs(a.work, exist_ok=True)
    p = torch.cuda.get_device_properties(0)
    rep = Report(a.csv, a.md, f"{p.name} (sm_{p.major}{p.minor}, {p.multi_processor_count} SMs), torch {torch.__version__}")
    # pykeops first, with at most 70 % of the time: its rows are the ones no run
    # has produced yet (the first GPU run's pykeops child came last and ended
    # inside its first call, possibly at its time limit).
    pk_deadline = time.time() + 0.7 * (deadline - time.time())
    for group, fn in (("pykeops", lambda: pykeops(rep, a.reps, a.wheels, a.work, pk_deadline)),
                      ("limits", lambda: limits(torch, rep, a.reps)),
                      ("torch", lambda: dense(torch, rep, a.reps, deadline))):
        if group in skip:
            continue
        if time.time() > deadline:
            rep.skip(group, group, "deadline")
            continue
        try:
            fn()
        except Exception as e:  # one group's failure must not lose the others' rows
            import traceback

            traceback.print_exc()
            rep.skip(group, group, f"error: {type(e).__name__}: {str(e)[:100]}")
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
