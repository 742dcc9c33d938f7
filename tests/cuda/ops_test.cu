// The formula-operation tests of tests/common/ops_body.hpp on the GPU backend
// (automatic scheme, GPU_1D, GPU_2D; float and double).
#include "cuda_support.hpp"

#include "../common/ops_body.hpp"
