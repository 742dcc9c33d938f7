#!/usr/bin/env python3
"""The include layers of include/kops (docs/architecture.md), checked.

Each folder of include/kops may include kops headers only from the folders its
layer lists below; a backend never names an op, core never names anything above
it. The umbrella headers at the top level (kops.hpp, kokkos.hpp, cuda.hpp,
mpi.hpp, hana.hpp) may include anything.

    python3 tests/layers/check_layers.py [include_dir]     # exit 1 on a violation
    python3 tests/layers/check_layers.py --selftest        # the checker catches one
"""
import os
import re
import sys
import tempfile

# folder -> the folders its headers may include (itself always allowed)
ALLOWED = {
    "core": {"config"},
    "ops": {"config", "core"},
    "reductions": {"config", "core", "ops"},
    "autodiff": {"config", "core", "ops", "reductions"},
    "lowering": {"config", "core"},
    "io": {"config", "core", "ops", "reductions", "autodiff"},  # keops_syntax calls grad, diff, ...
    "detail": {"config", "core", "reductions", "lowering"},
    "solve": {"config", "core", "ops", "reductions", "autodiff", "detail"},
    "backends": {"config", "core", "reductions", "lowering", "detail", "solve", "cuda_emulated"},
    "cuda_emulated": {"config"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]kops/([^>"]+)[>"]', re.M)


def layer_of(rel):
    """The layer of a path relative to include/kops: its first folder, or
    "config" for config.hpp, or None for a top-level umbrella header."""
    parts = rel.split("/")
    if len(parts) == 1:
        return "config" if parts[0] == "config.hpp" else None
    return parts[0]


def violations(root):
    found = []
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".hpp"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            layer = layer_of(rel)
            if layer is None or layer == "config":
                continue
            if layer not in ALLOWED:
                found.append(f"{rel}: folder '{layer}' has no layer (add it to tests/layers/check_layers.py)")
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for target in INCLUDE.findall(text):
                t = layer_of(target)
                if t is None:
                    found.append(f"{rel}: includes the umbrella <kops/{target}>")
                elif t != layer and t not in ALLOWED[layer]:
                    found.append(f"{rel}: layer '{layer}' includes <kops/{target}> (layer '{t}'); "
                                 f"allowed: {', '.join(sorted(ALLOWED[layer]))}")
    return found


def selftest():
    """A core header that includes an op must be reported, and only it."""
    with tempfile.TemporaryDirectory() as d:
        for rel, text in {
            "config.hpp": "",
            "core/formula.hpp": "#include <kops/config.hpp>\n",
            "core/bad.hpp": "#include <kops/ops/sum.hpp>\n",
            "ops/sum.hpp": "#include <kops/core/formula.hpp>\n",
            "backends/kokkos/eval.hpp": "#include <kops/lowering/lower.hpp>\n#  include \"kops/ops/exp.hpp\"\n",
            "kops.hpp": "#include <kops/ops/sum.hpp>\n",
        }.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)) or d, exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)
        v = violations(d)
        expected = ["core/bad.hpp", "backends/kokkos/eval.hpp"]
        ok = len(v) == 2 and all(any(x.startswith(e) for x in v) for e in expected)
        print("\n".join(v))
        print("selftest:", "ok" if ok else "FAILED")
        return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../include/kops")
    v = violations(os.path.abspath(root))
    for line in v:
        print(line)
    print(f"{len(v)} layer violation(s) in {os.path.abspath(root)}")
    return 1 if v else 0


if __name__ == "__main__":
    sys.exit(main())
