// Test body (included once per test executable): the value-and-index, k-min
// and shifted-exponential reductions against plain double/T loops (k-min
// against std::stable_sort), over both axes and sizes around the SIMD block and
// GPU_2D chunk boundaries, through each configuration of KOPS_TEST_CONFIGS.
#pragma once

#include "support.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#ifndef KOPS_TEST_CONFIGS
#error "define KOPS_TEST_CONFIGS (the backend configurations) before including reductions_more_body.hpp"
#endif

using namespace kops_test;

namespace {

namespace more {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;

struct size_case {
  std::int64_t M, N;
};
const size_case sizes[] = {{1, 7}, {7, 3}, {64, 300}, {300, 64}, {129, 130}, {33, 17}};

template <class A> constexpr bool over_j = std::is_same_v<A, kops::axis_tag<1>>;

// Values quantised to multiples of 1/8 in [0, 1]: x - y has many exact ties.
template <class T>
std::vector<T> quantised(std::size_t n, unsigned seed) {
  auto v = random_vector<T>(n, 0, 1, seed);
  for (auto& e : v) e = T(std::round(double(e) * 8) / 8);
  return v;
}

// Column c of component k of f = x - y at output row r, computed in T.
template <class A, class T>
T diff_at(const std::vector<T>& px, const std::vector<T>& py, std::int64_t r, std::int64_t c, int k) {
  return over_j<A> ? T(px[r * 3 + k] - py[c * 3 + k]) : T(px[c * 3 + k] - py[r * 3 + k]);
}

template <class C, bool IsMax, class A>
void check_value_index(A axis) {
  using T = typename C::type;
  for (auto [M, N] : sizes) {
    const auto px = quantised<T>(M * 3, 61), py = quantised<T>(N * 3, 62);
    const std::int64_t rows = over_j<A> ? M : N, cols = over_j<A> ? N : M;
    std::vector<kops::value_index<T>> out(rows * 3);
    if constexpr (IsMax) C::backend::eval(kops::max_argmax_reduction(x - y, axis), M, N, out.data(), px.data(), py.data());
    else C::backend::eval(kops::min_argmin_reduction(x - y, axis), M, N, out.data(), px.data(), py.data());
    for (std::int64_t r = 0; r < rows; ++r)
      for (int k = 0; k < 3; ++k) {
        T best = diff_at<A>(px, py, r, 0, k);
        std::int64_t arg = 0;
        for (std::int64_t c = 1; c < cols; ++c) {
          const T v = diff_at<A>(px, py, r, c, k);
          if (IsMax ? v > best : v < best) best = v, arg = c;
        }
        INFO("M=" << M << " N=" << N << " row " << r << " comp " << k);
        REQUIRE(out[r * 3 + k].value == best);
        REQUIRE(out[r * 3 + k].index == arg);
      }
  }
}

template <class C, int K, class A>
void check_kmin(A axis) {
  using T = typename C::type;
  for (auto [M, N] : sizes) {
    const std::int64_t rows = over_j<A> ? M : N, cols = over_j<A> ? N : M;
    if (cols < K) continue;
    const auto px = quantised<T>(M * 3, 71), py = quantised<T>(N * 3, 72);
    std::vector<T> val(rows * K * 3);
    std::vector<std::int64_t> idx(rows * K * 3);
    std::vector<kops::value_index<T>> both(rows * K * 3);
    C::backend::eval(kops::kmin_reduction<K>(x - y, axis), M, N, val.data(), px.data(), py.data());
    C::backend::eval(kops::argkmin_reduction<K>(x - y, axis), M, N, idx.data(), px.data(), py.data());
    C::backend::eval(kops::kmin_argkmin_reduction<K>(x - y, axis), M, N, both.data(), px.data(), py.data());
    for (std::int64_t r = 0; r < rows; ++r)
      for (int k = 0; k < 3; ++k) {
        std::vector<T> column(cols);
        for (std::int64_t c = 0; c < cols; ++c) column[c] = diff_at<A>(px, py, r, c, k);
        const auto order = stable_order(column);
        for (int s = 0; s < K; ++s) {
          INFO("M=" << M << " N=" << N << " row " << r << " comp " << k << " rank " << s);
          const std::size_t o = (r * K + s) * 3 + k;  // out[row, s * dim + k]
          REQUIRE(val[o] == column[order[s]]);
          REQUIRE(idx[o] == order[s]);
          REQUIRE(both[o].value == column[order[s]]);
          REQUIRE(both[o].index == order[s]);
        }
      }
  }
}

// f = s * (x . y) with a large scale s (|f| up to ~ 3 s): exp(f) overflows
// float and double alike, the stable reduction must not.
double lse_ref(const std::vector<double>& f, const double* w) {
  double m = -std::numeric_limits<double>::infinity();
  for (double v : f) m = std::max(m, v);
  double s = 0;
  for (std::size_t c = 0; c < f.size(); ++c) s += std::exp(f[c] - m) * (w ? w[c] : 1.0);
  return m + std::log(s);
}

template <class C, class A>
void check_exp_sums(A axis, double scale) {
  using T = typename C::type;
  constexpr auto b = kops::vj<2, 2>;
  constexpr auto s = kops::pm<3, 1>;
  constexpr auto f = s * kops::dot(x, y);
  for (auto [M, N] : sizes) {
    const auto px = random_vector<T>(M * 3, -1, 1, 81), py = random_vector<T>(N * 3, -1, 1, 82);
    const auto pb = random_vector<T>(N * 2, 0.5, 2, 83);
    const std::vector<T> ps{T(scale)};
    const std::int64_t rows = over_j<A> ? M : N, cols = over_j<A> ? N : M;
    std::vector<T> lse(rows), lsew(rows * 2), ssw(rows * 2);
    C::backend::eval(kops::logsumexp_reduction(f, axis), M, N, lse.data(), px.data(), py.data(), pb.data(), ps.data());
    if constexpr (over_j<A>) {
      // the weights b are j-variables: weighted forms over j only
      C::backend::eval(kops::logsumexp_reduction(f, b, axis), M, N, lsew.data(), px.data(), py.data(), pb.data(), ps.data());
      C::backend::eval(kops::sumsoftmaxweight_reduction(f, b - kops::cst<1>, axis), M, N, ssw.data(), px.data(), py.data(),
                       pb.data(), ps.data());
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      std::vector<double> fv(cols);
      double fmax = 0;
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::int64_t i = over_j<A> ? r : c, j = over_j<A> ? c : r;
        double d = 0;
        for (int k = 0; k < 3; ++k) d += double(px[i * 3 + k]) * double(py[j * 3 + k]);
        fv[c] = double(ps[0]) * d;
        fmax = std::max(fmax, std::abs(fv[c]));
      }
      INFO("M=" << M << " N=" << N << " row " << r);
      // An error of a few ulps of the largest |f| is what rounding f itself costs.
      const double tol = tolerance<T>() * (1 + fmax);
      REQUIRE(std::abs(lse[r] - lse_ref(fv, nullptr)) <= tol);
      if constexpr (over_j<A>) {
        for (int k = 0; k < 2; ++k) {
          std::vector<double> w(cols);
          for (std::int64_t c = 0; c < cols; ++c) w[c] = double(pb[c * 2 + k]);
          REQUIRE(std::abs(lsew[r * 2 + k] - lse_ref(fv, w.data())) <= tol);
          const double l = lse_ref(fv, nullptr);
          double avg = 0;
          for (std::int64_t c = 0; c < cols; ++c) avg += std::exp(fv[c] - l) * (w[c] - 1);
          REQUIRE(std::abs(ssw[r * 2 + k] - avg) <= tol);
        }
      }
    }
  }
}

} // namespace more

} // namespace

TEMPLATE_TEST_CASE("min_argmin and max_argmax return values and indices together", "[reductions]", KOPS_TEST_CONFIGS) {
  SECTION("min axis_j") { more::check_value_index<TestType, false>(kops::axis_j); }
  SECTION("min axis_i") { more::check_value_index<TestType, false>(kops::axis_i); }
  SECTION("max axis_j") { more::check_value_index<TestType, true>(kops::axis_j); }
  SECTION("max axis_i") { more::check_value_index<TestType, true>(kops::axis_i); }
}

TEMPLATE_TEST_CASE("kmin, argkmin and kmin_argkmin match a stable sort", "[reductions]", KOPS_TEST_CONFIGS) {
  SECTION("K=1 axis_j") { more::check_kmin<TestType, 1>(kops::axis_j); }
  SECTION("K=3 axis_j") { more::check_kmin<TestType, 3>(kops::axis_j); }
  SECTION("K=3 axis_i") { more::check_kmin<TestType, 3>(kops::axis_i); }
  SECTION("K=7 axis_j") { more::check_kmin<TestType, 7>(kops::axis_j); }
}

TEMPLATE_TEST_CASE("kmin sorts NaN last and rejects K above the range size", "[reductions]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  constexpr auto xx = kops::vi<0, 1>;
  constexpr auto yy = kops::vj<1, 1>;
  const std::vector<T> px{0};
  const std::vector<T> py{2, nan, 1, nan, 0};
  std::vector<kops::value_index<T>> out(5);
  TestType::backend::eval(kops::kmin_argkmin_reduction<5>(xx + yy, kops::axis_j), 1, 5, out.data(), px.data(), py.data());
  const std::int64_t expected[] = {4, 2, 0, 1, 3};
  for (int s = 0; s < 5; ++s) {
    INFO("rank " << s);
    CHECK(out[s].index == expected[s]);
    if (s < 3) CHECK(out[s].value == py[expected[s]]);
    else CHECK(std::isnan(out[s].value));
  }
  std::vector<T> v(6);
  REQUIRE_THROWS_AS(TestType::backend::eval(kops::kmin_reduction<6>(xx + yy, kops::axis_j), 1, 5, v.data(), px.data(),
                                            py.data()),
                    kops::error);
  REQUIRE_THROWS_WITH(TestType::backend::eval(kops::kmin_reduction<6>(xx + yy, kops::axis_j), 1, 5, v.data(), px.data(),
                                              py.data()),
                      Catch::Contains("kmin_reduction<6> needs at least 6 terms") && Catch::Contains("N = 5"));
}

TEMPLATE_TEST_CASE("logsumexp and sumsoftmaxweight are stable where exp overflows", "[reductions]", KOPS_TEST_CONFIGS) {
  SECTION("moderate exponents, axis_j") { more::check_exp_sums<TestType>(kops::axis_j, 3.0); }
  SECTION("exponents beyond exp's range, axis_j") { more::check_exp_sums<TestType>(kops::axis_j, 400.0); }
  SECTION("negative exponents beyond exp's range, axis_i") { more::check_exp_sums<TestType>(kops::axis_i, -400.0); }
}

TEMPLATE_TEST_CASE("logsumexp: an empty range is -inf, infinite terms are exact", "[reductions]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  const T inf = std::numeric_limits<T>::infinity();
  constexpr auto xx = kops::vi<0, 1>;
  constexpr auto yy = kops::vj<1, 1>;
  const std::vector<T> px{0, 1};
  std::vector<T> out(2, T(7));
  const T* no_y = nullptr;
  TestType::backend::eval(kops::logsumexp_reduction(xx + yy, kops::axis_j), 2, 0, out.data(), px.data(), no_y);
  CHECK(out[0] == -inf);
  CHECK(out[1] == -inf);
  const std::vector<T> all_minf{-inf, -inf, -inf};
  TestType::backend::eval(kops::logsumexp_reduction(xx + yy, kops::axis_j), 2, 3, out.data(), px.data(), all_minf.data());
  CHECK(out[0] == -inf);
  const std::vector<T> one_pinf{0, inf, 1};
  TestType::backend::eval(kops::logsumexp_reduction(xx + yy, kops::axis_j), 2, 3, out.data(), px.data(), one_pinf.data());
  CHECK(out[0] == inf);
}

// The negligible-term rule (reductions/detail/expsum.hpp): the factor
// exp(f - max) of a term more than 80 (float) / 700 (double) below the running
// maximum is 0; a term just above the threshold counts, its weight in full.
TEMPLATE_TEST_CASE("weighted logsumexp flushes exp(f - max) below e^-80 (e^-700) to 0", "[reductions]",
                   KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  const T cut = std::is_same_v<T, float> ? T(80) : T(700);
  constexpr auto xx = kops::vi<0, 1>;
  constexpr auto ff = kops::vj<1, 1>;
  constexpr auto ww = kops::vj<2, 1>;
  const std::vector<T> px{0};
  std::vector<T> out(1, T(7));
  const auto run = [&](const std::vector<T>& f, const std::vector<T>& w) {
    TestType::backend::eval(kops::logsumexp_reduction(xx + ff, ww, kops::axis_j), 1, std::int64_t(f.size()),
                            out.data(), px.data(), f.data(), w.data());
    return out[0];
  };
  // Flushed: a term cut + 5 below the maximum with weight e^(cut + 4) would add
  // e^-1 (exactly: log(1 + e^-1) = 0.313); it adds 0, in either order.
  const T huge = T(std::exp(double(cut) + 4));
  CHECK(run({0, -(cut + 5)}, {1, huge}) == T(0));
  CHECK(run({-(cut + 5), 0}, {huge, 1}) == T(0));
  // Kept: a term cut - 1 below the maximum with weight e^(cut - 1): log(1 + 1) = log 2.
  const T big = T(std::exp(double(cut) - 1));
  CHECK(std::abs(run({0, -(cut - 1)}, {1, big}) - T(std::log(2.0))) < T(1e-5));
  CHECK(std::abs(run({-(cut - 1), 0}, {big, 1}) - T(std::log(2.0))) < T(1e-5));
}

TEMPLATE_TEST_CASE("the two-pass logsumexp gradient w.r.t. y matches a loop", "[reductions][grad]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  constexpr auto xx = kops::vi<0, 3>;
  constexpr auto yy = kops::vj<1, 3>;
  constexpr auto e = kops::vi<2, 1>;
  constexpr auto lse = kops::logsumexp_reduction(kops::dot(xx, yy), kops::axis_j);
  constexpr auto d = kops::grad(lse, yy, e);
  static_assert(kops::is_chained_v<std::remove_const_t<decltype(d)>>);
  for (auto [M, N] : more::sizes) {
    const auto px = random_vector<T>(M * 3, -1, 1, 101), py = random_vector<T>(N * 3, -1, 1, 102);
    const auto pe = random_vector<T>(M, -1, 1, 103);
    std::vector<T> out(N * 3);
    TestType::backend::eval(d, M, N, out.data(), px.data(), py.data(), pe.data());
    // d(sum_i e_i lse_i)/dy_j = sum_i e_i softmax_j(x_i . y) x_i
    std::vector<double> ref(N * 3, 0.0);
    for (std::int64_t i = 0; i < M; ++i) {
      std::vector<double> f(N);
      for (std::int64_t j = 0; j < N; ++j) {
        f[j] = 0;
        for (int k = 0; k < 3; ++k) f[j] += double(px[i * 3 + k]) * double(py[j * 3 + k]);
      }
      const double l = more::lse_ref(f, nullptr);
      for (std::int64_t j = 0; j < N; ++j)
        for (int k = 0; k < 3; ++k) ref[j * 3 + k] += double(pe[i]) * std::exp(f[j] - l) * double(px[i * 3 + k]);
    }
    for (std::int64_t n = 0; n < N * 3; ++n) {
      INFO("M=" << M << " N=" << N << " entry " << n);
      REQUIRE(std::abs(out[n] - ref[n]) <= tolerance<T>() * 10 * (1 + std::abs(ref[n])));
    }
  }
}
