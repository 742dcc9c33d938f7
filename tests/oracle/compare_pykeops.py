# pykeops against the oracle, case by case (docs/conformance.md): python3 compare_pykeops.py ./my_oracle formulas.txt
import re, subprocess, sys, numpy as np
from pykeops.numpy import Genred
oracle, rng = sys.argv[1], np.random.default_rng(0)
for line in open(sys.argv[2]):
    if not line.split("#")[0].strip(): continue
    name, red, aliases, dtype = (f.strip() for f in line.split("#")[0].split(";"))
    op, formula, tag = re.fullmatch(r"(\w+)_Reduction\((.*),([01])\)", red).groups()
    M, N = 1000, 1500  # a variable (rows, dim); a parameter (dim,): the shapes --list gives
    args = [rng.random({"Vi": (M, int(d)), "Vj": (N, int(d)), "Pm": (int(d),)}[c]).astype(dtype)
            for c, d in (re.search(r"(Vi|Vj|Pm)\((\d+)\)", a).groups() for a in aliases.split())]
    for k, a in enumerate(args): np.save(f"arg{k}.npy", a)
    outs = ["out.npy", "indices.npy"] if "_Arg" in op else ["out.npy"]
    subprocess.run([oracle, "run", name, *outs, *(f"arg{k}.npy" for k in range(len(args)))], check=True)
    got = Genred(formula, aliases.split(), reduction_op=op, axis=1 - int(tag))(*args)
    for want, have in zip(map(np.load, outs), got if isinstance(got, tuple) else (got,)):
        print(f"{name} {want.dtype}: max |pykeops - oracle| = {np.abs(have - want).max():.3g}, max |oracle| = {np.abs(want).max():.3g}")
