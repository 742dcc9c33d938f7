#!/usr/bin/env python3
"""Every KeOps string of the conformance corpus is a case of the keops_syntax tests.

tests/common/keops_syntax_cases.hpp lists KeOps strings with the C++ builder
expressions they must parse to (tests/static/keops_syntax.cpp asserts the type
identity, tests/unit/keops_syntax_test.cpp the round trip). The corpus builds its
strings at run time, so that list is a copy; this check, run on the golden files
the corpus generator writes, fails when a corpus case has a string the list lacks
(a new case: add it there, or below with the reason it cannot parse).

A case is covered when its keops_reduction string is a case of the list, or is
Sum_Reduction(F,axis) with F a formula case, or is several calls, or was parsed
from its string (keops_source).

It also checks the other direction, given the parser's header: every KeOps name
kops::keops_formula / keops_reduction accept (the op table of
include/kops/io/keops_syntax.hpp) is written, as a call, in some string the corpus
sends to pykeops (a case's stages, its printed calls, or a string case), except
the names listed in NOT_SENT with the reason.

usage: keops_syntax_coverage.py <golden dir> <keops_syntax_cases.hpp> [<keops_syntax.hpp>]
"""
import json
import pathlib
import re
import sys

# Cases whose KeOps string is not KeOps' syntax, with the reason.
NOT_PARSED = {
    "factorize": "kops prints a factorized formula as its expansion, which parses to the unfactorized type",
    "grad_softdtw_x": "GradSoftDTW_SqDist: a kops node, not a KeOps operation",
    "grad_softdtw_y": "GradSoftDTW_SqDist: a kops node, not a KeOps operation",
}
# Names of the parser's op table that no corpus string sends to pykeops, with the reason.
NOT_SENT = {
    "Exp2": "a kops extension (2^x, the fast policy's exponential): keopscore 2.3 has no Exp2",
    "LogSumExpWeight_Reduction": "the corpus calls pykeops' LogSumExp with a weight (Genred's formula2)",
}
# Also not a case of the list: strings of several Genred calls ("A_Reduction(...); B_Reduction(...)",
# kops::keops_calls: kops's own reductions such as the gradients of min, max, logsumexp and
# sumsoftmaxweight, which KeOps computes in several calls), and the string cases
# (corpus_strings.cpp: "keops_source", parsed by construction).


def unsent_ops(cases, parser_header):
    """The op names of the parser's table written in no corpus string sent to pykeops."""
    names = re.findall(r'op_entry\{"([A-Za-z_0-9]+)"', pathlib.Path(parser_header).read_text())
    sent = []
    for c in cases:
        k = c.get("keops", {})
        for st in k.get("stages", []) + k.get("printed", []):
            sent += [st.get("formula", ""), st.get("formula2", ""), st.get("reduction_op", "") + "_Reduction("]
        sent.append(c.get("keops_source", "") or "")
    blob = "\n".join(sent)
    return [n for n in names if n not in NOT_SENT and not re.search(r"(?<![A-Za-z0-9_])" + re.escape(n) + r"\(", blob)]


def main(golden, cases_header, parser_header=None):
    cases = json.loads((pathlib.Path(golden) / "index.json").read_text())["cases"]
    listed = set(re.findall(r'keops_case<"([^"]*)"', pathlib.Path(cases_header).read_text()))
    missing = []
    for c in cases:
        s = c.get("keops_reduction", "")
        if c["id"] in NOT_PARSED or "; " in s or c.get("keops_source"):
            continue
        m = re.fullmatch(r"Sum_Reduction\((.*),[01]\)", s)
        if s not in listed and not (m and m.group(1) in listed):
            missing.append(c["id"])
    for i in missing:
        print(f"keops_syntax_coverage: corpus case {i}: its KeOps string is not in {cases_header}", file=sys.stderr)
    print(f"keops_syntax_coverage: {len(cases)} corpus cases, {len(missing)} missing, "
          f"{len(NOT_PARSED)} not KeOps' syntax")
    unsent = unsent_ops(cases, parser_header) if parser_header else []
    for n in unsent:
        print(f"keops_syntax_coverage: the parser's {n} is in no corpus string sent to pykeops "
              f"(add a case to tests/conformance/corpus_strings.cpp, or to NOT_SENT with the reason)", file=sys.stderr)
    if parser_header:
        print(f"keops_syntax_coverage: every KeOps name of the parser sent to pykeops but {len(unsent)} "
              f"(and {len(NOT_SENT)} exempt)")
    return 1 if missing or unsent else 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
