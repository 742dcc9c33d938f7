// The k-min stress tests of tests/common/kmin_stress_body.hpp on the GPU
// backend (its scalar test against the last slot; the CPU's pack test runs
// the same body in tests/unit/kmin_stress_test.cpp).
#include "cuda_support.hpp"

#include "../common/kmin_stress_body.hpp"
