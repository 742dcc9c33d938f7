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

usage: keops_syntax_coverage.py <golden dir> <keops_syntax_cases.hpp>
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
# Also not a case of the list: strings of several Genred calls ("A_Reduction(...); B_Reduction(...)",
# kops::keops_calls: kops's own reductions such as the gradients of min, max, logsumexp and
# sumsoftmaxweight, which KeOps computes in several calls), and the string cases
# (corpus_strings.cpp: "keops_source", parsed by construction).


def main(golden, cases_header):
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
    return 1 if missing else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
