// Bad input with a defined outcome on the GPU backend: the backend-generic body
// (tests/common/bad_input_body.hpp) through GPU_1D and GPU_2D, the overlap check
// of eval on device pointers, and the summation schemes at N = 1e7.
#include "cuda_support.hpp"

#include <vector>

namespace kops_test {
template <class Backend> struct policy_eval;
template <kops::cuda::scheme S, std::int64_t Chunk, kops::precision P>
struct policy_eval<cuda_backend<S, Chunk, P>> {
  template <auto... Policy, class... A> static void eval(A... a) {
    kops::cuda::options o;
    o.scheme = S;
    o.gpu_2d_chunk = Chunk;
    kops::cuda::eval_host<P, Policy...>(a..., o);
  }
  static constexpr bool large_argmin = true;
};
// GPU_2D with kops' own chunking: the 4.9e9-pair test would need ~12 GB of
// scratch with cuda_2d's 5-index chunks. (kops' plan makes chunks of at least 4
// tiles, so reduced axes under 768 indices are one chunk and run as GPU_1D.)
using cuda_2d_auto = cuda_backend<kops::cuda::scheme::gpu_2d>;
} // namespace kops_test

#define KOPS_BAD_INPUT_CONFIGS                                                                       \
  (kops_test::cfg<kops_test::cuda_1d, float>), (kops_test::cfg<kops_test::cuda_2d_auto, float>), \
      (kops_test::cfg<kops_test::cuda_2d_auto, double>)

#include "../common/bad_input_body.hpp"

// Checked before any CUDA call: needs no GPU (the pointers are never dereferenced).
TEST_CASE("GPU: an output that overlaps an input is a kops::error", "[bad_input]") {
  using Catch::Matchers::Contains;
  constexpr auto red = kops::sum_reduction(kops::vi<0, 2> - kops::vj<1, 2>, kops::axis_j);
  float buf[64];
  REQUIRE_THROWS_WITH(kops::cuda::eval(red, 4, 4, buf + 7, buf, buf + 20),
                      Contains("kops::cuda::eval: the output array overlaps argument 0 (vi<0,2>)"));
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_2d;
  REQUIRE_THROWS_WITH(kops::cuda::eval(red, 4, 4, buf + 20, buf, buf + 20, o),
                      Contains("the output array overlaps argument 1 (vj<1,2>)"));
  REQUIRE_THROWS_AS(kops::cuda::eval<kops::sum_scheme::kahan>(red, 4, 4, buf + 27, buf, buf + 20, o), kops::error);
}

TEST_CASE("GPU: N = 1e7 in float, Kahan and float64 sums within 1e-6 through GPU_1D and GPU_2D", "[accuracy]") {
  using kops::dtype_acc;
  using kops::sum_scheme;
  constexpr auto xy = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  // Emulated, 1e6 terms (still where a plain float sum loses 1e-5).
  const std::int64_t N = kops_test::emulated ? 1000000 : 10000000;
  const std::vector<float> px{1.0f, 0.5f};
  const auto py = kops_test::random_vector<float>(std::size_t(N), 0.0, 1.0, 2024);
  double s = 0;
  for (float v : py) s += v;
  auto error = [&]<auto... Pol>(kops::cuda::scheme scheme) {
    std::vector<float> out(2);
    kops::cuda::options o;
    o.scheme = scheme;
    kops::cuda::eval_host<Pol...>(xy, 2, N, out.data(), px.data(), py.data(), o);
    return std::max(std::abs(out[0] - s) / s, std::abs(out[1] - 0.5 * s) / (0.5 * s));
  };
  for (auto scheme : {kops::cuda::scheme::gpu_1d, kops::cuda::scheme::gpu_2d}) {
    INFO(kops::cuda::to_string(scheme));
    CHECK(error.template operator()<sum_scheme::kahan>(scheme) < 1e-6);
    CHECK(error.template operator()<dtype_acc::float64>(scheme) < 1e-6);
    CHECK(error.template operator()<sum_scheme::kahan, dtype_acc::float64>(scheme) < 1e-6);
    CHECK(error.template operator()<sum_scheme::block>(scheme) < 5e-6);
  }
  // One thread walking 1e7 terms: the direct sum's error is the CPU's
  // (9.6e-6 for the emulated run's 1e6 terms of this seed).
  CHECK(error.template operator()<sum_scheme::direct>(kops::cuda::scheme::gpu_1d) > (kops_test::emulated ? 5e-6 : 1e-5));
}
