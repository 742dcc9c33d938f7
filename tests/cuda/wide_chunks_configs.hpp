// The configurations of the wide-variable tests on the GPU backend
// (wide_chunks_test.cu, wide_chunks_io_test.cu, wide_chunks_grad_test.cu,
// wide_chunks_grad_double_test.cu): GPU_1D in float, GPU_2D with small chunks
// in double. KOPS_WIDE_TYPE_ONLY (1: float, 2: double) keeps one of the two,
// for a file that stamps the other type elsewhere.
//
// The sanitizer builds (tools/sanitize.sh) run GPU_2D only: its kernel runs
// the same staged loop as GPU_1D's and the combine of the partial results too.
// The nvcc build of a machine without a GPU, which compiles and never runs it,
// compiles the double kernels only: both types took 264 s of nvcc on CI's
// machine (one file then), the float ones alone 202 s (their final chunks are
// 32 components wide, double's 16). KOPS_TEST_FEWER.
#pragma once

#define KOPS_WIDE_FLOAT (kops_test::cfg<kops_test::cuda_1d, float>)
#define KOPS_WIDE_DOUBLE (kops_test::cfg<kops_test::cuda_2d, double>)
#if defined(KOPS_TEST_FEWER) || (defined(KOPS_WIDE_TYPE_ONLY) && KOPS_WIDE_TYPE_ONLY == 2)
#define KOPS_TEST_CONFIGS_WIDE KOPS_WIDE_DOUBLE
#elif defined(KOPS_WIDE_TYPE_ONLY) && KOPS_WIDE_TYPE_ONLY == 1
#define KOPS_TEST_CONFIGS_WIDE KOPS_WIDE_FLOAT
#else
#define KOPS_TEST_CONFIGS_WIDE KOPS_WIDE_FLOAT, KOPS_WIDE_DOUBLE
#endif
