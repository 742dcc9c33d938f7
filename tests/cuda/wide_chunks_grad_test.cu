// Variables of any width on the GPU backend, the last third of
// tests/common/wide_body.hpp (KOPS_WIDE_PART 3: the gradients at D = 784,
// whose kernel is wide too, in final chunks), in float (GPU_1D); double is
// wide_chunks_grad_double_test.cu (the two types in one file took 3 minutes of
// nvcc for sm_90 here), the other parts wide_chunks_test.cu and
// wide_chunks_io_test.cu. Runs on a GPU and, built against kops::cuda_emulated,
// on CPU threads (ctest label gpu_emulated).
#include "cuda_support.hpp"

#if defined(KOPS_TEST_FEWER)
#define KOPS_WIDE_PART 0  // (fewer: double only, in wide_chunks_grad_double_test.cu)
#else
#define KOPS_WIDE_PART 3
#endif
#define KOPS_WIDE_TYPE_ONLY 1
#include "wide_chunks_configs.hpp"
#include "../common/wide_body.hpp"
