// The range form of kops::kokkos::eval and kops::kokkos::solve
// (detail/sized.hpp): the backend-generic body, plus what only the Kokkos
// backend takes (Kokkos::View) and the containers that convert to std::span.
#include "test_support.hpp"

#include <array>

#include "../common/ranges_body.hpp"

namespace {

using Catch::Matchers::Contains;
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);

TEST_CASE("kokkos range form: std::vector, std::array and Kokkos::View in place of pointers", "[ranges]") {
  constexpr std::int64_t M = 20, N = 31;
  const auto px = kops_test::random_vector<double>(M * 3, -1, 1, 1);
  const auto py = kops_test::random_vector<double>(N * 3, -1, 1, 2);
  const auto pb = kops_test::random_vector<double>(N, -1, 1, 3);
  std::vector<double> want(M);
  kops::kokkos::eval(conv, M, N, want.data(), px.data(), py.data(), pb.data());

  std::vector<double> got(M);
  kops::kokkos::eval(conv, got, px, py, pb);  // containers, as std::span takes them
  CHECK(got == want);

  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> vx("x", M, 3), vy("y", N, 3);
  Kokkos::View<double*, Kokkos::HostSpace> vb("b", N), vout("out", M);
  for (std::int64_t k = 0; k < M * 3; ++k) vx.data()[k] = px[std::size_t(k)];
  for (std::int64_t k = 0; k < N * 3; ++k) vy.data()[k] = py[std::size_t(k)];
  for (std::int64_t k = 0; k < N; ++k) vb(k) = pb[std::size_t(k)];
  kops::kokkos::eval(conv, vout, vx, vy, vb);
  for (std::int64_t i = 0; i < M; ++i) CHECK(vout(i) == want[std::size_t(i)]);

  // A rank-2 view's columns are checked against the variable's dim.
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> wide("x4", M, 4);
  REQUIRE_THROWS_WITH(kops::kokkos::eval(conv, vout, wide, vy, vb),
                      Contains("kops::kokkos::eval: argument 0 (vi<0,3>) has 4 columns, expected 3"));
  // A parameter in a std::array.
  const auto gauss_g = kops::sum_reduction(kops::exp(-kops::pm<3, 1> * kops::sqdist(x, y)) * b, kops::axis_j);
  const std::array<double, 1> g{1.0};
  kops::kokkos::eval(gauss_g, got, px, py, pb, g);
  CHECK(got == want);
}

TEST_CASE("kokkos range form: solve deduces N and checks a and b", "[ranges][solve]") {
  constexpr std::int64_t N = 40;
  constexpr auto a_var = kops::vj<2, 1>;
  constexpr auto K = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * a_var, kops::axis_j);
  const auto px = kops_test::random_vector<double>(N * 3, -1, 1, 1);
  const auto pb = kops_test::random_vector<double>(N, -1, 1, 3);
  std::vector<double> want(N), got(N);
  const auto r_p = kops::kokkos::solve(K, a_var, 0.5, N, N, want.data(), px.data(), px.data(), pb.data());
  const auto r_r = kops::kokkos::solve(K, a_var, 0.5, got, px, px, pb);
  CHECK(r_r.converged == r_p.converged);
  CHECK(r_r.iterations == r_p.iterations);
  CHECK(got == want);
  std::vector<double> short_a(N - 1);
  REQUIRE_THROWS_WITH(kops::kokkos::solve(K, a_var, 0.5, short_a, px, px, pb),
                      Contains("kops::kokkos::solve: the solution a holds 39 values, expected N x 1 = 40"));
  const std::vector<double> short_b(pb.begin(), pb.end() - 1);
  REQUIRE_THROWS_WITH(kops::kokkos::solve(K, a_var, 0.5, got, px, px, short_b),
                      Contains("kops::kokkos::solve: argument 2 (vj<2,1>) holds 39 values, expected N x 1 = 40"));
}

} // namespace
