// Test body (included once per test executable): input that kops accepts but
// that is easy to get wrong, each with its documented outcome (docs/reliability.md):
//
//   NaN / +-inf in a row     every reduction kind follows IEEE arithmetic on the
//                            terms and its own rule (NaN wins in min/max, sorts last
//                            in k-min; logsumexp of an all -inf row is -inf); the
//                            other rows of the same SIMD block / GPU tile are untouched
//   every sum scheme         keeps those special values (sum_scheme, dtype_acc)
//   an output that overlaps an input              kops::error
//   M * N beyond 2^32 pairs  64-bit indexing: exact argmin at large indices
//   zero sizes               the documented identities; nothing read or written
//
// The includer defines KOPS_TEST_CONFIGS (or KOPS_BAD_INPUT_CONFIGS) and
//   kops_test::policy_eval<Backend>::eval<Policies...>(red, M, N, out, args...)
// the backend's eval with compile-time policies (core/policy.hpp).
#pragma once

#include "support.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#ifndef KOPS_BAD_INPUT_CONFIGS
#ifndef KOPS_TEST_CONFIGS
#error "define KOPS_TEST_CONFIGS (the backend configurations) before including bad_input_body.hpp"
#endif
#define KOPS_BAD_INPUT_CONFIGS KOPS_TEST_CONFIGS
#endif

namespace bad_input {

using namespace kops_test;

constexpr auto xs = kops::vi<0, 1>;
constexpr auto ys = kops::vj<1, 1>;
constexpr auto diff = xs - ys;  // the term of row i at j: x_i - y_j

// References, in double, on the terms t_j of one row (the documented semantics).
struct extremum {
  double v;
  std::int64_t i;
};
// numpy's min / argmin: NaN wins (first NaN), ties keep the first index; empty: (+inf, -1).
inline extremum ref_extremum(const std::vector<double>& t, bool is_max) {
  extremum e{is_max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity(),
             t.empty() ? -1 : 0};
  for (std::size_t j = 0; j < t.size(); ++j) {
    if (std::isnan(t[j])) return {t[j], std::int64_t(j)};
    if (is_max ? t[j] > e.v : t[j] < e.v) e = {t[j], std::int64_t(j)};
  }
  return e;
}
// np.argsort(t, kind="stable"), NaN last.
inline std::vector<std::int64_t> ref_argsort(const std::vector<double>& t) {
  std::vector<std::int64_t> order(t.size());
  std::iota(order.begin(), order.end(), std::int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return t[std::size_t(a)] < t[std::size_t(b)] || (!std::isnan(t[std::size_t(a)]) && std::isnan(t[std::size_t(b)]));
  });
  return order;
}
// log sum exp t: NaN if a term is NaN; else m + log sum exp(t - m), m = max t, where
// the terms equal to an infinite m count exp(0) = 1 each (-inf for an all -inf row).
// sum softmax(t) g: the same weights, normalised.
inline double ref_logsumexp(const std::vector<double>& t) {
  double m = -std::numeric_limits<double>::infinity();
  for (double v : t) {
    if (std::isnan(v)) return v;
    m = std::max(m, v);
  }
  double s = 0;
  for (double v : t) s += v == m ? 1.0 : std::exp(v - m);
  return m + std::log(s);
}
inline double ref_softmax(const std::vector<double>& t, const std::vector<double>& g) {
  double m = -std::numeric_limits<double>::infinity();
  for (double v : t) m = std::isnan(v) ? v : std::max(m, v);
  if (std::isnan(m)) return m;
  double s = 0, sg = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    const double w = t[j] == m ? 1.0 : std::exp(t[j] - m);
    s += w;
    sg += w * g[j];
  }
  return sg / s;
}

inline bool same_value(double a, double b, double tol) {
  if (std::isnan(b)) return std::isnan(a);
  if (std::isinf(b)) return a == b;
  return std::abs(a - b) <= tol * (std::abs(b) + 1);
}

// Every reduction kind over j of diff = x_i - y_j, each output row against
// the reference on that row's terms (computed in T, as the kernels do).
template <class C>
void check_every_kind(const std::vector<typename C::type>& px, const std::vector<typename C::type>& py) {
  using T = typename C::type;
  using B = typename C::backend;
  const std::int64_t M = std::int64_t(px.size()), N = std::int64_t(py.size());
  const auto m = static_cast<std::size_t>(M);
  std::vector<T> sum(m), mn(m), mx(m), lse(m), smw(m), km(2 * m);
  std::vector<std::int64_t> amn(m), amx(m), akm(2 * m);
  std::vector<kops::value_index<T>> mna(m), mxa(m), kma(2 * m);
  B::eval(kops::sum_reduction(diff, kops::axis_j), M, N, sum.data(), px.data(), py.data());
  B::eval(kops::min_reduction(diff, kops::axis_j), M, N, mn.data(), px.data(), py.data());
  B::eval(kops::max_reduction(diff, kops::axis_j), M, N, mx.data(), px.data(), py.data());
  B::eval(kops::argmin_reduction(diff, kops::axis_j), M, N, amn.data(), px.data(), py.data());
  B::eval(kops::argmax_reduction(diff, kops::axis_j), M, N, amx.data(), px.data(), py.data());
  B::eval(kops::min_argmin_reduction(diff, kops::axis_j), M, N, mna.data(), px.data(), py.data());
  B::eval(kops::max_argmax_reduction(diff, kops::axis_j), M, N, mxa.data(), px.data(), py.data());
  B::eval(kops::kmin_reduction<2>(diff, kops::axis_j), M, N, km.data(), px.data(), py.data());
  B::eval(kops::argkmin_reduction<2>(diff, kops::axis_j), M, N, akm.data(), px.data(), py.data());
  B::eval(kops::kmin_argkmin_reduction<2>(diff, kops::axis_j), M, N, kma.data(), px.data(), py.data());
  B::eval(kops::logsumexp_reduction(diff, kops::axis_j), M, N, lse.data(), px.data(), py.data());
  B::eval(kops::sumsoftmaxweight_reduction(diff, ys, kops::axis_j), M, N, smw.data(), px.data(), py.data());

  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  std::vector<double> g(py.begin(), py.end());
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<double> t(static_cast<std::size_t>(N));
    for (std::size_t j = 0; j < t.size(); ++j) t[j] = double(T(px[i] - py[j]));
    INFO("row " << i << " (x = " << px[i] << ")");
    double s = 0;
    for (double v : t) s += v;
    CHECK(same_value(sum[i], s, tol));
    const extremum rmin = ref_extremum(t, false), rmax = ref_extremum(t, true);
    CHECK(same_value(mn[i], rmin.v, 0));
    CHECK(same_value(mx[i], rmax.v, 0));
    CHECK(amn[i] == rmin.i);
    CHECK(amx[i] == rmax.i);
    CHECK(same_value(mna[i].value, rmin.v, 0));
    CHECK(mna[i].index == rmin.i);
    CHECK(same_value(mxa[i].value, rmax.v, 0));
    CHECK(mxa[i].index == rmax.i);
    const auto order = ref_argsort(t);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(same_value(km[2 * i + k], t[std::size_t(order[k])], 0));
      CHECK(akm[2 * i + k] == order[k]);
      CHECK(kma[2 * i + k].index == order[k]);
      CHECK(same_value(kma[2 * i + k].value, t[std::size_t(order[k])], 0));
    }
    CHECK(same_value(lse[i], ref_logsumexp(t), tol));
    CHECK(same_value(smw[i], ref_softmax(t, g), tol));
  }
}

} // namespace bad_input

TEMPLATE_TEST_CASE("a NaN or infinite row: IEEE terms, the reduction's rule, other rows untouched", "[bad_input]",
                   KOPS_BAD_INPUT_CONFIGS) {
  using T = typename TestType::type;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  // 19 rows: specials in the first and the second CPU block (16 float / 8
  // double rows) and in GPU lanes next to finite ones.
  auto px = kops_test::random_vector<T>(19, -1, 1, 41);
  px[3] = nan;
  px[5] = inf;
  px[6] = -inf;
  px[17] = nan;
  SECTION("i rows (axis_j: that row's output)") {
    const auto py = kops_test::random_vector<T>(6, -1, 1, 42);
    bad_input::check_every_kind<TestType>(px, py);
  }
  SECTION("j rows (every output row sees the term)") {
    std::vector<T> py = kops_test::random_vector<T>(7, -1, 1, 43);
    py[2] = inf;   // +inf - +inf = NaN in row 5; -inf elsewhere
    py[4] = -inf;
    bad_input::check_every_kind<TestType>(px, py);
    py[4] = nan;
    bad_input::check_every_kind<TestType>(px, py);
  }
  SECTION("rows whose terms are all +inf or all -inf") {
    // y all -inf: terms +inf (NaN for x = -inf); y all +inf: terms -inf (NaN for x = +inf),
    // so logsumexp meets an all -inf row.
    const std::vector<T> pz{inf, -inf, T(0)};
    const std::vector<T> y_minf{-inf, -inf, -inf, -inf}, y_pinf{inf, inf, inf, inf};
    bad_input::check_every_kind<TestType>(pz, y_minf);
    bad_input::check_every_kind<TestType>(pz, y_pinf);
  }
}

TEMPLATE_TEST_CASE("every sum scheme and accumulator keeps NaN and infinities", "[bad_input][accuracy]",
                   KOPS_BAD_INPUT_CONFIGS) {
  using T = typename TestType::type;
  using P = kops_test::policy_eval<typename TestType::backend>;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  // N = 2100 terms: two block flushes; the special terms land inside blocks.
  const std::int64_t M = 20, N = 2100;
  auto px = kops_test::random_vector<T>(static_cast<std::size_t>(M), -1, 1, 51);
  auto py = kops_test::random_vector<T>(static_cast<std::size_t>(N), -1, 1, 52);
  px[2] = nan;
  px[4] = inf;
  px[9] = -inf;
  const auto red = kops::sum_reduction(bad_input::diff, kops::axis_j);
  auto check = [&](const std::vector<T>& out, const char* what) {
    INFO(what);
    for (std::int64_t i = 0; i < M; ++i) {
      double s = 0, a = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const double t = double(T(px[std::size_t(i)] - py[std::size_t(j)]));
        s += t;
        a += std::abs(t);
      }
      INFO("row " << i);
      // The direct sum's worst case, N u sum |t|, bounds every scheme.
      if (std::isfinite(s)) CHECK(std::abs(double(out[std::size_t(i)]) - s) <= double(N) * std::numeric_limits<T>::epsilon() * a);
      else CHECK(bad_input::same_value(out[std::size_t(i)], s, 0));
    }
  };
  std::vector<T> out(static_cast<std::size_t>(M));
  P::template eval<kops::sum_scheme::direct>(red, M, N, out.data(), px.data(), py.data());
  check(out, "direct");
  P::template eval<kops::sum_scheme::block>(red, M, N, out.data(), px.data(), py.data());
  check(out, "block");
  P::template eval<kops::sum_scheme::kahan>(red, M, N, out.data(), px.data(), py.data());
  check(out, "kahan");
  P::template eval<kops::sum_scheme::kahan, kops::dtype_acc::float64>(red, M, N, out.data(), px.data(), py.data());
  check(out, "kahan, float64");
  P::template eval<kops::dtype_acc::float64>(red, M, N, out.data(), px.data(), py.data());
  check(out, "block, float64");
}

TEMPLATE_TEST_CASE("an output that overlaps an input is a kops::error", "[bad_input]", KOPS_BAD_INPUT_CONFIGS) {
  using T = typename TestType::type;
  using B = typename TestType::backend;
  using Catch::Matchers::Contains;
  constexpr auto p = kops::pm<2, 2>;
  const auto red = kops::sum_reduction(bad_input::diff * p, kops::axis_j);  // out: (M, 2)
  const std::int64_t M = 3, N = 4;
  // One buffer: x at [10, 13), y at [20, 24), p at [30, 32); the output takes 2 M = 6.
  std::vector<T> buf(40, T(1));
  T* const b = buf.data();
  T *x = b + 10, *y = b + 20, *pp = b + 30;
  REQUIRE_NOTHROW(B::eval(red, M, N, b, x, y, pp));
  REQUIRE_NOTHROW(B::eval(red, M, N, b + 24, x, y, pp));  // [24, 30): touches y and p, shares no element
  REQUIRE_THROWS_AS(B::eval(red, M, N, x, x, y, pp), kops::error);  // in place
  REQUIRE_THROWS_WITH(B::eval(red, M, N, x, x, y, pp), Contains("the output array overlaps argument 0 (vi<0,1>)"));
  REQUIRE_THROWS_WITH(B::eval(red, M, N, b + 15, x, y, pp),  // [15, 21): y[0]
                      Contains("the output array overlaps argument 1 (vj<1,1>)"));
  REQUIRE_THROWS_WITH(B::eval(red, M, N, b + 25, x, y, pp),  // [25, 31): p[0]
                      Contains("the output array overlaps argument 2 (pm<2,2>)"));
  // Index outputs are 8 bytes per component: the check compares bytes
  // (out: bytes [8, 24) of idx; x: from byte 2 sizeof(T)).
  std::vector<std::int64_t> idx(8);
  const T* x_in_idx = reinterpret_cast<const T*>(idx.data()) + 2;
  REQUIRE_THROWS_WITH(B::eval(kops::argmin_reduction(bad_input::diff, kops::axis_j), 2, 2, idx.data() + 1, x_in_idx, y),
                      Contains("overlaps argument 0"));
  // Reading one input twice is fine; an output of no rows overlaps nothing.
  REQUIRE_NOTHROW(B::eval(red, M, M, b, x, x, pp));
  REQUIRE_NOTHROW(B::eval(red, 0, N, x, x, y, pp));
}

TEMPLATE_TEST_CASE("M * N beyond 2^32 pairs: 64-bit indexing", "[bad_input][large]", KOPS_BAD_INPUT_CONFIGS) {
  using T = typename TestType::type;
  using B = typename TestType::backend;
  // 70000^2 = 4.9e9 pairs > 2^32, with cheap formulas: ~0.5 s on one CPU core.
  // Under AddressSanitizer (tools/sanitize.sh: ~2 minutes for these 4.9e9
  // pairs) M is cut to 700; the plain build covers the 2^32 crossing.
  // Emulated GPU kernels (KOPS_TEST_EMULATED, ~1e8 pairs/s on CPU fibers) likewise.
#if defined(__SANITIZE_ADDRESS__) || defined(KOPS_TEST_EMULATED)
  const std::int64_t M = 700, N = 70000;
#else
  const std::int64_t M = 70000, N = 70000;
#endif
  std::vector<T> px(static_cast<std::size_t>(M)), py(static_cast<std::size_t>(N));
  // Every pair once: out_i = sum_j x_i y_j = x_i * 69999 with y_j = j mod 3
  // (23333 * (0 + 1 + 2)), exact in float (integers below 2^24) in any order.
  for (std::int64_t j = 0; j < N; ++j) py[static_cast<std::size_t>(j)] = T(j % 3);
  for (std::int64_t i = 0; i < M; ++i) px[static_cast<std::size_t>(i)] = T(i % 5);
  std::vector<T> sums(static_cast<std::size_t>(M), T(-7));
  B::eval(kops::sum_reduction(bad_input::xs * bad_input::ys, kops::axis_j), M, N, sums.data(), px.data(), py.data());
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < M; ++i) wrong += sums[static_cast<std::size_t>(i)] != T(i % 5) * T(69999);
  CHECK(wrong == 0);
  // Indices at large j: argmin_j (x_i - y_j)^2 with y_j = j and x_i one of the
  // last 1000 j's, exactly one zero term per row, over all M * N pairs. (A
  // backend may declare large_argmin = false to cut M to 64 rows; the Kokkos
  // and CUDA backends run it in full: ~12 s per element type on one CPU core.)
  constexpr bool full = kops_test::policy_eval<B>::large_argmin;
  const std::int64_t Ma = full ? M : std::min<std::int64_t>(M, 64);
  for (std::int64_t j = 0; j < N; ++j) py[static_cast<std::size_t>(j)] = T(j);
  for (std::int64_t i = 0; i < Ma; ++i) px[static_cast<std::size_t>(i)] = T(N - 1 - (i * 7919) % 1000);
  std::vector<std::int64_t> out(static_cast<std::size_t>(Ma), -7);
  B::eval(kops::argmin_reduction(kops::square(bad_input::diff), kops::axis_j), Ma, N, out.data(), px.data(), py.data());
  wrong = 0;
  for (std::int64_t i = 0; i < Ma; ++i)
    wrong += out[static_cast<std::size_t>(i)] != std::int64_t(px[static_cast<std::size_t>(i)]);
  CHECK(wrong == 0);
  CHECK(out[0] == N - 1);
}

TEMPLATE_TEST_CASE("zero sizes: identities on empty ranges, nothing written for no rows", "[bad_input]",
                   KOPS_BAD_INPUT_CONFIGS) {
  using T = typename TestType::type;
  using B = typename TestType::backend;
  using bad_input::diff;
  const T inf = std::numeric_limits<T>::infinity();
  const std::vector<T> px{1, 2, 3};
  const T* none = nullptr;  // arrays of zero rows are never read and may be null
  SECTION("N = 0: each reduction's empty-range value") {
    std::vector<T> sum(3, 7), mn(3), mx(3), lse(3), smw(3);
    std::vector<std::int64_t> amn(3), amx(3);
    std::vector<kops::value_index<T>> mna(3);
    B::eval(kops::sum_reduction(diff, kops::axis_j), 3, 0, sum.data(), px.data(), none);
    B::eval(kops::min_reduction(diff, kops::axis_j), 3, 0, mn.data(), px.data(), none);
    B::eval(kops::max_reduction(diff, kops::axis_j), 3, 0, mx.data(), px.data(), none);
    B::eval(kops::argmin_reduction(diff, kops::axis_j), 3, 0, amn.data(), px.data(), none);
    B::eval(kops::argmax_reduction(diff, kops::axis_j), 3, 0, amx.data(), px.data(), none);
    B::eval(kops::min_argmin_reduction(diff, kops::axis_j), 3, 0, mna.data(), px.data(), none);
    B::eval(kops::logsumexp_reduction(diff, kops::axis_j), 3, 0, lse.data(), px.data(), none);
    B::eval(kops::sumsoftmaxweight_reduction(diff, bad_input::ys, kops::axis_j), 3, 0, smw.data(), px.data(), none);
    for (int i = 0; i < 3; ++i) {
      CHECK(sum[i] == 0);
      CHECK(mn[i] == inf);
      CHECK(mx[i] == -inf);
      CHECK(amn[i] == -1);
      CHECK(amx[i] == -1);
      CHECK(mna[i].value == inf);
      CHECK(mna[i].index == -1);
      CHECK(lse[i] == -inf);
      CHECK(smw[i] == 0);  // no term: 0 (not 0/0; its gradients are 0 too)
    }
    // Every sum scheme gives 0.
    using P = kops_test::policy_eval<B>;
    P::template eval<kops::sum_scheme::kahan, kops::dtype_acc::float64>(kops::sum_reduction(diff, kops::axis_j), 3, 0,
                                                                        sum.data(), px.data(), none);
    CHECK(sum == std::vector<T>(3, T(0)));
    // k-min needs K terms: a kops::error, not K undefined slots.
    std::vector<T> km(6);
    REQUIRE_THROWS_WITH(B::eval(kops::kmin_reduction<2>(diff, kops::axis_j), 3, 0, km.data(), px.data(), none),
                        Catch::Contains("needs at least 2 terms per output row") && Catch::Contains("N = 0"));
  }
  SECTION("M = 0 (axis_j) or N = 0 (axis_i): no output rows, nothing read or written") {
    T* no_out = nullptr;
    REQUIRE_NOTHROW(B::eval(kops::sum_reduction(diff, kops::axis_j), 0, 3, no_out, none, px.data()));
    REQUIRE_NOTHROW(B::eval(kops::sum_reduction(diff, kops::axis_i), 3, 0, no_out, px.data(), none));
    REQUIRE_NOTHROW(B::eval(kops::sum_reduction(diff, kops::axis_j), 0, 0, no_out, none, none));
    std::int64_t* no_idx = nullptr;
    // No rows: the k-min rule does not apply (there is no range to fill).
    REQUIRE_NOTHROW(B::eval(kops::argkmin_reduction<2>(diff, kops::axis_j), 0, 1, no_idx, none, px.data()));
  }
}
