// Shared helpers of the GPU tests: the backend-neutral helpers of tests/common
// and the GPU backend configurations the common test bodies are stamped out
// for: kops::cuda::eval_host with the automatic scheme, and forced to GPU_1D
// and to GPU_2D (the latter with small chunks, so that even small problems
// cross many chunk boundaries and exercise the combining pass).
#pragma once

#include "../common/reference.hpp"
#include "../common/support.hpp"

#include <kops/cuda.hpp>

#include <vector>

namespace kops_test {

// Built against kops::cuda_emulated (ctest label gpu_emulated): the kernels run
// on CPU fibers, some 1e8 pairs/s, so the tests sized for a GPU shrink their
// largest problems (each place says what it keeps).
#if defined(KOPS_TEST_EMULATED)
inline constexpr bool emulated = true;
#else
inline constexpr bool emulated = false;
#endif

template <kops::cuda::scheme S, std::int64_t Chunk = 0, kops::precision P = kops::precision::accurate>
struct cuda_backend {
  static constexpr const char* name = "cuda";
  // Pol: further policies (not a precision: P is the configuration's).
  template <auto... Pol, class... A> static void eval(A... a) {
    kops::cuda::options o;
    o.scheme = S;
    o.gpu_2d_chunk = Chunk;
    kops::cuda::eval_host<P, Pol...>(a..., o);
  }
};

// A device copy of a host vector, or `count` elements of device memory set to
// a sentinel byte pattern (0x7f); freed at scope exit.
template <class T>
struct device_copy {
  T* p = nullptr;
  std::size_t n = 0;
  explicit device_copy(const std::vector<T>& h) : n(h.size()) {
    if (n == 0) return;
    kops::cuda::detail::check(cudaMalloc(&p, n * sizeof(T)), "test", "cudaMalloc");
    kops::cuda::detail::check(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "test", "cudaMemcpy");
  }
  explicit device_copy(std::size_t count) : n(count) {
    kops::cuda::detail::check(cudaMalloc(&p, n * sizeof(T)), "test", "cudaMalloc");
    kops::cuda::detail::check(cudaMemset(p, 0x7f, n * sizeof(T)), "test", "cudaMemset");
  }
  std::vector<T> to_host() const {
    std::vector<T> h(n);
    kops::cuda::detail::check(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "test", "cudaMemcpy");
    return h;
  }
  ~device_copy() { (void)cudaFree(p); }
  device_copy(const device_copy&) = delete;
  device_copy& operator=(const device_copy&) = delete;
};

using cuda_auto = cuda_backend<kops::cuda::scheme::automatic>;
using cuda_1d = cuda_backend<kops::cuda::scheme::gpu_1d>;
using cuda_2d = cuda_backend<kops::cuda::scheme::gpu_2d, 5>;

} // namespace kops_test

// The (backend, element type) configurations every backend-generic test body runs on.
// Compiled, never run (KOPS_TEST_COMPILE_ONLY: the nvcc build of a machine
// without a GPU, tools/test.sh): one configuration per element type. The
// scheme is a run-time option, so the three configurations of a type
// instantiate the same kernels; the other two add host code only.
#if defined(KOPS_TEST_COMPILE_ONLY)
#define KOPS_TEST_CONFIGS (kops_test::cfg<kops_test::cuda_auto, float>), (kops_test::cfg<kops_test::cuda_2d, double>)
#else
#define KOPS_TEST_CONFIGS                                                                         \
  (kops_test::cfg<kops_test::cuda_auto, float>), (kops_test::cfg<kops_test::cuda_auto, double>), \
      (kops_test::cfg<kops_test::cuda_1d, float>), (kops_test::cfg<kops_test::cuda_1d, double>), \
      (kops_test::cfg<kops_test::cuda_2d, float>), (kops_test::cfg<kops_test::cuda_2d, double>)
#endif

// For the formula-operation bodies: an op's value does not depend on the
// scheme, so one configuration per element type (GPU_1D for float, GPU_2D with
// small chunks for double) covers both kernels at a third of nvcc's time (the
// six configurations took 164 s to compile for the math-op body alone).
#define KOPS_TEST_CONFIGS_OPS \
  (kops_test::cfg<kops_test::cuda_1d, float>), (kops_test::cfg<kops_test::cuda_2d, double>)
