// Wide variables (320-800 bytes per row: registers spill on a GPU, tiles hold
// few indices): sums, extrema and a gradient against the host reference, both
// axes, GPU_1D and GPU_2D, sizes that leave the last block and tile partial.
#include "cuda_support.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace kops_test;

namespace {

template <int D>
constexpr auto wide_gauss(auto axis) {
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto b = kops::vj<2, 1>;
  return kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, axis);
}

kops::cuda::options opts(kops::cuda::scheme s, std::int64_t chunk = 0) {
  kops::cuda::options o;
  o.scheme = s;
  o.gpu_2d_chunk = chunk;
  return o;
}

} // namespace

TEMPLATE_TEST_CASE("wide rows: sums over both axes match the host reference", "[wide]", float, double) {
  using T = TestType;
  constexpr int D = sizeof(T) == 4 ? 100 : 40;
  // M = 130, N = 301: the last block and the last tile are partial.
  for (auto [M, N] : {std::pair<std::int64_t, std::int64_t>{130, 301}, {301, 130}}) {
    const auto px = random_vector<T>(M * D, 0, 0.1, 91), py = random_vector<T>(N * D, 0, 0.1, 92);
    const auto pbj = random_vector<T>(N, -1, 1, 93), pbi = random_vector<T>(M, -1, 1, 94);
    const auto check = [&](auto red, std::int64_t rows, const std::vector<T>& pb) {
      std::vector<double> ref(rows);
      reference_eval<double>(red, M, N, ref.data(), px.data(), py.data(), pb.data());
      for (auto o : {opts(kops::cuda::scheme::gpu_1d), opts(kops::cuda::scheme::gpu_2d, 37)}) {
        std::vector<T> out(rows, std::numeric_limits<T>::quiet_NaN());
        kops::cuda::eval_host(red, M, N, out.data(), px.data(), py.data(), pb.data(), o);
        for (std::int64_t r = 0; r < rows; ++r) {
          INFO(kops::cuda::to_string(o.scheme) << " M=" << M << " N=" << N << " row " << r);
          REQUIRE(close(out[r], ref[r], sizeof(T) == 4 ? 1e-4 : 1e-11));
        }
      }
    };
    check(wide_gauss<D>(kops::axis_j), M, pbj);
    // Over i, x is the reduced variable and y the row: b must be (M, 1) then.
    constexpr auto x = kops::vi<0, D>;
    constexpr auto y = kops::vj<1, D>;
    constexpr auto bi = kops::vi<2, 1>;
    check(kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * bi, kops::axis_i), N, pbi);
  }
}

TEST_CASE("wide rows: argmin and the x-gradient match the host reference", "[wide]") {
  constexpr int D = 80;  // float: 320 bytes of row
  constexpr std::int64_t M = 70, N = 200;
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto b = kops::vj<2, 1>;
  const auto px = random_vector<float>(M * D, 0, 0.1, 95), py = random_vector<float>(N * D, 0, 0.1, 96);
  const auto pb = random_vector<float>(N, -1, 1, 97), pe = random_vector<float>(M, -1, 1, 98);

  constexpr auto am = kops::argmin_reduction(kops::sqdist(x, y), kops::axis_j);
  std::vector<std::int64_t> iref(M), iout(M);
  reference_eval<float>(am, M, N, iref.data(), px.data(), py.data());
  kops::cuda::eval_host(am, M, N, iout.data(), px.data(), py.data(), opts(kops::cuda::scheme::gpu_2d, 29));
  CHECK(iout == iref);

  constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  constexpr auto dconv = kops::grad(conv, x, kops::vi<3, 1>);  // (M, D): a wide output too
  std::vector<double> gref(M * D);
  reference_eval<double>(dconv, M, N, gref.data(), px.data(), py.data(), pb.data(), pe.data());
  std::vector<float> gout(M * D);
  kops::cuda::eval_host(dconv, M, N, gout.data(), px.data(), py.data(), pb.data(), pe.data(),
                        opts(kops::cuda::scheme::gpu_1d));
  for (std::int64_t k = 0; k < M * D; ++k) {
    INFO("component " << k);
    REQUIRE(close(gout[k], gref[k], 1e-4));
  }
}
