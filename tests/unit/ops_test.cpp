// The formula-operation tests of tests/common/ops_body.hpp on the Kokkos CPU backend.
#include "test_support.hpp"

#include "../common/ops_body.hpp"
