// Variables of any width on the GPU backend: wide_chunks_grad_test.cu's
// gradients at D = 784 in final chunks (KOPS_WIDE_PART 3 of
// tests/common/wide_body.hpp), in double (GPU_2D with small chunks). Runs on a
// GPU and, built against kops::cuda_emulated, on CPU threads (ctest label
// gpu_emulated).
#include "cuda_support.hpp"

#define KOPS_WIDE_PART 3
#define KOPS_WIDE_TYPE_ONLY 2
#include "wide_chunks_configs.hpp"
#include "../common/wide_body.hpp"
