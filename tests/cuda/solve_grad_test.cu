// kops::solve_grad and the gradient w.r.t. a kops::tied cloud on the GPU
// backend: the common tests (tests/common/solve_grad_body.hpp) through
// kops::cuda::solve_host and kops::cuda::eval_host (automatic scheme, and
// GPU_2D with small chunks), plus the tied eval on device pointers and a user
// stream.
#include "cuda_support.hpp"

#include <span>

#include <kops/backends/cuda/solve.hpp>
#include <kops/backends/cuda/tied.hpp>
#include <kops/solve/grad.hpp>

namespace kops_test {

template <kops::cuda::scheme S, std::int64_t Chunk = 0>
struct cuda_grad_backend {
  static constexpr const char* name = "cuda";
  static kops::cuda::options launch() {
    kops::cuda::options o;
    o.scheme = S;
    o.gpu_2d_chunk = Chunk;
    return o;
  }
  template <class... A> static kops::solve_result solve(A... a) { return kops::cuda::solve_host(a..., launch()); }
  template <class... A> static void eval(A... a) { kops::cuda::eval_host(a..., launch()); }
};

} // namespace kops_test

#define KOPS_SOLVE_GRAD_CONFIGS                                                                     \
  (kops_test::cfg<kops_test::cuda_grad_backend<kops::cuda::scheme::automatic>, double>),            \
      (kops_test::cfg<kops_test::cuda_grad_backend<kops::cuda::scheme::gpu_2d, 5>, double>)

#include "../common/solve_grad_body.hpp"

namespace {

using device_vector = kops_test::device_copy<double>;

} // namespace

TEST_CASE("GPU tied eval: device pointers on a user stream give eval_host's sum", "[grad][tied]") {
  using namespace solve_grad_test;
  const std::vector<double> p = random_vector<double>(n * 3, 0, 1.5, 101);
  const std::vector<double> pb = random_vector<double>(n, -1, 1, 102), pe = random_vector<double>(n, -1, 1, 103);
  const std::vector<double> pg{scale};
  constexpr auto G = kops::grad(asym, kops::tied(x, y), e1);
  std::vector<double> expected(n * 3);
  kops::cuda::eval_host(G, n, n, expected.data(), p.data(), p.data(), pb.data(), pg.data(), pe.data());

  device_vector dp(p), db(pb), dg(pg), de(pe), dout(std::vector<double>(n * 3, 9.0));
  cudaStream_t stream = nullptr;
  kops::cuda::detail::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "test", "cudaStreamCreate");
  kops::cuda::options o;
  o.stream = stream;
  kops::cuda::eval(G, n, n, dout.p, dp.p, dp.p, db.p, dg.p, de.p, o);
  kops::cuda::detail::check(cudaStreamSynchronize(stream), "test", "cudaStreamSynchronize");
  (void)cudaStreamDestroy(stream);
  const std::vector<double> out = dout.to_host();
  for (std::size_t k = 0; k < out.size(); ++k) CHECK(kops_test::close(out[k], expected[k], 1e-12));
  // The range forms: N deduced, sizes checked (device spans for eval, vectors for eval_host).
  std::vector<double> by_ranges(n * 3, 9.0);
  kops::cuda::eval_host(G, by_ranges, p, p, pb, pg, pe);
  CHECK(by_ranges == expected);
  kops::cuda::eval(G, std::span<double>(dout.p, dout.n), std::span<const double>(dp.p, dp.n),
                   std::span<const double>(dp.p, dp.n), std::span<const double>(db.p, db.n),
                   std::span<const double>(dg.p, dg.n), std::span<const double>(de.p, de.n));
  kops::cuda::detail::check(cudaDeviceSynchronize(), "test", "cudaDeviceSynchronize");
  const std::vector<double> out2 = dout.to_host();
  for (std::size_t k = 0; k < out2.size(); ++k) CHECK(kops_test::close(out2[k], expected[k], 1e-12));

  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(kops::cuda::eval(G, n, n - 1, dout.p, dp.p, dp.p, db.p, dg.p, de.p),
                    Contains("kops::cuda::eval: the gradient w.r.t. a kops::tied cloud needs the cloud on both axes"));
  CHECK_THROWS_WITH(kops::cuda::eval_host(G, 3, 2, expected.data(), p.data(), p.data(), pb.data(), pg.data(),
                                          pe.data()),
                    Contains("kops::cuda::eval_host: the gradient w.r.t. a kops::tied cloud needs the cloud on both "
                             "axes, M (the number of i rows, 3) must equal N (the number of j rows, 2)"));
}
