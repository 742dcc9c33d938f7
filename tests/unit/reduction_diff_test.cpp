// kops::diff on reductions (forward mode: the derivative of the output along a
// direction), against central finite differences of the output in double:
// out(v + h u) - out(v - h u) over 2h, every output row at once, for a row
// variable, a variable of the reduced axis and a parameter; sum, logsumexp
// (plain and weighted), sumsoftmaxweight, min, max, and the zero derivative of
// argmin / argkmin. Types: the axis and output dim are kept.
#include "test_support.hpp"

using namespace kops_test;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 2>;
constexpr auto s = kops::pm<3, 1>;
constexpr auto f = kops::dot(x, y) - s * kops::sqdist(x, y);

struct data {
  std::int64_t M = 17, N = 29;
  std::vector<double> px = random_vector<double>(M * 3, -1, 1, 71), py = random_vector<double>(N * 3, -1, 1, 72);
  std::vector<double> pb = random_vector<double>(N * 2, 0.5, 2, 73), ps{0.7};
};

// The direction: argument 4, of v's category and dim (a parameter: one value).
template <class V>
constexpr auto direction_of() {
  return kops::Var<V::cat, 4, V::dim>{};
}

// diff(red, v, u) against finite differences; u = direction_of<V>() or, with
// Scaled, exp(u) (a formula direction: the perturbation is h exp(u)).
template <bool Scaled = false, class Red, class V>
void check(Red red, V v, data& d) {
  constexpr int D = Red::dim;
  constexpr auto u0 = direction_of<V>();
  const auto u = [&] {
    if constexpr (Scaled) return kops::exp(u0);
    else return u0;
  }();
  constexpr auto dr = kops::diff(red, v, decltype(u){});
  static_assert(decltype(dr)::dim == D && decltype(dr)::row_cat == Red::row_cat &&
                std::is_same_v<typename decltype(dr)::axis, typename Red::axis>);
  std::vector<double>& pv = V::cat == kops::category::param ? d.ps : V::cat == kops::category::j ? d.py : d.px;
  const auto pu = random_vector<double>(pv.size(), -1, 1, 74);
  std::vector<double> step(pv.size());
  for (std::size_t n = 0; n < pv.size(); ++n) step[n] = Scaled ? std::exp(pu[n]) : pu[n];

  const std::int64_t rows = Red::row_cat == kops::category::i ? d.M : d.N;
  std::vector<double> got(rows * D), plus(rows * D), minus(rows * D);
  kops::kokkos::eval(dr, d.M, d.N, got.data(), d.px.data(), d.py.data(), d.pb.data(), d.ps.data(), pu.data());
  const double h = 1e-6;
  const auto at = [&](double t, std::vector<double>& out) {
    for (std::size_t n = 0; n < pv.size(); ++n) pv[n] += t * step[n];
    kops::kokkos::eval(red, d.M, d.N, out.data(), d.px.data(), d.py.data(), d.pb.data(), d.ps.data());
    for (std::size_t n = 0; n < pv.size(); ++n) pv[n] -= t * step[n];
  };
  at(h, plus);
  at(-h, minus);
  for (std::int64_t n = 0; n < rows * D; ++n) {
    INFO("output " << n << "\n  derivative " << kops::to_string(dr));
    REQUIRE(close(got[n], (plus[n] - minus[n]) / (2 * h), 1e-6));
  }
}

template <bool Scaled = false, class Red>
void check_every_variable(Red red) {
  data d;
  check<Scaled>(red, x, d);
  check<Scaled>(red, y, d);
  check<Scaled>(red, s, d);
}

} // namespace

TEST_CASE("diff of a sum reduction: the sum of the derivatives", "[reduction_diff]") {
  constexpr auto red = kops::sum_reduction(kops::exp(f) * b, kops::axis_j);
  check_every_variable(red);
  check_every_variable<true>(red);  // a formula direction
  // the rule itself: Sum(f) -> Sum(diff(f)), same axis
  constexpr auto u = kops::vi<4, 3>;
  using D = decltype(kops::diff(red, x, u));
  static_assert(std::is_same_v<D::op, kops::sum_op> && std::is_same_v<D::axis, kops::axis_tag<1>> &&
                std::is_same_v<D::formula, decltype(kops::diff(kops::exp(f) * b, x, u))>);
  check_every_variable(kops::sum_reduction(kops::exp(f) * b, kops::axis_i));
}

TEST_CASE("diff of logsumexp, plain and weighted: one softmax-weighted pass", "[reduction_diff]") {
  check_every_variable(kops::logsumexp_reduction(f, kops::axis_j));
  check_every_variable(kops::logsumexp_reduction(f, b * kops::exp(s * kops::elem<0>(x)), kops::axis_j));
  check_every_variable(kops::logsumexp_reduction(f, kops::axis_i));
}

TEST_CASE("diff of sumsoftmaxweight: <df g + dg> - <df><g>", "[reduction_diff]") {
  check_every_variable(kops::sumsoftmaxweight_reduction(f, b, kops::axis_j));
  check_every_variable(kops::sumsoftmaxweight_reduction(f, b * kops::sqnorm2(x - y), kops::axis_j));
  // a weight that does not depend on the variable: one plain softmax pass of dg
  data d;
  constexpr auto plain = kops::sumsoftmaxweight_reduction(kops::elem<0>(b) * s, x * kops::elem<1>(b), kops::axis_j);
  static_assert(std::is_same_v<decltype(kops::diff(plain, x, kops::vi<4, 3>))::op, kops::sumsoftmaxweight_op>);
  check(plain, x, d);
}

TEST_CASE("diff of min and max: the derivative where each component is best", "[reduction_diff]") {
  check_every_variable(kops::min_reduction(kops::sqdist(x, y) * s, kops::axis_j));
  check_every_variable(kops::max_reduction(f, kops::axis_j));
  // two components, each taken at its own index
  check_every_variable(kops::min_reduction(kops::concat(kops::sqdist(x, y), f), kops::axis_j));
  check_every_variable(kops::max_reduction(kops::concat(f, kops::dot(x, y) * s), kops::axis_i));
}

TEST_CASE("diff of argmin, argmax, argkmin: zero (KeOps' Zero_Reduction)", "[reduction_diff]") {
  constexpr auto u = kops::vi<4, 3>;
  constexpr auto am = kops::diff(kops::argmin_reduction(f, kops::axis_j), x, u);
  static_assert(decltype(am)::no_work && decltype(am)::dim == 1);
  constexpr auto ak = kops::diff(kops::argkmin_reduction<3>(kops::concat(f, f), kops::axis_j), x, u);
  static_assert(decltype(ak)::no_work && decltype(ak)::dim == 6 && decltype(ak)::nargs == 5);
  data d;
  std::vector<double> out(d.M * 6, 1.0);
  const auto pu = random_vector<double>(d.M * 3, -1, 1, 75);
  kops::kokkos::eval(ak, d.M, d.N, out.data(), d.px.data(), d.py.data(), d.pb.data(), d.ps.data(), pu.data());
  for (double v : out) REQUIRE(v == 0.0);
  // a formula that does not depend on the variable: the zero reduction too
  static_assert(decltype(kops::diff(kops::sum_reduction(b, kops::axis_j), x, u))::no_work);
}

// KeOps' syntax: Diff and Grad take a reduction as their first argument (the
// result is a reduction): the same types as kops::diff / kops::grad.
namespace {
constexpr auto kx = kops::vi<0, 3>;
constexpr auto ky = kops::vj<1, 3>;
constexpr auto kb = kops::vj<2, 1>;
constexpr auto gauss = kops::sum_reduction(kops::exp(-kops::sqdist(kx, ky)) * kb, kops::axis_j);
template <class A, class B>
constexpr bool same = std::is_same_v<std::remove_cvref_t<A>, std::remove_cvref_t<B>>;
static_assert(same<decltype(kops::keops_reduction<"Diff(Sum_Reduction(Exp(-SqDist(X,Y))*B,0),X,U)",
                                                            "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)", "U=Vi(3)">),
                             decltype(kops::diff(gauss, kx, kops::vi<3, 3>))>);
static_assert(same<decltype(kops::keops_reduction<"Grad(Sum_Reduction(Exp(-SqDist(X,Y))*B,0),Y,E)",
                                                            "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)", "E=Vi(1)">),
                             decltype(kops::grad(gauss, ky, kops::vi<3, 1>))>);
static_assert(same<decltype(kops::keops_reduction<"Diff(LogSumExp_Reduction((X|Y),0),Y,Var(3,3,1))",
                                                            "X=Vi(3)", "Y=Vj(3)">),
                             decltype(kops::diff(kops::logsumexp_reduction(kops::dot(kx, ky), kops::axis_j), ky,
                                                 kops::vj<3, 3>))>);
} // namespace

TEST_CASE("keops_reduction: Diff of a reduction from its string is the finite difference", "[reduction_diff]") {
  data d;
  check(kops::keops_reduction<"SumSoftMaxWeight_Reduction((X|Y)-S*SqDist(X,Y),0,B)", "X=Vi(3)", "Y=Vj(3)",
                              "B=Vj(2)", "S=Pm(1)">,
        y, d);
}
