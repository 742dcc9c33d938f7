// kops::keops_formula / keops_reduction at run time: the parsed formulas print the
// KeOps strings they were parsed from (the round trip: with the static test's
// parse(s) == the builders' type, print(parse(s)) == s), and a parsed reduction
// evaluates to the double loop of its math.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <string>

#include "../common/keops_syntax_cases.hpp"

using namespace kops_test;

namespace {

template <class C, bool Reduction>
void check_round_trip() {
  const std::string s(C::keops.s);
  if constexpr (Reduction) {
    INFO(s);
    CHECK(kops::to_keops_string(kops::keops_reduction<C::keops>) == s);
  } else {
    INFO(s);
    CHECK(kops::to_keops_string(kops::keops_formula<C::keops>) == s);
  }
}

} // namespace

TEST_CASE("keops_formula: every corpus formula prints the string it was parsed from", "[keops_syntax]") {
  []<class... C>(kops::type_list<C...>) { (check_round_trip<C, false>(), ...); }(keops_syntax::formula_cases{});
  []<class... C>(kops::type_list<C...>) { (check_round_trip<C, true>(), ...); }(keops_syntax::reduction_cases{});
}

TEST_CASE("keops_reduction: the Gaussian sum from its string is the double loop", "[keops_syntax]") {
  // out_i = sum_j exp(-g |x_i - y_j|^2) b_j, the aliases numbering the arguments g, x, y, b.
  constexpr auto red = kops::keops_reduction<"Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0)", "G=Pm(1)", "X=Vi(3)",
                                             "Y=Vj(3)", "B=Vj(2)">;
  const std::int64_t M = 17, N = 23;
  const std::vector<double> pg{0.7};
  const auto px = random_vector<double>(M * 3, -1, 1, 61), py = random_vector<double>(N * 3, -1, 1, 62);
  const auto pb = random_vector<double>(N * 2, -1, 1, 63);
  std::vector<double> out(M * 2);
  kops::kokkos::eval(red, M, N, out.data(), pg.data(), px.data(), py.data(), pb.data());
  for (std::int64_t i = 0; i < M; ++i)
    for (int c = 0; c < 2; ++c) {
      double ref = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        double d2 = 0;
        for (int k = 0; k < 3; ++k) d2 += (px[i * 3 + k] - py[j * 3 + k]) * (px[i * 3 + k] - py[j * 3 + k]);
        ref += std::exp(-pg[0] * d2) * pb[j * 2 + c];
      }
      CHECK(close(out[i * 2 + c], ref, 1e-12));
    }
}

TEST_CASE("keops_reduction: k nearest neighbours over i from its string are the sorted distances", "[keops_syntax]") {
  // KMin_ArgKMin over i (axis 1): for each y_j, the 3 smallest |x_i - y_j|^2 and their i.
  constexpr auto red = kops::keops_reduction<"KMin_ArgKMin_Reduction(SqDist(X,Y),3,1)", "X=Vi(3)", "Y=Vj(3)">;
  const std::int64_t M = 29, N = 11;
  const auto px = random_vector<double>(M * 3, -1, 1, 64), py = random_vector<double>(N * 3, -1, 1, 65);
  std::vector<kops::value_index<double>> out(N * 3);
  kops::kokkos::eval(red, M, N, out.data(), px.data(), py.data());
  for (std::int64_t j = 0; j < N; ++j) {
    std::vector<std::pair<double, std::int64_t>> d(M);
    for (std::int64_t i = 0; i < M; ++i) {
      d[i] = {0.0, i};
      for (int k = 0; k < 3; ++k) d[i].first += (px[i * 3 + k] - py[j * 3 + k]) * (px[i * 3 + k] - py[j * 3 + k]);
    }
    std::sort(d.begin(), d.end());
    for (int k = 0; k < 3; ++k) {
      CHECK(close(out[j * 3 + k].value, d[k].first, 1e-12));
      CHECK(out[j * 3 + k].index == d[k].second);
    }
  }
}
