# Sourced by tools/sanitize.sh and tools/test_kokkos4.sh: the unit test files the
# second and third builds of the suite leave out (CI time), kept in one list.
#
# These files vary formulas, not buffers, threads or backends: the op groups'
# value/gradient tables, the generated differential formulas, the simplifier's
# laws, the gradient and derivative rules (gradients of one-pass reductions,
# the selecting ops' and the other reductions' derivatives), the ops, printing
# and KeOps's syntax parsed and printed. They run in the plain build
# (tools/test.sh); what the other builds keep holds the buffers, slices,
# temporaries, batches, structures and threading.
#
#   kops_unit_test_exclude [EXTRA]  prints the KOPS_UNIT_TEST_EXCLUDE regex:
#                                   the files above, plus the '|'-separated
#                                   EXTRA names (a build's own additions)
# shellcheck shell=bash

kops_formula_only_tests="math_ops|math_ops_grad|vector_ops|vector_ops_grad|complex_ops|kernels|calculus|differential_test_[0-9]+|simplify_laws|grad|select_grad|reduction_diff|reduction_grad_more|keops_syntax|ops|print"

kops_unit_test_exclude() {
  local names="$kops_formula_only_tests"
  if [ -n "${1:-}" ]; then names="$names|$1"; fi
  printf '/(%s)_?(test)?\\.cpp$' "$names"
}
