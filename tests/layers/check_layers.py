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
# An op: a struct NAME_op of ops/ or reductions/ (not their detail/ helpers,
# which are accumulation machinery: scheme sums, chunked accumulators).
OP_DEF = re.compile(r'\bstruct\s+([A-Za-z0-9_]+_op)\b')
COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)


def op_names(root):
    """The ops that ops/ and reductions/ define (their top-level headers)."""
    names = set()
    for folder in ("ops", "reductions"):
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".hpp"):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    names.update(OP_DEF.findall(f.read()))
    return names


def layer_of(rel):
    """The layer of a path relative to include/kops: its first folder, or
    "config" for config.hpp, or None for a top-level umbrella header."""
    parts = rel.split("/")
    if len(parts) == 1:
        return "config" if parts[0] == "config.hpp" else None
    return parts[0]


def violations(root):
    found = []
    ops = op_names(root)
    names_op = re.compile(r'\b(' + '|'.join(sorted(ops)) + r')\b') if ops else None
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
            if layer == "backends" and names_op is not None:
                # A backend never names an op (code, not comments): what it needs
                # to know of one comes through lowering/ (lowering/plan.hpp).
                for op in sorted(set(names_op.findall(COMMENT.sub("", text)))):
                    found.append(f"{rel}: a backend names the op '{op}' (ask lowering/, e.g. lowering/plan.hpp)")
            for target in INCLUDE.findall(text):
                t = layer_of(target)
                if t is None:
                    found.append(f"{rel}: includes the umbrella <kops/{target}>")
                elif t != layer and t not in ALLOWED[layer]:
                    found.append(f"{rel}: layer '{layer}' includes <kops/{target}> (layer '{t}'); "
                                 f"allowed: {', '.join(sorted(ALLOWED[layer]))}")
    return found


def selftest():
    """A core header that includes an op, a backend that includes one and a
    backend that names one in code must be reported, and only they."""
    with tempfile.TemporaryDirectory() as d:
        for rel, text in {
            "config.hpp": "",
            "core/formula.hpp": "#include <kops/config.hpp>\n",
            "core/bad.hpp": "#include <kops/ops/sum.hpp>\n",
            "ops/sum.hpp": "#include <kops/core/formula.hpp>\nstruct sum_op {};\n",
            "backends/kokkos/eval.hpp": "#include <kops/lowering/lower.hpp>\n#  include \"kops/ops/exp.hpp\"\n",
            "backends/cuda/traits.hpp": "// a comment may say sum_op\nusing op = kops::sum_op;\n",
            "backends/cuda/fine.hpp": "// only a comment names sum_op\nusing op = kops::detail::scheme_sum_op;\n",
            "kops.hpp": "#include <kops/ops/sum.hpp>\n",
        }.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)) or d, exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)
        v = violations(d)
        expected = ["core/bad.hpp", "backends/kokkos/eval.hpp", "backends/cuda/traits.hpp"]
        ok = len(v) == 3 and all(any(x.startswith(e) for x in v) for e in expected)
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
