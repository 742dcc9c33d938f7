// Gradients of logsumexp (plain and weighted) and sumsoftmaxweight w.r.t. a row
// variable and a parameter, against central finite differences of
// S = sum_rows e_r . out_r in double; argkmin's zero gradient; the dims and
// printing of the new reductions.
#include "test_support.hpp"

using namespace kops_test;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 2>;
constexpr auto s = kops::pm<3, 1>;
constexpr auto f = kops::dot(x, y) - s * kops::sqdist(x, y);

struct data {
  std::int64_t M = 19, N = 23;
  std::vector<double> px = random_vector<double>(M * 3, -1, 1, 91), py = random_vector<double>(N * 3, -1, 1, 92);
  std::vector<double> pb = random_vector<double>(N * 2, 0.5, 2, 93), ps{1.3};
};

// Checks grad(red, v, e) against finite differences, v = x (argument 0) or s (argument 3).
template <class Red, class V>
void check(Red red, V v, data& d) {
  constexpr int D = Red::dim;
  constexpr auto e = kops::vi<4, D>;
  const auto pe = random_vector<double>(d.M * D, -1, 1, 94);
  std::vector<double> out(d.M * D);
  const auto total = [&] {
    kops::kokkos::eval(red, d.M, d.N, out.data(), d.px.data(), d.py.data(), d.pb.data(), d.ps.data());
    double t = 0;
    for (std::int64_t n = 0; n < d.M * D; ++n) t += out[n] * pe[n];
    return t;
  };
  constexpr auto gr = kops::grad(red, v, e);
  constexpr bool reduced = V::cat == kops::category::j;  // a variable of the reduced axis: N rows
  static_assert(decltype(gr)::dim == V::dim &&
                decltype(gr)::row_cat == (reduced ? kops::category::j : kops::category::i));
  std::vector<double> g((reduced ? d.N : d.M) * V::dim);
  kops::kokkos::eval(gr, d.M, d.N, g.data(), d.px.data(), d.py.data(), d.pb.data(), d.ps.data(), pe.data());
  std::vector<double>& pv = V::cat == kops::category::param ? d.ps : reduced ? d.py : d.px;
  const double h = 1e-6;
  if constexpr (V::cat == kops::category::param) {
    double sym;
    kops::sum_rows(g.data(), d.M, 1, &sym);
    pv[0] += h;
    const double tp = total();
    pv[0] -= 2 * h;
    const double tm = total();
    pv[0] += h;
    REQUIRE(close(sym, (tp - tm) / (2 * h), 1e-6));
  } else if constexpr (reduced) {
    // every output row depends on every y_j: one pair of evaluations per component
    for (std::int64_t j = 0; j < d.N; ++j)
      for (int c = 0; c < 3; ++c) {
        pv[j * 3 + c] += h;
        const double tp = total();
        pv[j * 3 + c] -= 2 * h;
        const double tm = total();
        pv[j * 3 + c] += h;
        INFO("row " << j << " component " << c << "\n  gradient " << kops::to_string(gr));
        REQUIRE(close(g[j * 3 + c], (tp - tm) / (2 * h), 1e-6));
      }
  } else {
    // out_r depends on x_r only: perturbing component c of every row at once
    // gives every row's derivative in one pair of evaluations.
    for (int c = 0; c < 3; ++c) {
      std::vector<double> tp(d.M), tm(d.M);
      const auto rows = [&](std::vector<double>& t) {
        kops::kokkos::eval(red, d.M, d.N, out.data(), d.px.data(), d.py.data(), d.pb.data(), d.ps.data());
        for (std::int64_t i = 0; i < d.M; ++i) {
          t[i] = 0;
          for (int k = 0; k < D; ++k) t[i] += out[i * D + k] * pe[i * D + k];
        }
      };
      for (std::int64_t i = 0; i < d.M; ++i) pv[i * 3 + c] += h;
      rows(tp);
      for (std::int64_t i = 0; i < d.M; ++i) pv[i * 3 + c] -= 2 * h;
      rows(tm);
      for (std::int64_t i = 0; i < d.M; ++i) pv[i * 3 + c] += h;
      for (std::int64_t i = 0; i < d.M; ++i) {
        INFO("row " << i << " component " << c << "\n  gradient " << kops::to_string(gr));
        REQUIRE(close(g[i * 3 + c], (tp[i] - tm[i]) / (2 * h), 1e-6));
      }
    }
  }
}

} // namespace

TEST_CASE("logsumexp gradients match finite differences", "[grad][reductions]") {
  data d;
  constexpr auto lse = kops::logsumexp_reduction(f, kops::axis_j);
  SECTION("w.r.t. x") { check(lse, x, d); }
  SECTION("w.r.t. a parameter") { check(lse, s, d); }
  SECTION("w.r.t. y, a variable of the reduced axis (two passes)") { check(lse, y, d); }
  // A weight that depends on x as well, so both parts of the identity count.
  constexpr auto lsew = kops::logsumexp_reduction(f, b * (kops::cst<1> + kops::square(kops::elem<0>(x))), kops::axis_j);
  SECTION("weighted, w.r.t. x") { check(lsew, x, d); }
  SECTION("weighted, w.r.t. a parameter") { check(lsew, s, d); }
  SECTION("weighted, w.r.t. y (two passes)") { check(lsew, y, d); }
}

TEST_CASE("sumsoftmaxweight gradients match finite differences", "[grad][reductions]") {
  data d;
  constexpr auto ssw = kops::sumsoftmaxweight_reduction(f, b * kops::sum(x), kops::axis_j);
  SECTION("w.r.t. x") { check(ssw, x, d); }
  SECTION("w.r.t. a parameter") { check(ssw, s, d); }
  SECTION("w.r.t. y, a variable of the reduced axis (two passes)") { check(ssw, y, d); }
  // a weight that depends on y too
  constexpr auto ssw2 = kops::sumsoftmaxweight_reduction(f, b * kops::sum(y), kops::axis_j);
  SECTION("weight depending on y, w.r.t. y (two passes)") { check(ssw2, y, d); }
}

TEST_CASE("new reductions: dims, zero gradients and printing", "[reductions][print]") {
  constexpr auto d = x - y;
  static_assert(decltype(kops::kmin_reduction<4>(d, kops::axis_j))::dim == 12);
  static_assert(decltype(kops::argkmin_reduction<4>(d, kops::axis_j))::dim == 12);
  static_assert(decltype(kops::min_argmin_reduction(d, kops::axis_i))::dim == 3);
  static_assert(decltype(kops::logsumexp_reduction(f, kops::axis_j))::dim == 1);
  static_assert(decltype(kops::logsumexp_reduction(f, b, kops::axis_j))::dim == 2);
  static_assert(decltype(kops::sumsoftmaxweight_reduction(f, b, kops::axis_j))::dim == 2);
  static_assert(decltype(kops::grad(kops::argkmin_reduction<2>(d, kops::axis_j), x, kops::vi<4, 6>))::no_work);
  static_assert(decltype(kops::grad(kops::logsumexp_reduction(kops::dot(y, y), kops::axis_j), x, kops::vi<4, 1>))::no_work);
  // A two-pass gradient lists every argument either pass reads (here the
  // gradient input, read by the second pass only).
  using G2 = std::remove_const_t<decltype(kops::grad(kops::logsumexp_reduction(kops::dot(x, y) - kops::sqnorm2(y), kops::axis_j), y,
                                                     kops::vi<2, 1>))>;
  static_assert(G2::nargs == 3 && std::is_same_v<G2::signature::at<2>, kops::Var<kops::category::i, 2, 1>>);

  CHECK(kops::to_string(kops::kmin_reduction<4>(d, kops::axis_j)) == "kmin_reduction<4>((vi<0,3>-vj<1,3>), axis_j)");
  CHECK(kops::to_keops_string(kops::argkmin_reduction<4>(d, kops::axis_i)) == "ArgKMin_Reduction((Var(0,3,0)-Var(1,3,1)),4,1)");
  CHECK(kops::keops_opt_arg(kops::kmin_argkmin_reduction<4>(d, kops::axis_i)) == 4);
  CHECK(kops::keops_reduction_op(kops::min_argmin_reduction(d, kops::axis_j)) == "Min_ArgMin");
  constexpr auto w = kops::sumsoftmaxweight_reduction(kops::dot(x, y), b, kops::axis_j);
  CHECK(kops::to_string(w) == "sumsoftmaxweight_reduction(" + kops::to_string(kops::dot(x, y)) + ", vj<2,2>, axis_j)");
  CHECK(kops::keops_reduced_formula(w) == kops::to_keops_string(kops::dot(x, y)));
  CHECK(kops::keops_formula2(w) == "Var(2,2,1)");
  CHECK(kops::keops_formula2(kops::logsumexp_reduction(kops::dot(x, y), kops::axis_j)) == "");
  CHECK(kops::to_keops_string(kops::logsumexp_reduction(kops::dot(x, y), b, kops::axis_i)) ==
        "LogSumExp_Reduction(" + kops::to_keops_string(kops::dot(x, y)) + ",1,Var(2,2,1))");
}
