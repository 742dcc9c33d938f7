// Batched calls (kops::batch, kops::per_batch) on the GPU backend: the
// backend-generic body of tests/common/batch_body.hpp through
// kops::cuda::eval_host (GPU_1D and GPU_2D forced: a batched call runs every
// batch in one launch, the batch on the grid's z axis), plus device pointers
// with more batches than the grid's z extent (65535). Runs on a GPU and,
// built against kops::cuda_emulated, on CPU threads (ctest label gpu_emulated).
#include "cuda_support.hpp"

// GPU_1D in float and GPU_2D (small chunks) in double only: the automatic
// scheme may plan a batched call otherwise than one batch (it counts every
// batch's rows), and the body compares bit for bit; the kernels do not depend
// on the element type (the CPU body runs both types).
#undef KOPS_TEST_CONFIGS
#define KOPS_TEST_CONFIGS (kops_test::cfg<kops_test::cuda_1d, float>), (kops_test::cfg<kops_test::cuda_2d, double>)

#include "../common/batch_body.hpp"

TEST_CASE("batch (GPU): device pointers, more batches than the grid's z extent", "[batch]") {
  // 65537 batches of one row and two terms: x_b * (y_b0 + y_b1) with y
  // shared, x per batch; exact in float. Emulated (65537 blocks of fibers take
  // a minute there), the grid's z extent is lowered to 3 and B is 11.
  struct grid_limit {
    unsigned saved = kops::cuda::detail::max_batch_grid();
    grid_limit() {
      if (emulated) kops::cuda::detail::max_batch_grid() = 3;
    }
    ~grid_limit() { kops::cuda::detail::max_batch_grid() = saved; }
  } limit;
  const std::int64_t B = emulated ? 11 : 65537, M = 1, N = 2;
  std::vector<float> px(static_cast<std::size_t>(B)), py{1.0f, 2.0f};
  for (std::int64_t b = 0; b < B; ++b) px[std::size_t(b)] = float(b % 1000);
  float *dx = nullptr, *dy = nullptr, *dout = nullptr;
  REQUIRE(cudaMalloc(&dx, px.size() * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&dy, py.size() * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&dout, std::size_t(B) * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMemcpy(dx, px.data(), px.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(dy, py.data(), py.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  const auto red = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  for (auto scheme : {kops::cuda::scheme::gpu_1d, kops::cuda::scheme::gpu_2d}) {
    REQUIRE(cudaMemset(dout, 0xff, std::size_t(B) * sizeof(float)) == cudaSuccess);
    kops::cuda::options o;
    o.scheme = scheme;
    o.gpu_2d_chunk = 1;
    kops::cuda::eval(red, M, N, dout, kops::per_batch(dx), dy, kops::batch{B}, o);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<float> out(static_cast<std::size_t>(B));
    REQUIRE(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
    std::int64_t wrong = 0;
    for (std::int64_t b = 0; b < B; ++b) wrong += out[std::size_t(b)] != float(b % 1000) * 3.0f;
    CHECK(wrong == 0);
  }
  (void)cudaFree(dx);
  (void)cudaFree(dy);
  (void)cudaFree(dout);
}
