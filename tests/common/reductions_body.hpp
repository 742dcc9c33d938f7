// Test body (included once per test executable): every reduction against a
// plain double-precision loop, on sizes around the CPU's SIMD block boundaries
// with M != N, over both axes, for float and double, through each backend
// configuration of KOPS_TEST_CONFIGS (defined by the includer).
#pragma once

#include "support.hpp"

#include <limits>

#ifndef KOPS_TEST_CONFIGS
#error "define KOPS_TEST_CONFIGS (the backend configurations) before including reductions_body.hpp"
#endif

using namespace kops_test;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 2>;
constexpr auto g = kops::pm<3, 1>;

// The formulas under test: a vector-valued Gaussian kernel product (sums) and
// a vector-valued coordinate difference (extrema: each component has its own
// arg). Their double-precision values at (i, j):
double gauss_ref(const auto& px, const auto& py, const auto& pb, double gv, std::int64_t i, std::int64_t j, int k) {
  double d2 = 0;
  for (int c = 0; c < 3; ++c) {
    const double t = double(px[i * 3 + c]) - double(py[j * 3 + c]);
    d2 += t * t;
  }
  return std::exp(-gv * d2) * double(pb[j * 2 + k]);
}
double diff_ref(const auto& px, const auto& py, std::int64_t i, std::int64_t j, int k) {
  return double(px[i * 3 + k]) - double(py[j * 3 + k]);
}

struct size_case {
  std::int64_t M, N;
};
const size_case sizes[] = {{1, 7}, {7, 1}, {64, 1000}, {1000, 64}, {1023, 1000}, {1000, 1023}, {7, 64}};

template <class A> constexpr bool over_j = std::is_same_v<A, kops::axis_tag<1>>;

template <class C, class A>
void check_sum(A axis) {
  using T = typename C::type;
  for (auto [M, N] : sizes) {
    const auto px = random_vector<T>(M * 3, 0, 1, 11), py = random_vector<T>(N * 3, 0, 1, 12);
    const auto pb = random_vector<T>(N * 2, -1, 1, 13);
    const std::vector<T> pg{T(2)};
    const std::int64_t rows = over_j<A> ? M : N, cols = over_j<A> ? N : M;
    std::vector<T> out(rows * 2);
    C::backend::eval(kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, axis), M, N, out.data(),
                     px.data(), py.data(), pb.data(), pg.data());
    for (std::int64_t r = 0; r < rows; ++r)
      for (int k = 0; k < 2; ++k) {
        double s = 0, sabs = 0;
        for (std::int64_t c = 0; c < cols; ++c) {
          const double v = over_j<A> ? gauss_ref(px, py, pb, 2, r, c, k) : gauss_ref(px, py, pb, 2, c, r, k);
          s += v;
          sabs += std::abs(v);
        }
        INFO("M=" << M << " N=" << N << " row " << r << " comp " << k);
        // Error bound of a float sum: proportional to the sum of |terms|.
        REQUIRE(std::abs(out[r * 2 + k] - s) <= tolerance<T>() * (sabs + 1e-3));
      }
  }
}

// min/max values and argmin/argmax indices; `IsMax` picks the direction.
template <class C, bool IsMax, class A>
void check_extremum(A axis) {
  using T = typename C::type;
  constexpr auto f = x - y;  // dim 3: three independent extrema per row
  for (auto [M, N] : sizes) {
    const auto px = random_vector<T>(M * 3, 0, 1, 21), py = random_vector<T>(N * 3, 0, 1, 22);
    const std::int64_t rows = over_j<A> ? M : N, cols = over_j<A> ? N : M;
    std::vector<T> val(rows * 3);
    std::vector<std::int64_t> idx(rows * 3);
    if constexpr (IsMax) {
      C::backend::eval(kops::max_reduction(f, axis), M, N, val.data(), px.data(), py.data());
      C::backend::eval(kops::argmax_reduction(f, axis), M, N, idx.data(), px.data(), py.data());
    } else {
      C::backend::eval(kops::min_reduction(f, axis), M, N, val.data(), px.data(), py.data());
      C::backend::eval(kops::argmin_reduction(f, axis), M, N, idx.data(), px.data(), py.data());
    }
    for (std::int64_t r = 0; r < rows; ++r)
      for (int k = 0; k < 3; ++k) {
        // The reference compares the values as T, the precision kops computes in,
        // so that near-ties resolve the same way.
        T best = IsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
        std::int64_t arg = -1;
        for (std::int64_t c = 0; c < cols; ++c) {
          const T v = over_j<A> ? T(px[r * 3 + k] - py[c * 3 + k]) : T(px[c * 3 + k] - py[r * 3 + k]);
          if (IsMax ? v > best : v < best) best = v, arg = c;
        }
        INFO("M=" << M << " N=" << N << " row " << r << " comp " << k);
        REQUIRE(val[r * 3 + k] == best);
        REQUIRE(idx[r * 3 + k] == arg);
      }
  }
}

} // namespace


TEMPLATE_TEST_CASE("sum_reduction matches a double loop over both axes", "[reductions]", KOPS_TEST_CONFIGS) {
  SECTION("axis_j") { check_sum<TestType>(kops::axis_j); }
  SECTION("axis_i") { check_sum<TestType>(kops::axis_i); }
}

TEMPLATE_TEST_CASE("min and argmin match a loop over both axes", "[reductions]", KOPS_TEST_CONFIGS) {
  SECTION("axis_j") { check_extremum<TestType, false>(kops::axis_j); }
  SECTION("axis_i") { check_extremum<TestType, false>(kops::axis_i); }
}

TEMPLATE_TEST_CASE("max and argmax match a loop over both axes", "[reductions]", KOPS_TEST_CONFIGS) {
  SECTION("axis_j") { check_extremum<TestType, true>(kops::axis_j); }
  SECTION("axis_i") { check_extremum<TestType, true>(kops::axis_i); }
}

TEMPLATE_TEST_CASE("argmin and argmax keep the first index of a tie", "[reductions]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  // y takes the values 3, 1, 2, 1, 3 (twice): min 1 first at j = 1, max 3 first at j = 0.
  const std::vector<T> py{3, 1, 2, 1, 3, 3, 1, 2, 1, 3};
  const std::vector<T> px(20, T(0));
  constexpr auto yy = kops::vj<1, 1>;
  constexpr auto xx = kops::vi<0, 1>;
  std::vector<std::int64_t> imin(20), imax(20);
  TestType::backend::eval(kops::argmin_reduction(xx + yy, kops::axis_j), 20, 10, imin.data(), px.data(), py.data());
  TestType::backend::eval(kops::argmax_reduction(xx + yy, kops::axis_j), 20, 10, imax.data(), px.data(), py.data());
  for (int i = 0; i < 20; ++i) {
    CHECK(imin[i] == 1);
    CHECK(imax[i] == 0);
  }
}

TEMPLATE_TEST_CASE("extrema: NaN propagates like numpy, +inf rows keep their first index", "[reductions]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  constexpr auto xx = kops::vi<0, 1>;
  constexpr auto yy = kops::vj<1, 1>;
  const std::vector<T> px{0};
  SECTION("a NaN term makes the value NaN and the index that of the first NaN") {
    const std::vector<T> py{2, nan, 1, nan, 0};
    T v;
    std::int64_t k;
    TestType::backend::eval(kops::min_reduction(xx + yy, kops::axis_j), 1, 5, &v, px.data(), py.data());
    TestType::backend::eval(kops::argmin_reduction(xx + yy, kops::axis_j), 1, 5, &k, px.data(), py.data());
    CHECK(std::isnan(v));
    CHECK(k == 1);
    TestType::backend::eval(kops::argmax_reduction(xx + yy, kops::axis_j), 1, 5, &k, px.data(), py.data());
    CHECK(k == 1);
  }
  SECTION("all +inf: min is +inf at index 0") {
    const std::vector<T> py{inf, inf, inf};
    T v;
    std::int64_t k;
    TestType::backend::eval(kops::min_reduction(xx + yy, kops::axis_j), 1, 3, &v, px.data(), py.data());
    TestType::backend::eval(kops::argmin_reduction(xx + yy, kops::axis_j), 1, 3, &k, px.data(), py.data());
    CHECK(v == inf);
    CHECK(k == 0);
  }
}

TEMPLATE_TEST_CASE("an empty reduced range gives the documented identity", "[reductions]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  constexpr auto f = kops::vi<0, 1> + kops::vj<1, 1>;
  const std::vector<T> px{1, 2, 3};
  std::vector<T> s(3, T(7)), mn(3), mx(3);
  std::vector<std::int64_t> am(3);
  const T* no_y = nullptr;  // N = 0: the j argument is never read and may be null
  TestType::backend::eval(kops::sum_reduction(f, kops::axis_j), 3, 0, s.data(), px.data(), no_y);
  TestType::backend::eval(kops::min_reduction(f, kops::axis_j), 3, 0, mn.data(), px.data(), no_y);
  TestType::backend::eval(kops::max_reduction(f, kops::axis_j), 3, 0, mx.data(), px.data(), no_y);
  TestType::backend::eval(kops::argmin_reduction(f, kops::axis_j), 3, 0, am.data(), px.data(), no_y);
  for (int i = 0; i < 3; ++i) {
    CHECK(s[i] == 0);
    CHECK(mn[i] == std::numeric_limits<T>::infinity());
    CHECK(mx[i] == -std::numeric_limits<T>::infinity());
    CHECK(am[i] == -1);
  }
}

TEMPLATE_TEST_CASE("M = 0 writes nothing", "[reductions]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  constexpr auto f = kops::vi<0, 1> * kops::vj<1, 1>;
  const std::vector<T> py{1, 2};
  T* no_out = nullptr;
  const T* no_x = nullptr;
  REQUIRE_NOTHROW(TestType::backend::eval(kops::sum_reduction(f, kops::axis_j), 0, 2, no_out, no_x, py.data()));
}

TEMPLATE_TEST_CASE("an i-reduction of a formula without j variables has N rows", "[reductions]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  const std::vector<T> px{1, 2, 3, 4};
  T out[1];
  const T* unused = nullptr;
  // f has no j variable: with N = 1 the output is the plain sum over i.
  TestType::backend::eval(kops::sum_reduction(kops::square(kops::vi<0, 1>), kops::axis_i), 4, 1, out, px.data());
  CHECK(out[0] == T(30));
  (void)unused;
}
