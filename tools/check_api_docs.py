#!/usr/bin/env python3
"""Fails when a public name of kops has no documentation in the API reference.

Reads the XML that Doxygen writes next to the HTML (tools/docs.sh runs it) and
checks, in namespace kops and every public namespace inside it (kops::kokkos,
kops::cuda, ...: the implementation namespaces are excluded from the reference
by docs/Doxyfile):

1. every function (each overload) has a brief or detailed description, except
   the few internal helpers listed in INTERNAL below;
2. every name in REQUIRED (variables, types, concepts, entry points) is in the
   reference and documented;
3. every builder the headers declare (a namespace-scope `constexpr auto NAME(`
   outside namespace detail, the rule of tests/docs/formulas_table.py) is in the
   reference: a declaration Doxygen failed to parse would otherwise vanish
   without a warning.

usage: check_api_docs.py <repository root> [<xml dir>]   (default build/docs/api/xml)
Prints the number of documented public functions.
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
xml_dir = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else root / "build" / "docs" / "api" / "xml"
# Public namespaces whose documentation is still being written: reported as a
# note, not an error. Remove an entry once its header has /// comments.
PENDING = {}

# Functions of namespace kops that are helpers of the builders, not API: they
# stay undocumented, hence out of the reference.
INTERNAL = {
    "kops::bcast": "component k of a broadcast operand (core/vec.hpp)",
    "kops::broadcastable": "the {1, D} dim rule, used in static_asserts",
    "kops::complex_broadcastable": "the complex dim rule, used in static_asserts",
    "kops::fit_dim": "sums a gradient over broadcast components (vjp helper)",
    "kops::make_constant": "the canonical node of a folded constant",
    "kops::max_index": "largest argument index of a formula (backends, solve)",
    "kops::uses_category": "whether a formula reads a variable category",
}

# Names that must be documented, whatever their kind (functions included, so a
# renamed or vanished entry point is noticed).
REQUIRED = [
    # variables, constants, concepts, axes
    "kops::vi", "kops::vj", "kops::pm", "kops::cst", "kops::zero", "kops::category",
    "kops::Formula", "kops::Variable", "kops::ReductionType", "kops::Axis",
    "kops::axis_i", "kops::axis_j", "kops::value_index",
    # policies
    "kops::precision", "kops::sum_scheme", "kops::dtype_acc", "kops::block_sum_length",
    "kops::default_sum_scheme",
    # errors
    "kops::error",
    # derivatives, printing
    "kops::grad", "kops::diff", "kops::grad_matrix", "kops::divergence", "kops::laplacian",
    "kops::factorize", "kops::sum_rows", "kops::to_string", "kops::to_keops_string",
    "kops::keops_reduced_formula", "kops::keops_formula2", "kops::keops_reduction_op",
    "kops::keops_opt_arg", "kops::keops_axis", "kops::keops_formula", "kops::keops_reduction",
    # reductions
    "kops::sum_reduction", "kops::min_reduction", "kops::max_reduction",
    "kops::argmin_reduction", "kops::argmax_reduction", "kops::min_argmin_reduction",
    "kops::max_argmax_reduction", "kops::kmin_reduction", "kops::argkmin_reduction",
    "kops::kmin_argkmin_reduction", "kops::logsumexp_reduction",
    "kops::sumsoftmaxweight_reduction",
    # operators
    "kops::operator+", "kops::operator-", "kops::operator*", "kops::operator/",
    # backends and solve
    "kops::kokkos::eval", "kops::kokkos::solve",
    "kops::cuda::eval", "kops::cuda::eval_host", "kops::cuda::solve", "kops::cuda::solve_host",
    "kops::cuda::options", "kops::cuda::scheme", "kops::cuda_error",
    "kops::solve_options", "kops::solve_result", "kops::is_linear_in_v",
]


def text(e):
    return "".join(e.itertext()).strip() if e is not None else ""


def documented(e):
    return bool(text(e.find("briefdescription")) or text(e.find("detaileddescription")))


index = xml_dir / "index.xml"
if not index.is_file():
    sys.exit(f"check_api_docs: {index} not found (run tools/docs.sh)")


def public_namespace(name):
    return name == "kops" or name.startswith("kops::")


errors = []
notes = []
namespaces_seen = set()
docs = {}        # qualified name -> list of bools (one per overload / entity)
kinds = {}       # qualified name -> kind
functions = []   # (qualified name, argsstring, documented, location)
for comp in ET.parse(index).getroot().findall("compound"):
    kind, name = comp.get("kind"), comp.findtext("name")
    if kind in ("class", "struct", "concept") and public_namespace(name.rsplit("::", 1)[0]):
        cd = ET.parse(xml_dir / (comp.get("refid") + ".xml")).getroot().find("compounddef")
        docs.setdefault(name, []).append(documented(cd))
        kinds[name] = kind
    if kind != "namespace" or not public_namespace(name):
        continue
    if name in PENDING:
        notes.append(f"namespace {name} is not checked yet: {PENDING[name]}")
        continue
    cd = ET.parse(xml_dir / (comp.get("refid") + ".xml")).getroot().find("compounddef")
    namespaces_seen.add(name)
    if not documented(cd):
        # An undocumented namespace gets no page: its functions would not be shown.
        errors.append(f"namespace {name} has no documentation (a /// comment on one `namespace {name} {{`)")
    for m in cd.iter("memberdef"):
        q = name + "::" + m.findtext("name")
        d = documented(m)
        docs.setdefault(q, []).append(d)
        kinds[q] = m.get("kind")
        if m.get("kind") == "function":
            loc = m.find("location")
            where = f"{loc.get('file')}:{loc.get('line')}" if loc is not None else "?"
            functions.append((q, m.findtext("argsstring") or "", d, where))

for ns in sorted({"kops", "kops::kokkos", "kops::cuda"} - namespaces_seen):
    errors.append(f"namespace {ns} is not in the reference")
for q, args, d, where in functions:
    if not d and q not in INTERNAL:
        errors.append(f"{where}: {q}{args} has no documentation (a /// comment on its declaration)")
for q in REQUIRED:
    if q not in docs:
        errors.append(f"{q} is not in the reference (renamed, removed, or not parsed by Doxygen?)")
    elif not all(docs[q]):
        errors.append(f"{q}: {docs[q].count(False)} of {len(docs[q])} declarations have no documentation")

# Builders declared in the headers, as tests/docs/formulas_table.py finds them.
builder = re.compile(r"^(?:template\s*<[^;{]*>\s*)?constexpr\s+(?:auto|[A-Z]\w*(?:<[^>]*>)?)\s+([a-z][a-z0-9_]*)\s*\(")
inc = root / "include" / "kops"
headers = [p for d in ("ops", "reductions", "autodiff") for p in (inc / d).rglob("*.hpp")]
headers.append(inc / "core" / "factorize.hpp")
for path in sorted(headers):
    depth = 0
    for line in path.read_text().splitlines():
        if re.match(r"^namespace (kops::)?detail\s*\{", line):
            depth += 1
            continue
        if depth and re.match(r"^\}\s*//\s*namespace (kops::)?detail", line):
            depth -= 1
            continue
        m = None if depth else builder.match(line)
        if m and ("kops::" + m.group(1)) not in docs and ("kops::" + m.group(1)) not in INTERNAL:
            errors.append(f"{path.relative_to(root)}: builder {m.group(1)} is missing from the reference")

for n in notes:
    print("check_api_docs: note:", n)
for e in errors:
    print("check_api_docs:", e)
public = [f for f in functions if f[0] not in INTERNAL]
names = {f[0] for f in public}
print(f"check_api_docs: {sum(1 for f in public if f[2])} of {len(public)} public function declarations "
      f"documented ({len(names)} names), and {sum(1 for q in docs if kinds[q] != 'function' and all(docs[q]))} "
      f"documented types, variables and concepts; {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
