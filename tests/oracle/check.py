"""Checks an oracle built by kops_add_oracle from tests/oracle/formulas.txt.

    python3 check.py <oracle executable> <scratch folder>

numpy writes the inputs, the oracle evaluates each case (`run`), and its
outputs are compared with references numpy computes in float64; `--list`
must give each case's run line; wrong inputs must fail with kops' messages.
Exit status 77 (ctest: skipped) when numpy is missing.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("check.py: numpy is not installed; skipped")
    sys.exit(77)

ORACLE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
rng = np.random.default_rng(7)
failures = []


def path(name):
    return os.path.join(WORK, name + ".npy")


def save(name, array):
    np.save(path(name), array)
    return path(name)


def oracle(*args):
    return subprocess.run([ORACLE, *args], capture_output=True, text=True)


def run(case, outs, args):
    r = oracle("run", case, *outs, *args)
    if r.returncode != 0:
        failures.append(f"run {case} failed ({r.returncode}): {r.stderr}")
    return [np.load(o) for o in outs] if r.returncode == 0 else None


def expect(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def expect_error(what, args, message):
    r = oracle(*args)
    expect(f"{what}: exit 1 with '{message}'", r.returncode == 1 and message in r.stderr)
    if message not in r.stderr:
        print("     stderr:", r.stderr.strip())


# --list: every case, with the files its run takes.
listing = oracle("--list").stdout
print(listing)
expect("--list gives gauss' run line",
       "run gauss <out (M, 1) float32> <arg0 (1,)> <arg1 (M, 3)> <arg2 (N, 3)> <arg3 (N, 1)>" in listing)
expect("--list gives nearest_j's two outputs",
       "run nearest_j <values (M, 1) float64> <indices (M, 1) int64> <arg0 (M, 2)> <arg1 (N, 2)>" in listing)
expect("--list gives nearest_i's output over j and its unused argument W",
       "run nearest_i <out (N, 1) int64> <arg0 (M, 2)> <arg1 (N, 2)> <arg2 unused>" in listing)

# gauss: a sum over j, float32 (the reference in float64).
M, N = 37, 53
g = np.array([0.7], dtype=np.float32)
x = rng.standard_normal((M, 3)).astype(np.float32)
y = rng.standard_normal((N, 3)).astype(np.float32)
b = rng.standard_normal((N, 1)).astype(np.float32)
files = [save("g", g), save("x", x), save("y", y), save("b", b)]
got = run("gauss", [path("gauss_out")], files)
d2 = ((x.astype(np.float64)[:, None, :] - y.astype(np.float64)[None, :, :]) ** 2).sum(-1)
ref = np.exp(-float(g[0]) * d2) @ b.astype(np.float64)
if got:
    out = got[0]
    expect(f"gauss: float32 (M, 1) output, given {out.dtype} {out.shape}", out.dtype == np.float32 and out.shape == (M, 1))
    err = np.abs(out - ref).max() / np.abs(ref).max()
    expect(f"gauss: matches numpy's float64 reference (relative error {err:.2e})", err < 1e-5)

# A dim-1 variable as (rows,), a parameter as (1, dim): the same result.
got1 = run("gauss", [path("gauss_out1")], [save("g2", g[None, :]), files[1], files[2], save("b1", b[:, 0])])
if got and got1:
    expect("gauss: b as (N,) and g as (1, 1) give the same output", np.array_equal(got1[0], got[0]))

# nearest_j: Min_ArgMin over j, float64: values and int64 indices.
x2 = rng.standard_normal((M, 2))
y2 = rng.standard_normal((N, 2))
f2 = [save("x2", x2), save("y2", y2)]
d2 = ((x2[:, None, :] - y2[None, :, :]) ** 2).sum(-1)
got = run("nearest_j", [path("nj_values"), path("nj_indices")], f2)
if got:
    values, indices = got
    expect(f"nearest_j: indices are int64 (M, 1), given {indices.dtype} {indices.shape}",
           indices.dtype == np.int64 and indices.shape == (M, 1))
    expect("nearest_j: indices are numpy's argmin", np.array_equal(indices[:, 0], d2.argmin(1)))
    expect("nearest_j: values are numpy's min", np.allclose(values[:, 0], d2.min(1), rtol=1e-12, atol=1e-14))

# nearest_i: ArgMin over i (axis 1): one row per j.
got = run("nearest_i", [path("ni_out")], [*f2, save("w", np.zeros(4))])  # W: read, not used
if got:
    out = got[0]
    expect(f"nearest_i: int64 (N, 1), given {out.dtype} {out.shape}", out.dtype == np.int64 and out.shape == (N, 1))
    expect("nearest_i: numpy's argmin over i", np.array_equal(out[:, 0], d2.argmin(0)))

# Wrong inputs: kops' messages, exit status 1.
expect_error("a variable of the wrong dim", ["run", "gauss", path("e"), files[0], save("bad", x2.astype(np.float32)),
                                             files[2], files[3]],
             "argument 1: " + path("bad") + " has shape (37, 2), expected (M, 3)")
expect_error("float64 arrays for a float32 case", ["run", "gauss", path("e"), files[0], save("x64", x.astype(np.float64)),
             files[2], files[3]], "holds float64 values, expected float32")
expect_error("rows that disagree", ["run", "gauss", path("e"), *files[:3], save("b_short", b[:-1])],
             "argument 3: " + path("b_short") + " has 52 rows, expected N = 53 (from " + files[2] + ")")
expect_error("a missing argument", ["run", "gauss", path("e"), *files[:3]], "case gauss takes 4 argument files, given 3")
expect_error("an unknown case", ["run", "nope", path("e")], "no case named 'nope', expected one of: gauss, nearest_j, nearest_i")
expect_error("a Fortran-order file", ["run", "nearest_j", path("e"), path("e2"), save("xf", np.asfortranarray(np.ones((M, 2)))), f2[1]],
             "is in Fortran order")

expect_error("--gpu", ["run", "gauss", path("e"), *files, "--gpu"], "--gpu: this oracle runs the CPU backend only")
expect("no arguments: the usage, exit 2", oracle().returncode == 2 and "usage:" in oracle().stderr)

print("oracle check:", "FAIL" if failures else "PASS")
sys.exit(1 if failures else 0)
