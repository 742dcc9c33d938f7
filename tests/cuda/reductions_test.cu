// The reduction tests of tests/common/reductions_body.hpp on the GPU backend
// (automatic scheme, GPU_1D, GPU_2D; float and double).
#include "cuda_support.hpp"

#include "../common/reductions_body.hpp"
