// 16-bit storage on the GPU backend: the backend-generic body of
// tests/common/half_body.hpp (GPU_1D in half, GPU_2D with small chunks in
// bfloat16: the 16-bit reads are in the tile loads and register gathers both
// schemes share, the conversions of the output in both finalizes), and CUDA's
// own types: arrays of __half / __nv_bfloat16 passed as they are. Runs on a
// GPU and, built against kops::cuda_emulated, on CPU threads (ctest label
// gpu_emulated).
#include <cuda_bf16.h>  // before kops: kops then reads __half / __nv_bfloat16 arrays
#include <cuda_fp16.h>

#include "cuda_support.hpp"

#include <vector>

// (The sanitizer builds, tools/sanitize.sh, run GPU_2D in bfloat16 only: GPU_1D
// is the same reduce kernel without the combine, which other tests run there;
// so does the nvcc build of a machine without a GPU: KOPS_TEST_FEWER.)
#if defined(KOPS_TEST_FEWER)
#define KOPS_TEST_CONFIGS_16 (kops_test::cfg<kops_test::cuda_2d, kops::bfloat16>)
#else
#define KOPS_TEST_CONFIGS_16 \
  (kops_test::cfg<kops_test::cuda_1d, kops::half>), (kops_test::cfg<kops_test::cuda_2d, kops::bfloat16>)
#endif
#include "../common/half_body.hpp"

static_assert(sizeof(__half) == sizeof(kops::half) && alignof(__half) == alignof(kops::half));
static_assert(sizeof(__nv_bfloat16) == sizeof(kops::bfloat16) && alignof(__nv_bfloat16) == alignof(kops::bfloat16));
static_assert(std::is_same_v<kops::detail::storage_alias_t<const __half>, kops::half>);
static_assert(std::is_same_v<kops::detail::storage_alias_t<__nv_bfloat16>, kops::bfloat16>);

TEST_CASE("16-bit storage (GPU): CUDA's __half and __nv_bfloat16 arrays, device pointers", "[half]") {
  // The same bits as kops::half / kops::bfloat16: a call on CUDA's types
  // writes what the call on kops's writes, and an output of CUDA's type too.
  const std::int64_t M = 40, N = 70;
  const auto x = kops_test::random_vector<double>(std::size_t(M * 2), -1, 1, 3);
  const auto y = kops_test::random_vector<double>(std::size_t(N * 2), -1, 1, 4);
  const auto red = kops::sum_reduction(kops::exp(-kops::sqdist(kops::vi<0, 2>, kops::vj<1, 2>)), kops::axis_j);
  std::vector<__half> xh, yh;
  std::vector<kops::half> xk, yk;
  std::vector<__nv_bfloat16> xb, yb;
  for (double v : x) xh.push_back(__float2half_rn(float(v))), xk.emplace_back(float(v)), xb.push_back(__float2bfloat16_rn(float(v)));
  for (double v : y) yh.push_back(__float2half_rn(float(v))), yk.emplace_back(float(v)), yb.push_back(__float2bfloat16_rn(float(v)));
  std::vector<float> want(static_cast<std::size_t>(M)), got(static_cast<std::size_t>(M));
  kops::cuda::eval_host(red, M, N, want.data(), xk.data(), yk.data());
  kops::cuda::eval_host(red, M, N, got.data(), xh.data(), yh.data());
  CHECK(got == want);
  std::vector<__half> out_h(static_cast<std::size_t>(M));
  kops::cuda::eval_host(red, M, N, out_h.data(), xh.data(), yh.data());
  for (std::int64_t i = 0; i < M; ++i) CHECK(__half2float(out_h[std::size_t(i)]) == float(kops::half(want[std::size_t(i)])));

  // Device pointers of __nv_bfloat16, the output in float.
  __nv_bfloat16 *dx = nullptr, *dy = nullptr;
  float* dout = nullptr;
  REQUIRE(cudaMalloc(&dx, xb.size() * sizeof(__nv_bfloat16)) == cudaSuccess);
  REQUIRE(cudaMalloc(&dy, yb.size() * sizeof(__nv_bfloat16)) == cudaSuccess);
  REQUIRE(cudaMalloc(&dout, std::size_t(M) * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMemcpy(dx, xb.data(), xb.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(dy, yb.data(), yb.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice) == cudaSuccess);
  kops::cuda::eval(red, M, N, dout, dx, dy);
  REQUIRE(cudaMemcpy(got.data(), dout, std::size_t(M) * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  std::vector<kops::bfloat16> xkb, ykb;
  for (double v : x) xkb.emplace_back(float(v));
  for (double v : y) ykb.emplace_back(float(v));
  kops::cuda::eval_host(red, M, N, want.data(), xkb.data(), ykb.data());
  CHECK(got == want);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dout);
}
