// kops::solve_grad and the gradient w.r.t. a kops::tied cloud on the CPU
// backend: the common tests (tests/common/solve_grad_body.hpp), plus the
// compile-time shapes of the builders and the run-time checks of a tied eval.
#include "test_support.hpp"

#include <kops/backends/kokkos/solve.hpp>
#include <kops/backends/kokkos/tied.hpp>
#include <kops/solve/grad.hpp>

namespace kops_test {

struct kokkos_grad_backend {
  static constexpr const char* name = "kokkos";
  template <class... A> static kops::solve_result solve(A... a) { return kops::kokkos::solve(a...); }
  template <class... A> static void eval(A... a) { kops::kokkos::eval(a...); }
};

} // namespace kops_test

#define KOPS_SOLVE_GRAD_CONFIGS (kops_test::cfg<kops_test::kokkos_grad_backend, double>)

#include "../common/solve_grad_body.hpp"

namespace {

using namespace solve_grad_test;
template <class A> using type_of = std::remove_const_t<A>;
using X = type_of<decltype(x)>;
using Y = type_of<decltype(y)>;
using E = type_of<decltype(e)>;

} // namespace

TEST_CASE("tied: either order names the same cloud; the gradient is the x_i part and the y_j part", "[grad][tied]") {
  STATIC_REQUIRE(std::is_same_v<decltype(kops::tied(x, y)), kops::Tied<X, Y>>);
  STATIC_REQUIRE(std::is_same_v<decltype(kops::tied(y, x)), kops::Tied<X, Y>>);
  using G = decltype(kops::grad(K, kops::tied(x, y), e));
  STATIC_REQUIRE(kops::TiedReduction<G>);
  STATIC_REQUIRE(std::is_same_v<G::row_i, decltype(kops::grad(K, x, e))>);
  STATIC_REQUIRE(std::is_same_v<G::row_j, decltype(kops::grad(K, y, e))>);
  STATIC_REQUIRE(G::dim == 3);
  STATIC_REQUIRE(G::nargs == 5);
  STATIC_REQUIRE_FALSE(kops::ReductionType<G>);  // evaluated by the tied overloads only
  STATIC_REQUIRE_FALSE(kops::TiedReduction<type_of<decltype(K)>>);
}

TEST_CASE("solve_grad: minus the reduction's gradient, rows of the variable, the solve's arguments plus e",
          "[solve][grad]") {
  constexpr auto dx = kops::solve_grad(K, b, x, e);
  constexpr auto dy = kops::solve_grad(K, b, y, e);
  constexpr auto dg = kops::solve_grad(K, b, g, e);
  STATIC_REQUIRE(std::is_same_v<type_of<decltype(dx)>::formula,
                                decltype(-typename decltype(kops::grad(K, x, e))::formula{})>);
  STATIC_REQUIRE(dx.row_cat == kops::category::i);
  STATIC_REQUIRE(dy.row_cat == kops::category::j);
  STATIC_REQUIRE(dg.row_cat == kops::category::i);  // per-row contributions
  STATIC_REQUIRE(dx.dim == 3 && dy.dim == 3 && dg.dim == 1);
  STATIC_REQUIRE(dx.nargs == 5 && dy.nargs == 5 && dg.nargs == 5);
  using T = decltype(kops::solve_grad(K, b, kops::tied(x, y), e));
  STATIC_REQUIRE(kops::TiedReduction<T>);
  STATIC_REQUIRE(std::is_same_v<T::row_i, type_of<decltype(dx)>>);
  STATIC_REQUIRE(std::is_same_v<T::row_j, type_of<decltype(dy)>>);
}

TEST_CASE("tied eval: M != N is a kops::error before anything is written", "[grad][tied][errors]") {
  std::vector<double> p(12 * 3, 0.5), pb(12, 1.0), pe(12, 1.0), pg{scale}, out(12 * 3, 7.0);
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(kops::kokkos::eval(kops::grad(asym, kops::tied(x, y), e1), 12, 10, out.data(), p.data(),
                                       p.data(), pb.data(), pg.data(), pe.data()),
                    Contains("kops::kokkos::eval: the gradient w.r.t. a kops::tied cloud needs the cloud on both "
                             "axes, M (the number of i rows, 12) must equal N (the number of j rows, 10)"));
  CHECK(out == std::vector<double>(12 * 3, 7.0));
  // The parts' own checks: a null cloud pointer.
  const double* null = nullptr;
  CHECK_THROWS_WITH(kops::kokkos::eval(kops::grad(asym, kops::tied(x, y), e1), 12, 12, out.data(), p.data(), null,
                                       pb.data(), pg.data(), pe.data()),
                    Contains("kops::kokkos::eval: argument 1"));
  CHECK(out == std::vector<double>(12 * 3, 7.0));
}

TEST_CASE("tied eval: the range form deduces N and checks every size", "[grad][tied][ranges]") {
  std::vector<double> p = random_vector<double>(12 * 3, 0, 1.5, 71), pb = random_vector<double>(12, -1, 1, 72);
  const std::vector<double> pe = random_vector<double>(12, -1, 1, 73), pg{scale};
  std::vector<double> want(12 * 3), got(12 * 3, 7.0);
  constexpr auto G = kops::grad(asym, kops::tied(x, y), e1);
  kops::kokkos::eval(G, 12, 12, want.data(), p.data(), p.data(), pb.data(), pg.data(), pe.data());
  kops::kokkos::eval(G, got, p, p, pb, pg, pe);
  CHECK(got == want);
  std::vector<double> short_out(12 * 3 - 1);
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(kops::kokkos::eval(G, short_out, p, p, pb, pg, pe),
                    Contains("kops::kokkos::eval: the output holds 35 values, expected M x 3 = 36"));
}

TEST_CASE("tied eval: the policies and a block-sparse structure reach both parts", "[grad][tied][block_sparse]") {
  // Every pair kept (one block of rows, one interval): the dense result; the
  // kahan sum with a float64 accumulator gives it to rounding.
  std::vector<double> p = random_vector<double>(n * 3, 0, 1.5, 91);
  const std::vector<double> pb = random_vector<double>(n, -1, 1, 92), pe = random_vector<double>(n, -1, 1, 93);
  const std::vector<double> pg{scale};
  std::vector<double> dense(n * 3), sparse(n * 3), kahan(n * 3);
  constexpr auto G = kops::grad(asym, kops::tied(x, y), e1);
  kops::kokkos::eval(G, n, n, dense.data(), p.data(), p.data(), pb.data(), pg.data(), pe.data());
  const kops::range all{0, n};
  const std::int64_t one = 1;
  kops::kokkos::eval(G, n, n, sparse.data(), p.data(), p.data(), pb.data(), pg.data(), pe.data(),
                     kops::block_sparsity{&all, 1, &one, &all, kops::sparsity_axis::i});
  kops::kokkos::eval<kops::sum_scheme::kahan, kops::dtype_acc::float64>(G, n, n, kahan.data(), p.data(), p.data(),
                                                                        pb.data(), pg.data(), pe.data());
  for (std::size_t k = 0; k < dense.size(); ++k) {
    CHECK(close(sparse[k], dense[k], 1e-12));
    CHECK(close(kahan[k], dense[k], 1e-12));
  }
  // A structure that keeps nothing: both parts are empty sums, the sum is 0.
  const std::int64_t none = 0;
  kops::kokkos::eval(G, n, n, sparse.data(), p.data(), p.data(), pb.data(), pg.data(), pe.data(),
                     kops::block_sparsity{&all, 1, &none, &all, kops::sparsity_axis::i});
  CHECK(std::all_of(sparse.begin(), sparse.end(), [](double v) { return v == 0; }));
}
