// The fast precision policy: same results as the accurate one within its
// documented error (exp relative error about 2 + 1.2|x| ulp), exp2 and the
// invariant folding of log2(e) included.
#include "test_support.hpp"

using namespace kops_test;

TEMPLATE_TEST_CASE("the fast policy matches a double loop within its error bound", "[precision]", float, double) {
  using T = TestType;
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
  const std::int64_t M = 77, N = 301;
  const auto px = random_vector<T>(M * 3, 0, 2, 91), py = random_vector<T>(N * 3, 0, 2, 92);
  const auto pb = random_vector<T>(N, -1, 1, 93);
  const std::vector<T> pg{T(3)};
  std::vector<T> fast(M), accurate(M);
  kops::kokkos::eval<kops::precision::fast>(conv, M, N, fast.data(), px.data(), py.data(), pb.data(), pg.data());
  kops::kokkos::eval(conv, M, N, accurate.data(), px.data(), py.data(), pb.data(), pg.data());
  // |x| <= 3 * 12 = 36 here: 2 + 1.2 * 36 ulp, about 45 ulp per term.
  const double ulp = std::numeric_limits<T>::epsilon();
  for (std::int64_t i = 0; i < M; ++i) {
    double s = 0, sabs = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int c = 0; c < 3; ++c) d2 += (double(px[i * 3 + c]) - py[j * 3 + c]) * (double(px[i * 3 + c]) - py[j * 3 + c]);
      const double t = std::exp(-3 * d2) * pb[j];
      s += t;
      sabs += std::abs(t);
    }
    INFO("row " << i);
    REQUIRE(std::abs(fast[i] - s) <= 50 * ulp * sabs + 4 * N * ulp * sabs);
    REQUIRE(std::abs(accurate[i] - s) <= 4 * N * ulp * sabs);
  }
}

TEST_CASE("exp2 is 2^x on every backend path, with its gradient", "[precision][ops]") {
  const std::vector<double> px{-3.5, 0, 0.25, 10};
  std::vector<double> out(4), fast(4);
  constexpr auto red = kops::sum_reduction(kops::exp2(kops::vi<0, 1>), kops::axis_j);
  kops::kokkos::eval(red, 4, 1, out.data(), px.data());
  kops::kokkos::eval<kops::precision::fast>(red, 4, 1, fast.data(), px.data());
  for (int i = 0; i < 4; ++i) {
    CHECK(out[i] == Approx(std::exp2(px[i])).epsilon(1e-15));
    CHECK(fast[i] == Approx(std::exp2(px[i])).epsilon(1e-13));
  }
  std::vector<double> d(4);
  const std::vector<double> ones(4, 1.0);
  kops::kokkos::eval(kops::grad(red, kops::vi<0, 1>, kops::vi<1, 1>), 4, 1, d.data(), px.data(), ones.data());
  for (int i = 0; i < 4; ++i) CHECK(d[i] == Approx(std::log(2.0) * std::exp2(px[i])).epsilon(1e-14));
}
