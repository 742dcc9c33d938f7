// Row variables wider than 256 bytes are staged in shared memory, with a
// smaller block (kernel_traits.hpp: shared_rows): the layouts, block sizes and
// shared-memory budget, and the results of sums, extrema and a gradient
// against the host reference, both axes, GPU_1D and GPU_2D, sizes that leave
// the last block and tile partial.
#include "cuda_support.hpp"

#include <cmath>
#include <limits>
#include <vector>

using namespace kops_test;

namespace {

template <class Red, class T>
using traits = kops::cuda::detail::kernel_traits<Red, T, kops::precision::accurate>;

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

TEST_CASE("wide rows: staged in shared memory with a smaller block, within 48 KiB", "[wide]") {
  using narrow = traits<decltype(wide_gauss<64>(kops::axis_j)), float>;      // 256 bytes: registers
  using wide_f = traits<decltype(wide_gauss<100>(kops::axis_j)), float>;     // 400 bytes
  using wide_d = traits<decltype(wide_gauss<40>(kops::axis_j)), double>;     // 320 bytes
  using too_wide = traits<decltype(wide_gauss<256>(kops::axis_j)), double>;  // 2 KiB: 32 rows do not fit
  STATIC_REQUIRE(!narrow::shared_rows);
  STATIC_REQUIRE(narrow::block == 192);
  STATIC_REQUIRE(wide_f::shared_rows);
  STATIC_REQUIRE(wide_f::block == 64);   // 64 x 400 B = 25 KiB <= 36 KiB; 128 would not fit
  STATIC_REQUIRE(wide_d::shared_rows);
  STATIC_REQUIRE(wide_d::block == 64);   // 64 x 320 B = 20 KiB
  STATIC_REQUIRE(!too_wide::shared_rows);
  STATIC_REQUIRE(wide_f::shared_bytes <= wide_f::max_shared_bytes);
  STATIC_REQUIRE(wide_d::shared_bytes <= wide_d::max_shared_bytes);
  STATIC_REQUIRE(wide_f::shared_bytes ==
                 std::size_t(wide_f::tile) * wide_f::red_dims * sizeof(float) + 64 * 100 * sizeof(float));
}

TEMPLATE_TEST_CASE("wide rows: sums over both axes match the host reference", "[wide]", float, double) {
  using T = TestType;
  constexpr int D = sizeof(T) == 4 ? 100 : 40;
  // M = 130: the last block of 64 rows is partial; N = 301: the last tile too.
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
    // Over i, x is the reduced variable and y (with b) the staged row: b must be (M, 1) then.
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
  constexpr auto dconv = kops::grad(conv, x, kops::vi<3, 1>);  // (M, D) rows: x and e staged
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
