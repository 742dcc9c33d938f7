// The reduction tests of tests/common/reductions_body.hpp on the Kokkos CPU backend.
#include "test_support.hpp"

#include "../common/reductions_body.hpp"
