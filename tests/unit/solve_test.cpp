// kops::kokkos::solve: the common solve tests (tests/common/solve_body.hpp) on
// the CPU backend, plus the compile-time linearity rule and CPU-only cases.
#include "test_support.hpp"

#include <kops/backends/kokkos/solve.hpp>
#include <kops/solve/linear.hpp>

namespace kops_test {

struct kokkos_solver {
  static constexpr const char* name = "kokkos";
  template <class... A> static kops::solve_result solve(A... a) { return kops::kokkos::solve(a...); }
};

} // namespace kops_test

#define KOPS_SOLVE_CONFIGS \
  (kops_test::cfg<kops_test::kokkos_solver, float>), (kops_test::cfg<kops_test::kokkos_solver, double>)

#include "../common/solve_body.hpp"

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 2>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto k = kops::exp(-g * kops::sqdist(x, y));

template <class F, class V>
constexpr bool linear(F, V) {
  return kops::is_linear_in_v<F, V>;
}

} // namespace

TEST_CASE("solve: the linearity rule accepts formulas linear in the unknown and rejects the others", "[solve]") {
  STATIC_REQUIRE(linear(k * b, b));
  STATIC_REQUIRE(linear(b * k, b));
  STATIC_REQUIRE(linear(-(k * b), b));
  STATIC_REQUIRE(linear(k * b + b * kops::sqdist(x, y), b));
  STATIC_REQUIRE(linear(k * b - b / (g + kops::cst<1>), b));
  STATIC_REQUIRE(linear(b, b));
  STATIC_REQUIRE_FALSE(linear(k * b * b, b));
  STATIC_REQUIRE_FALSE(linear(k * kops::exp(b), b));
  STATIC_REQUIRE_FALSE(linear(k / b, b));
  STATIC_REQUIRE_FALSE(linear(k * kops::abs(b), b));
  STATIC_REQUIRE_FALSE(linear(kops::sqnorm2(b) * k, b));
  // It must read the unknown at all: a formula free of it is constant in it.
  STATIC_REQUIRE_FALSE(linear(k, b));
  // linear in b, not in the points
  STATIC_REQUIRE_FALSE(linear(k * b, x));
}

TEST_CASE("solve: the fast precision policy solves the same system", "[solve]") {
  using namespace solve_test;
  const auto px = random_vector<double>(n * 3, 0, 2, 91);
  const auto pb = random_vector<double>(n * 2, -1, 1, 92);
  const std::vector<double> pg{scale};
  std::vector<double> a(n * 2);
  const auto res = kops::kokkos::solve<kops::precision::fast>(conv_j<2>, kops::vj<2, 2>, alpha, n, n, a.data(),
                                                              px.data(), px.data(), pb.data(), pg.data());
  CHECK(res.converged);
  const auto K = gauss_matrix(px, n, scale);
  CHECK(true_relative_residual(K, n, 2, alpha, a, pb) <= 1e-8);
}

TEST_CASE("solve: takes eval's policies, in any order, and passes them to the products with K", "[solve]") {
  using namespace solve_test;
  const auto px = random_vector<float>(n * 3, 0, 2, 96);
  const auto pb = random_vector<float>(n * 2, -1, 1, 97);
  const std::vector<float> pg{float(scale)};
  std::vector<float> a(n * 2), swapped(n * 2);
  const auto res = kops::kokkos::solve<kops::precision::fast, kops::sum_scheme::kahan, kops::dtype_acc::float64>(
      conv_j<2>, kops::vj<2, 2>, alpha, n, n, a.data(), px.data(), px.data(), pb.data(), pg.data());
  CHECK(res.converged);
  const auto K = gauss_matrix(px, n, scale);
  CHECK(true_relative_residual(K, n, 2, alpha, a, pb) <= 1e-3);
  // The same policies in another order: the same products, the same iterates.
  const auto again = kops::kokkos::solve<kops::dtype_acc::float64, kops::sum_scheme::kahan, kops::precision::fast>(
      conv_j<2>, kops::vj<2, 2>, alpha, n, n, swapped.data(), px.data(), px.data(), pb.data(), pg.data());
  CHECK(again.iterations == res.iterations);
  CHECK(swapped == a);
  // Each product is the eval with those policies: K a from eval<...> agrees
  // with b - alpha a to the solve's tolerance.
  std::vector<float> Ka(n * 2);
  kops::kokkos::eval<kops::sum_scheme::kahan, kops::precision::fast, kops::dtype_acc::float64>(
      conv_j<2>, n, n, Ka.data(), px.data(), px.data(), a.data(), pg.data());
  double rr = 0, bb = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const double r = double(pb[k]) - alpha * double(a[k]) - double(Ka[k]);
    rr += r * r;
    bb += double(pb[k]) * double(pb[k]);
  }
  CHECK(std::sqrt(rr / bb) <= 1e-3);
}

TEST_CASE("solve: a negative definite system (alpha < -|K|) is solved too", "[solve]") {
  // CG only needs definiteness; -(alpha Id + K) is SPD here. KeOps does not
  // reject alpha < 0 either.
  using namespace solve_test;
  const auto px = random_vector<double>(n * 3, 0, 2, 93);
  const auto pb = random_vector<double>(n, -1, 1, 94);
  const std::vector<double> pg{scale};
  std::vector<double> a(n);
  const double neg = -2.0 * double(n);  // |K| <= n: every eigenvalue of alpha Id + K is < -n
  const auto res = kops::kokkos::solve(conv_j<1>, kops::vj<2, 1>, neg, n, n, a.data(), px.data(), px.data(),
                                       pb.data(), pg.data());
  CHECK(res.converged);
  const auto K = gauss_matrix(px, n, scale);
  CHECK(true_relative_residual(K, n, 1, neg, a, pb) <= 1e-8);
}

TEST_CASE("solve: alpha = 0 solves K a = b for a positive definite K", "[solve]") {
  // Points far apart (spacing 1, scale 2): K is close to Id, well conditioned.
  using namespace solve_test;
  constexpr std::int64_t m = 40;
  std::vector<double> px(m * 3);
  for (std::int64_t i = 0; i < m; ++i) {
    px[i * 3] = double(i % 4);
    px[i * 3 + 1] = double((i / 4) % 5);
    px[i * 3 + 2] = double(i / 20);
  }
  const auto pb = random_vector<double>(m, -1, 1, 95);
  const std::vector<double> pg{scale};
  std::vector<double> a(m);
  const auto res = kops::kokkos::solve(conv_j<1>, kops::vj<2, 1>, 0.0, m, m, a.data(), px.data(), px.data(),
                                       pb.data(), pg.data());
  CHECK(res.converged);
  const auto K = gauss_matrix(px, m, scale);
  CHECK(true_relative_residual(K, m, 1, 0.0, a, pb) <= 1e-8);
  CHECK(relative_error(a, dense_solve(K, m, 1, 0.0, pb)) <= 1e-8);
}
