// Randomised differential tests, part 4 of 6: every 6th generated case,
// tests/differential/cases/cases_4.hpp (tests/differential/generate.py), forward cases
// on the Kokkos backend in double and float against the double reference
// evaluation, gradient cases in double against finite differences of it
// (tests/differential/runner.hpp).
#include "test_support.hpp"

#include "../differential/cases/cases_4.hpp"
#include "../differential/runner.hpp"

KOPS_DIFF_TEST("differential 4: random formulas, Kokkos vs the double reference", KOPS_DIFF_CASES_4)
