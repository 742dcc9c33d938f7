// Test body (included once per test executable): the range form of eval
// (detail/sized.hpp) on a backend: M and N deduced from std::span arguments,
// the same result as the pointer form, and every size mistake a kops::error
// that names the argument, the size expected and the size given -- before
// anything is written (the output is checked untouched).
//
// The includer defines KOPS_TEST_CONFIGS; Backend::eval(red, args...) is the
// backend's eval on host arrays (kops::kokkos::eval, kops::cuda::eval_host).
#pragma once

#include "support.hpp"

#include <algorithm>
#include <limits>
#include <span>
#include <vector>

#ifndef KOPS_TEST_CONFIGS
#error "define KOPS_TEST_CONFIGS (the backend configurations) before including ranges_body.hpp"
#endif

namespace ranges_body {

using namespace kops_test;
using Catch::Matchers::Contains;

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto gauss = kops::exp(-g * kops::sqdist(x, y)) * b;

// Arrays of a call with M i-rows and N j-rows, and the sentinel-filled output.
template <class T>
struct arrays {
  std::vector<T> x, y, b, g{T(0.5)};
  arrays(std::int64_t M, std::int64_t N)
      : x(random_vector<T>(std::size_t(M * 3), -1, 1, 1)), y(random_vector<T>(std::size_t(N * 3), -1, 1, 2)),
        b(random_vector<T>(std::size_t(N), -1, 1, 3)) {}
};

template <class T> std::span<const T> in(const std::vector<T>& v) { return {v.data(), v.size()}; }

TEMPLATE_TEST_CASE("the range form deduces M and N and equals the pointer form", "[ranges]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  using B = typename TestType::backend;
  constexpr std::int64_t M = 37, N = 101;
  const arrays<T> a(M, N);
  const auto conv = kops::sum_reduction(gauss, kops::axis_j);
  std::vector<T> by_pointers(M), by_ranges(M, T(-7)), given(M, T(-7));
  B::eval(conv, M, N, by_pointers.data(), a.x.data(), a.y.data(), a.b.data(), a.g.data());
  B::eval(conv, std::span<T>(by_ranges), in(a.x), in(a.y), in(a.b), in(a.g));
  CHECK(by_ranges == by_pointers);  // the same call: bit for bit
  // M and N given: checked likewise, the same result.
  B::eval(conv, M, N, std::span<T>(given), in(a.x), in(a.y), in(a.b), in(a.g));
  CHECK(given == by_pointers);
  // Over i: the output has N rows (one per j).
  const auto over_i = kops::sum_reduction(gauss * kops::vi<4, 1>, kops::axis_i);
  const auto e = random_vector<T>(std::size_t(M), -1, 1, 4);
  std::vector<T> over_i_p(N), over_i_r(N, T(-7));
  B::eval(over_i, M, N, over_i_p.data(), a.x.data(), a.y.data(), a.b.data(), a.g.data(), e.data());
  B::eval(over_i, std::span<T>(over_i_r), in(a.x), in(a.y), in(a.b), in(a.g), in(e));
  CHECK(over_i_r == over_i_p);
  // An index reduction writes std::int64_t: its range too.
  const auto nearest = kops::argmin_reduction(kops::sqdist(x, y), kops::axis_j);
  std::vector<std::int64_t> idx_p(M), idx_r(M, -7);
  B::eval(nearest, M, N, idx_p.data(), a.x.data(), a.y.data());
  B::eval(nearest, std::span<std::int64_t>(idx_r), in(a.x), in(a.y));
  CHECK(idx_r == idx_p);
}

TEMPLATE_TEST_CASE("a size mistake in the range form is a kops::error naming the argument", "[ranges][bad_input]",
                   KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  using B = typename TestType::backend;
  constexpr std::int64_t M = 100, N = 1000;
  const arrays<T> a(M, N);
  const auto conv = kops::sum_reduction(gauss, kops::axis_j);
  std::vector<T> out(std::size_t(M + 5), T(-7));
  auto untouched = [&] {
    for (T v : out)
      if (v != T(-7)) return false;
    return true;
  };
  auto first = [&](std::size_t n) { return std::span<T>(out.data(), n); };
  auto eval = [&](std::span<T> o, auto... args) { B::eval(conv, o, args...); };

  SECTION("a short output") {
    REQUIRE_THROWS_WITH(eval(first(M - 1), in(a.x), in(a.y), in(a.b), in(a.g)),
                        Contains("the output holds 99 values, expected M x 1 = 100: one row per i row (M = 100, "
                                 "from argument 0 (vi<0,3>))"));
  }
  SECTION("a long output") {
    REQUIRE_THROWS_WITH(eval(first(M + 1), in(a.x), in(a.y), in(a.b), in(a.g)),
                        Contains("the output holds 101 values, expected M x 1 = 100"));
  }
  SECTION("the issue's axis mistake: an axis_i reduction given an output of M rows") {
    const auto over_i = kops::sum_reduction(gauss, kops::axis_i);
    REQUIRE_THROWS_WITH(B::eval(over_i, first(M), in(a.x), in(a.y), in(a.b), in(a.g)),
                        Contains("the output holds 100 values, expected N x 1 = 1000: one row per j row (N = 1000, "
                                 "from argument 1 (vj<1,3>))"));
  }
  SECTION("a variable with too few rows, or not a whole number of rows") {
    REQUIRE_THROWS_WITH(eval(first(M), in(a.x), in(a.y), std::span<const T>(a.b.data(), N - 1), in(a.g)),
                        Contains("argument 2 (vj<2,1>) holds 999 values, expected N x 1 = 1000 (N = 1000, from "
                                 "argument 1 (vj<1,3>))"));
    REQUIRE_THROWS_WITH(eval(first(M), std::span<const T>(a.x.data(), 3 * M - 1), in(a.y), in(a.b), in(a.g)),
                        Contains("argument 0 (vi<0,3>) holds 299 values, not a whole number of rows of 3"));
  }
  SECTION("two i-variables whose rows disagree") {
    const auto two = kops::sum_reduction(kops::sqdist(x, y) * kops::vi<2, 1>, kops::axis_j);
    const auto w = random_vector<T>(std::size_t(M + 1), -1, 1, 5);
    REQUIRE_THROWS_WITH(B::eval(two, first(M), in(a.x), in(a.y), in(w)),
                        Contains("argument 2 (vi<2,1>) holds 101 values, expected M x 1 = 100 (M = 100, from "
                                 "argument 0 (vi<0,3>))"));
  }
  SECTION("a parameter of the wrong size") {
    const std::vector<T> g2{T(0.5), T(1)};
    REQUIRE_THROWS_WITH(eval(first(M), in(a.x), in(a.y), in(a.b), in(g2)),
                        Contains("argument 3 (pm<3,1>) holds 2 values, expected 1"));
  }
  SECTION("M or N given that the ranges contradict") {
    REQUIRE_THROWS_WITH(B::eval(conv, M, N + 1, first(M), in(a.x), in(a.y), in(a.b), in(a.g)),
                        Contains("argument 1 (vj<1,3>) holds 3000 values, expected N x 3 = 3003 (N = 1001, as "
                                 "given)"));
  }
  CHECK(untouched());
}

// The pointer form cannot know its arrays' sizes, but it says what a size
// past any array is, before it looks for overlaps (which such a size makes).
TEMPLATE_TEST_CASE("pointer form: an impossible size is named before any overlap", "[ranges][bad_input]",
                   KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  using B = typename TestType::backend;
  const arrays<T> a(10, 10);
  const auto conv = kops::sum_reduction(gauss, kops::axis_j);
  std::vector<T> out(10, T(-7));
  constexpr std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  REQUIRE_THROWS_WITH(B::eval(conv, huge, 10, out.data(), a.x.data(), a.y.data(), a.b.data(), a.g.data()),
                      Contains("the output would span more bytes than any array can (M x 1 elements of"));
  REQUIRE_THROWS_WITH(B::eval(conv, 10, huge / 4, out.data(), a.x.data(), a.y.data(), a.b.data(), a.g.data()),
                      Contains("argument 1 (vj<1,3>) would span more bytes than any array can"));
  // One buffer holding x then the output: with M too large, x's extent reaches
  // into the output, and the message says that M or N may be the cause.
  std::vector<T> both(30 + 10);
  std::copy(a.x.begin(), a.x.end(), both.begin());
  REQUIRE_THROWS_WITH(B::eval(conv, 20, 10, both.data() + 30, both.data(), a.y.data(), a.b.data(), a.g.data()),
                      Contains("overlaps argument 0 (vi<0,3>) with M = 20, N = 10; kops reads the inputs while it "
                               "writes the output, so the output needs its own buffer (or, if it has one, M or N is "
                               "larger than the arrays"));
  for (T v : out) CHECK(v == T(-7));
}

} // namespace ranges_body
