// extract, extract_t, elem, elem_t and concat: values against index
// arithmetic, gradients through the adjoint pairs.
#include <limits>

#include "test_support.hpp"

using namespace kops_test;

TEMPLATE_TEST_CASE("indexing ops pick and place components", "[ops]", float, double) {
  using T = TestType;
  constexpr auto x = kops::vi<0, 5>;
  constexpr auto b = kops::vi<1, 1>;
  const std::int64_t M = 21;
  const auto px = random_vector<T>(M * 5, -3, 3, 81), pb = random_vector<T>(M, -3, 3, 82);
  constexpr auto f = kops::concat(kops::extract<1, 3>(x), kops::elem<4>(x) * b) + kops::elem_t<4, 2>(b);
  static_assert(decltype(f)::dim == 4);
  std::vector<T> out(M * 4);
  kops::kokkos::eval(kops::sum_reduction(f, kops::axis_j), M, 1, out.data(), px.data(), pb.data());
  for (std::int64_t i = 0; i < M; ++i) {
    const T* r = &px[i * 5];
    CHECK(out[i * 4 + 0] == r[1]);
    CHECK(out[i * 4 + 1] == r[2]);
    CHECK(out[i * 4 + 2] == r[3] + pb[i]);
    CHECK(out[i * 4 + 3] == r[4] * pb[i]);
  }
}

TEST_CASE("indexing ops: gradients and simplifications", "[grad]") {
  constexpr auto x = kops::vi<0, 5>;
  constexpr auto w = kops::vi<1, 4>;
  // d/dx of w . concat(extract<1,3>(x), x_4^2) = (0, w0, w1, w2, 2 x_4 w3).
  constexpr auto s = kops::sum_reduction(kops::dot(kops::concat(kops::extract<1, 3>(x), kops::square(kops::elem<4>(x))), w), kops::axis_j);
  constexpr auto d = kops::grad(s, x, kops::vi<2, 1>);
  const std::vector<double> px{1, 2, 3, 4, 5}, pw{6, 7, 8, 9}, pe{1};
  std::vector<double> out(5);
  kops::kokkos::eval(d, 1, 1, out.data(), px.data(), pw.data(), pe.data());
  CHECK(out == std::vector<double>{0, 6, 7, 8, 2 * 5 * 9});
  static_assert(std::is_same_v<decltype(kops::extract<0, 5>(x)), std::remove_const_t<decltype(x)>>);
  static_assert(std::is_same_v<decltype(kops::extract<2, 1>(kops::extract_t<2, 5>(kops::vi<3, 1>))),
                               kops::Var<kops::category::i, 3, 1>>);
  CHECK(kops::to_keops_string(kops::elem<2>(x)) == "Extract(Var(0,5,0),2,1)");
  CHECK(kops::to_string(kops::concat(x, x)) == "concat(vi<0,5>,vi<0,5>)");
}

TEST_CASE("a formula that reads no variable takes its element type from the output", "[reductions]") {
  std::vector<double> out(3);
  kops::kokkos::eval(kops::sum_reduction(kops::cst<2> / kops::cst<3>, kops::axis_j), 3, 6, out.data());
  for (double v : out) CHECK(v == Approx(4.0));
  // Index outputs: value_index<T> gives T; std::int64_t alone computes in double.
  // Every term is equal, so the first index (0, 1, 2 for k-min) wins.
  std::vector<kops::value_index<float>> both(3 * 2 * 3);
  kops::kokkos::eval(kops::kmin_argkmin_reduction<3>(kops::zero<2>, kops::axis_j), 3, 6, both.data());
  for (std::size_t k = 0; k < both.size(); ++k) {
    CHECK(both[k].value == 0.0f);
    CHECK(both[k].index == std::int64_t(k % 6) / 2);
  }
  std::vector<std::int64_t> idx(4, -7);
  kops::kokkos::eval(kops::argmax_reduction(kops::cst<-1>, kops::axis_i), 5, 4, idx.data());
  CHECK(idx == std::vector<std::int64_t>(4, 0));
  std::vector<kops::value_index<double>> mm(2);
  kops::kokkos::eval(kops::min_argmin_reduction(kops::cst<3>, kops::axis_j), 2, 0, mm.data());  // empty range
  CHECK(mm[0].value == std::numeric_limits<double>::infinity());
  CHECK(mm[0].index == -1);
}
