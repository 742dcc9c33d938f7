// Variables of any width on the GPU backend, the second third of
// tests/common/wide_body.hpp (KOPS_WIDE_PART 2: wide outputs in chunks of
// components, batches and block-sparse calls, 16-bit storage at D = 784); the
// others are wide_chunks_test.cu and wide_chunks_grad_test.cu. Runs on a GPU
// and, built against kops::cuda_emulated, on CPU threads (ctest label
// gpu_emulated).
#include "cuda_support.hpp"

#define KOPS_WIDE_PART 2
#include "wide_chunks_configs.hpp"
#include "../common/wide_body.hpp"
