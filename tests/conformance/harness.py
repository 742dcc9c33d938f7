#!/usr/bin/env python3
"""Runs pykeops 2.3 (numpy, CPU backend) on every case of the kops golden data
and compares with kops's outputs (docs/conformance.md).

    harness.py --golden DIR [--venv DIR] [--build-folder DIR] [--report FILE]

--venv DIR: use (creating it when missing) a virtual environment holding
pykeops==2.3 and keopscore==2.3, installed with pip; when pip cannot reach
the package registry, exit 77 (ctest: skipped) with a line starting
KOPS_CONFORMANCE_SKIPPED. Without --venv, pykeops must be importable (the
environment variable KOPS_CONFORMANCE_PYTHON may name an interpreter that has it).

pykeops compiles each new formula (about 5 s); to fit CI's time, the first
stages of cases that share a reduction, axis, dtype and sizes are batched into
one Genred call: their formulas, variables renumbered, are concatenated with
KeOps' Concat, and the result is split by columns (every batched reduction
works component by component). A batch that KeOps rejects is split in halves
until the failing cases are isolated. --build-folder keeps KeOps' compiled
formulas between runs.

Exit status: 0 when every case agrees or fails as its golden entry expects
(a known KeOps bug, a documented semantic difference), 1 otherwise, 77 skipped.
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import time

np = None  # numpy, imported by run() (the bootstrap runs without it)
SKIP = 77
PYKEOPS = ["pykeops==2.3", "keopscore==2.3"]

# Bootstrap.
NETWORK_PATTERNS = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|"
    r"Name or service not known|Network is unreachable|Connection refused|ConnectTimeoutError|"
    r"ReadTimeoutError|Max retries exceeded|ProxyError|SSLError|Could not fetch URL|connection broken|"
    r"No route to host|timed out",
    re.IGNORECASE,
)


def skip(reason):
    print(f"KOPS_CONFORMANCE_SKIPPED: {reason}", flush=True)
    sys.exit(SKIP)


def has_pykeops(python):
    code = "import numpy, pykeops, keopscore; assert pykeops.__version__ == keopscore.__version__ == '2.3'"
    try:
        r = subprocess.run([python, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def base_interpreter():
    """An interpreter to create the venv from: prefer one whose numpy the venv can reuse."""
    candidates = [sys.executable, "/usr/bin/python3"]
    for py in candidates:
        if os.path.exists(py) and subprocess.run([py, "-c", "import numpy, venv"], stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return sys.executable


def ensure_venv(venv):
    """Returns the venv's python, with pykeops 2.3 in it (or skips / fails)."""
    py = os.path.join(venv, "bin", "python")
    if os.path.exists(py) and has_pykeops(py):
        return py
    if not os.path.exists(py):
        base = base_interpreter()
        print(f"[conformance] creating {venv} from {base}", flush=True)
        r = subprocess.run([base, "-m", "venv", "--system-site-packages", venv], capture_output=True, text=True)
        if r.returncode != 0:
            skip(f"cannot create a Python virtual environment with {base} (Debian: apt-get install python3-venv): "
                 f"{(r.stderr or r.stdout).strip().splitlines()[-1:]}")
    print(f"[conformance] pip install {' '.join(PYKEOPS)} into {venv}", flush=True)
    t = time.time()
    r = subprocess.run([py, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--retries", "1",
                        "--timeout", "20", *PYKEOPS], capture_output=True, text=True)
    if r.returncode != 0:
        out = r.stdout + r.stderr
        if NETWORK_PATTERNS.search(out):
            skip("pip cannot reach the package registry to install " + " ".join(PYKEOPS) +
                 f" (last lines: {' | '.join(out.strip().splitlines()[-2:])})")
        print(out)
        print("[conformance] pip install failed (not a network error)", flush=True)
        sys.exit(1)
    print(f"[conformance] installed in {time.time() - t:.0f} s", flush=True)
    if not has_pykeops(py):
        print("[conformance] pykeops 2.3 still not importable after pip install", flush=True)
        sys.exit(1)
    return py


# Formula text.
VAR = re.compile(r"Var\((\d+),(\d+),(\d+)\)")
CONCATENABLE = {"Sum", "Min", "Max", "ArgMin", "ArgMax", "Min_ArgMin", "Max_ArgMax", "KMin", "ArgKMin",
                "KMin_ArgKMin"}
K_OPS = {"KMin", "ArgKMin", "KMin_ArgKMin"}


def renumber(texts, mapping, first_new):
    """Rewrites Var(k,d,c) with mapping[k] (assigned first_new, first_new + 1, ... in order of appearance)."""
    def sub(m):
        k = int(m.group(1))
        if k not in mapping:
            mapping[k] = (first_new + len(mapping), int(m.group(2)), int(m.group(3)))
        new, d, c = mapping[k]
        if (d, c) != (int(m.group(2)), int(m.group(3))):
            raise ValueError(f"Var({k}, ...) appears with two dims/categories")
        return f"Var({new},{d},{c})"
    return [VAR.sub(sub, t) if t else t for t in texts]


def concat_tree(parts):
    if len(parts) == 1:
        return parts[0]
    h = len(parts) // 2
    return f"Concat({concat_tree(parts[:h])},{concat_tree(parts[h:])})"


# The run.
class Case:
    def __init__(self, entry, golden):
        self.e = entry
        self.id = entry["id"]
        self.M, self.N = entry["M"], entry["N"]
        self.dtype = np.float64 if entry["dtype"] == "float64" else np.float32
        self.arrays = {}
        for a in entry["inputs"] + entry["aux"]:
            if a.get("file"):
                self.arrays[a["name"]] = np.load(os.path.join(golden, a["file"]))
        out = entry["output"]
        self.kops_value = np.load(os.path.join(golden, out["value"])) if "value" in out else None
        self.kops_index = np.load(os.path.join(golden, out["index"])) if "index" in out else None
        # Batched cases (kops::batch): B problems; the arguments marked "batched" hold
        # one array per batch (a leading batch axis), the others are shared. pykeops
        # takes them with a leading batch dimension, B or 1 (broadcast); its output,
        # (B, rows, dim), is compared as (B * rows, dim) like kops's.
        self.batch = entry.get("batch", 0)
        self.batched = {a["name"] for a in entry["inputs"] if a.get("batched")}
        if self.batch:
            self.kops_value = None if self.kops_value is None else self.kops_value.reshape(-1, self.kops_value.shape[-1])
            self.kops_index = None if self.kops_index is None else self.kops_index.reshape(-1, self.kops_index.shape[-1])
        self.stages = entry["keops"]["stages"]
        self.isolate = entry["keops"]["isolate"]
        # Block-sparse cases: pykeops' six ranges arrays (int64; pairs as (n, 2)).
        self.ranges = None
        if entry.get("ranges"):
            arrs = [np.load(os.path.join(golden, f)) for f in entry["ranges"]]
            self.ranges = tuple(np.ascontiguousarray(a.reshape(-1, 2) if k in (0, 2, 3, 5) else a.reshape(-1))
                                for k, a in enumerate(arrs))
            self.isolate = True
        self.results = {}   # stage index -> dict(value=..., index=...)
        self.error = None
        self.status = None
        self.detail = ""


def printed_case(case):
    """The Genred calls that kops::to_keops_string prints (keops.printed: golden entries
    whose stages are written otherwise, e.g. with KeOps' Grad), as a case of their own,
    <id>@printed, expected to agree (or fail) like the case, or as its printed_expect says."""
    c = copy.copy(case)
    c.id = case.id + "@printed"
    c.e = dict(case.e, expect=case.e.get("printed_expect", case.e["expect"]))
    c.stages = case.e["keops"]["printed"]
    c.results = {}
    return c


def stage_rows(case, st):
    return (case.M if st["axis"] == 1 else case.N) * max(case.batch, 1)


def stage_call(case, st):
    """(formula, formula2, arrays) of one stage with its variables renumbered 0, 1, ..."""
    mapping = {}
    f, f2 = renumber([st["formula"], st["formula2"]], mapping, 0)
    arrays = [None] * len(mapping)
    for k, (new, d, c) in mapping.items():
        name = st["args"][k]
        if name.startswith("s") and name[1:].isdigit():
            r = case.results[int(name[1:])]
            a = r["value"] if r["value"] is not None else r["index"]
            a = np.ascontiguousarray(a, dtype=case.dtype)
        else:
            a = case.arrays[name]
        rows = {0: case.M, 1: case.N}.get(c)
        shape = (rows, d) if rows is not None else (d,)
        if case.batch:
            shape = (case.batch if name in case.batched else 1,) + shape
        a = a.reshape(shape)
        arrays[new] = np.ascontiguousarray(a)
    return f, f2, arrays


def normalize(op, out, rows):
    """pykeops' postprocessed output -> dict(value=(rows, K*dim) or None, index=... or None)."""
    if op in ("Min_ArgMin", "Max_ArgMax", "KMin_ArgKMin"):
        return dict(value=np.asarray(out[0]).reshape(rows, -1), index=np.asarray(out[1]).reshape(rows, -1))
    if op in ("ArgMin", "ArgMax", "ArgKMin"):
        return dict(value=None, index=np.asarray(out).reshape(rows, -1))
    return dict(value=np.asarray(out).reshape(rows, -1), index=None)


def split_columns(op, res, dims, k, rows):
    """A batched result into one result per case (columns of the concatenated formula)."""
    parts, off = [], 0
    for d in dims:
        part = {}
        for key in ("value", "index"):
            a = res[key]
            if a is None:
                part[key] = None
            elif op in K_OPS:  # (rows, K, total dim): columns within each of the K slots
                part[key] = a.reshape(rows, k, -1)[:, :, off:off + d].reshape(rows, k * d)
            else:
                part[key] = a[:, off:off + d]
        parts.append(part)
        off += d
    return parts


class Runner:
    def __init__(self, genred, batch=True, verbose=False):
        self.Genred, self.batch, self.verbose = genred, batch, verbose
        self.calls = 0
        self.formulas = set()

    def genred(self, f, f2, op, axis, k, arrays, ranges=None):
        self.calls += 1
        self.formulas.add((f, f2, op, axis, k, str(arrays[0].dtype) if arrays else ""))
        kw = {}
        if f2:
            kw["formula2"] = f2
        if k:
            kw["opt_arg"] = k
        routine = self.Genred(f, [], reduction_op=op, axis=axis, **kw)
        if ranges is not None:
            return routine(*arrays, backend="CPU", ranges=ranges)
        return routine(*arrays, backend="CPU")

    def run_one(self, case, st):
        f, f2, arrays = stage_call(case, st)
        out = self.genred(f, f2, st["reduction_op"], st["axis"], st["opt_arg"], arrays, case.ranges)
        return normalize(st["reduction_op"], out, stage_rows(case, st))

    def run_batch(self, items, single=False):
        """items: [(case, stage index)] sharing op, axis, K, dtype, M, N. Sets each case's result or error."""
        if single or len(items) == 1 or not self.batch:
            for case, i in items:
                try:
                    case.results[i] = self.run_one(case, case.stages[i])
                except Exception as err:  # KeOps raises many kinds
                    case.error = f"{type(err).__name__}: {str(err).strip()[:400]}"
            return
        parts, arrays, dims, batch = [], [], [], []
        for case, i in items:  # a case whose inputs are wrong fails alone, before any compile
            st = case.stages[i]
            try:
                f, _, a = stage_call(case, st)
            except Exception as err:
                case.error = f"{type(err).__name__}: {str(err).strip()[:400]}"
                continue
            parts.append(renumber([f], {}, len(arrays))[0])
            arrays += a
            dims.append(st["dim"])
            batch.append((case, i))
        if len(batch) < 2:
            return self.run_batch(batch, single=True) if batch else None
        items = batch
        try:
            case0, st0 = items[0][0], items[0][0].stages[items[0][1]]
            rows = stage_rows(case0, st0)
            out = self.genred(concat_tree(parts), "", st0["reduction_op"], st0["axis"], st0["opt_arg"], arrays)
            res = normalize(st0["reduction_op"], out, rows)
            total = sum(dims) * (st0["opt_arg"] or 1)
            shape_ok = all(a is None or a.shape == (rows, total) for a in res.values())
            if not shape_ok:
                raise ValueError(f"batched output shape {[None if a is None else a.shape for a in res.values()]} "
                                 f"!= ({rows}, {total})")
        except Exception as err:
            if self.verbose:
                print(f"  [batch of {len(items)} failed ({type(err).__name__}); splitting]", flush=True)
            h = len(items) // 2
            self.run_batch(items[:h])
            self.run_batch(items[h:])
            return
        for (case, i), part in zip(items, split_columns(st0["reduction_op"], res, dims, st0["opt_arg"] or 1, rows)):
            case.results[i] = part


def stage_deps(st):
    return {int(a[1:]) for a in st["args"] if a.startswith("s") and a[1:].isdigit()}


def batch_key(case, st):
    """Stages of one key run as one Genred call. The printed calls (<id>@printed) and the
    string cases batch apart from the others, so that a new case leaves the others'
    formulas, compiled and cached by KeOps, as they were."""
    if not case.isolate and st["reduction_op"] in CONCATENABLE and not st["formula2"]:
        family = "printed" if case.id.endswith("@printed") else "strings" if case.e.get("keops_source") else ""
        return (st["reduction_op"], st["axis"], st["opt_arg"], case.e["dtype"], case.M, case.N, family)
    return ("single", case.id, st["formula"], st["formula2"], st["reduction_op"])


def schedule(cases, runner, verbose):
    """Runs every stage once its inputs exist. Stages that others wait for go first
    (with the batchable stages that share their batch); the final stages, which
    nothing waits for, are kept back so that they all meet in as few batches
    (compiled formulas) as possible."""
    pending = [(c, i) for c in cases for i in range(len(c.stages))]
    while True:
        pending = [(c, i) for c, i in pending if c.error is None]
        ready = [(c, i) for c, i in pending if stage_deps(c.stages[i]) <= set(c.results)]
        if not ready:
            break
        awaited = [(c, i) for c, i in ready if any(i in stage_deps(c.stages[k]) for d, k in pending if d is c)]
        if awaited:
            keys = {batch_key(c, c.stages[i]) for c, i in awaited}
            now = [(c, i) for c, i in ready if (c, i) in awaited or batch_key(c, c.stages[i]) in keys]
        else:
            now = ready
        groups = {}
        for c, i in now:
            groups.setdefault(batch_key(c, c.stages[i]), []).append((c, i))
        for key, items in groups.items():
            t = time.time()
            runner.run_batch(items)
            if verbose:
                print(f"  {key[0]} x{len(items)}: {time.time() - t:.1f} s", flush=True)
        done = set(map(lambda ci: (id(ci[0]), ci[1]), now))
        pending = [(c, i) for c, i in pending if (id(c), i) not in done]


def differences(case, r, tol):
    """What differs between kops's output and the KeOps result r, within tolerance tol."""
    problems = []
    if case.kops_value is not None:
        kv, rv = case.kops_value, r["value"]
        if rv is None or rv.shape != kv.shape:
            problems.append(f"value shape: KeOps {None if rv is None else rv.shape}, kops {kv.shape}")
        else:
            kv64, rv64 = kv.astype(np.float64), rv.astype(np.float64)
            close = np.isclose(kv64, rv64, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
            if not close.all():
                bad = np.argwhere(~close)
                i = tuple(bad[0])
                nan = int(np.sum(np.isnan(kv64) != np.isnan(rv64)))
                finite = np.isfinite(kv64) & np.isfinite(rv64)
                rel = (np.max(np.abs(kv64 - rv64)[finite] / np.maximum(np.abs(rv64[finite]), tol["atol"] / tol["rtol"]))
                       if finite.any() else 0.0)
                what = f"max relative diff {rel:.2g}" + (f", {nan} NaN in one only" if nan else "")
                problems.append(f"{len(bad)} of {kv.size} values differ ({what}); first at "
                                f"{list(i)}: kops {kv64[i]!r}, KeOps {rv64[i]!r}")
    if case.kops_index is not None:
        ki, ri = case.kops_index, r["index"]
        if ri is None or ri.shape != ki.shape:
            problems.append(f"index shape: KeOps {None if ri is None else ri.shape}, kops {ki.shape}")
        elif not np.array_equal(ki, ri.astype(np.int64)):
            bad = np.argwhere(ki != ri.astype(np.int64))
            i = tuple(bad[0])
            problems.append(f"{len(bad)} of {ki.size} indices differ; first at {list(i)}: kops {ki[i]}, KeOps {ri[i]}")
    return problems


def max_relative_diff(case):
    """max |kops - KeOps| / max(|KeOps|, 1) over the finite values (0 when equal)."""
    k = case.kops_value.astype(np.float64)
    r = case.results[len(case.stages) - 1]["value"].astype(np.float64)
    finite = np.isfinite(k) & np.isfinite(r)
    return float(np.max(np.abs(k - r)[finite] / np.maximum(np.abs(r[finite]), 1.0))) if finite.any() else 0.0


def compare(case):
    """Sets case.status and case.detail:
    PASS   agree within the tolerance            FAIL   disagree (or beyond a known bug's effect)
    ERROR  KeOps failed on a case that should run XFAIL  disagree as the golden entry expects
    XPASS  agree although a disagreement is expected (the KeOps bug may be fixed)"""
    expect = case.e["expect"]
    if case.error is not None:
        problems = ["KeOps error: " + case.error]
    else:
        problems = differences(case, case.results[len(case.stages) - 1], case.e["tolerance"])
    if not problems:
        agree = "agree" + (f" (max relative diff {max_relative_diff(case):.1g})" if case.kops_value is not None else "")
        case.status, case.detail = ("PASS", agree) if expect == "agree" else (
            "XPASS", f"agree although {expect} is expected: check the KeOps version and update the corpus")
    elif expect == "agree":
        case.status, case.detail = ("ERROR" if case.error is not None else "FAIL"), "; ".join(problems)
    else:
        loose = case.e.get("known_bug_tolerance")
        if loose and case.error is None:
            beyond = differences(case, case.results[len(case.stages) - 1], loose)
            if beyond:
                case.status, case.detail = "FAIL", "beyond the known KeOps issue's effect: " + "; ".join(beyond)
                return
        case.status, case.detail = "XFAIL", f"{expect}: " + "; ".join(problems)


def run(args):
    global np
    import numpy as np
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import pykeops
    pykeops.set_verbose(False)
    if args.build_folder:
        os.makedirs(args.build_folder, exist_ok=True)
        pykeops.set_build_folder(args.build_folder)
    from pykeops.numpy import Genred

    index = json.load(open(os.path.join(args.golden, "index.json")))
    assert index["format"] == "kops-conformance-golden" and index["version"] == 1, "unknown golden format"
    cases = [Case(e, args.golden) for e in index["cases"]]
    cases += [printed_case(c) for c in cases if c.e["keops"].get("printed")]
    if args.only:
        cases = [c for c in cases if re.search(args.only, c.id)]
    print(f"[conformance] pykeops {pykeops.__version__}, {len(cases)} cases from {args.golden}", flush=True)

    runner = Runner(Genred, batch=not args.no_batch, verbose=args.verbose)
    t0 = time.time()
    schedule(cases, runner, args.verbose)
    for c in cases:
        compare(c)
    elapsed = time.time() - t0

    width = max(len(c.id) for c in cases)
    for c in cases:
        print(f"{c.status:5} {c.id:{width}}  {c.detail}")
    counts = {s: sum(c.status == s for c in cases) for s in ("PASS", "FAIL", "ERROR", "XFAIL", "XPASS")}
    print(f"[conformance] {len(cases)} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items()) +
          f"; {runner.calls} Genred calls, {len(runner.formulas)} distinct formulas, {elapsed:.0f} s", flush=True)

    if args.report:
        with open(args.report, "w") as f:
            json.dump({"pykeops": pykeops.__version__, "counts": counts,
                       "cases": [{"id": c.id, "group": c.e["group"], "what": c.e["what"], "dtype": c.e["dtype"],
                                  "status": c.status, "detail": c.detail,
                                  "stages": [st["reduction_op"] for st in c.stages], "expect": c.e["expect"],
                                  "note": c.e["note"]} for c in cases]}, f, indent=1)
    return 0 if counts["FAIL"] == 0 and counts["ERROR"] == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--golden", required=True, help="folder holding index.json (kops_conformance_gen's output)")
    ap.add_argument("--venv", default="", help="virtual environment to use, created with pykeops 2.3 when missing")
    ap.add_argument("--build-folder", default="", help="KeOps build folder (kept between runs)")
    ap.add_argument("--report", default="", help="write the per-case results to this JSON file")
    ap.add_argument("--only", default="", help="regular expression: run the cases whose id matches")
    ap.add_argument("--no-batch", action="store_true", help="one Genred call per stage (slow: one compile each)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if not args.in_venv:
        python = os.environ.get("KOPS_CONFORMANCE_PYTHON", "")
        if not python and args.venv:
            python = ensure_venv(os.path.abspath(args.venv))
        if python:  # (a venv's python is often a link to the base one: always exec it)
            os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:], "--in-venv"])
    sys.exit(run(args))


if __name__ == "__main__":
    main()
