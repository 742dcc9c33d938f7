// Summation schemes and float64 accumulation of sum reductions, chosen per call
// (core/sum_scheme.hpp, core/dtype_acc.hpp, core/policy.hpp): accuracy at
// N = 1e7, agreement with double loops on both axes, the combine step GPU_2D
// uses, special values, and the policy arguments themselves.
#include "test_support.hpp"

#include <kops/core/policy.hpp>
#include <kops/core/scalar_math.hpp>
#include <kops/reductions/detail/scheme_sum.hpp>

using namespace kops_test;
using kops::dtype_acc;
using kops::precision;
using kops::sum_scheme;

namespace {

// out_i = sum_j x_i y_j, with x_i a power of 2: every term is exact in float,
// so the double sum of the same float data is the exact reference up to 1e-16.
constexpr auto xy = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);

// The rows px repeated to 64: every SIMD pack of rows is then full on every
// ISA (blocks of at most 2 packs of 16 floats), and each row's terms are summed
// by one accumulator in axis order. (Rows that fill only one pack of a block
// have their axis split between two: backends/kokkos/block_kernel.hpp.)
std::vector<float> full_packs(const std::vector<float>& px) {
  std::vector<float> rows(64);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = px[i % px.size()];
  return rows;
}

template <auto... Pol>
double worst_error(std::int64_t N, const std::vector<float>& px_given, const std::vector<float>& py) {
  const std::vector<float> px = full_packs(px_given);
  const std::int64_t M = std::int64_t(px.size());
  std::vector<float> out(std::size_t(M), -1.0f);
  // One pass over the whole axis, on any number of threads: the automatic plan
  // would cut these few rows' axis into slices on several threads
  // (backends/kokkos/eval.hpp), summed separately, which is more accurate for
  // every scheme and would hide what this test measures.
  REQUIRE(kops::kokkos::detail::eval_impl<kops::detail::policy_of_t<Pol...>, decltype(xy), float, float>(
      kops::kokkos::detail::host_exec{1, false}, M, N, out.data(), px.data(), py.data()));
  double s = 0;
  for (std::int64_t j = 0; j < N; ++j) s += double(py[std::size_t(j)]);
  double worst = 0;
  for (std::int64_t i = 0; i < M; ++i) {
    const double ref = double(px[std::size_t(i)]) * s;
    worst = std::max(worst, std::abs(double(out[std::size_t(i)]) - ref) / std::abs(ref));
  }
  return worst;
}

} // namespace

TEST_CASE("N = 1e7 in float: Kahan and float64 sums are within 1e-6 where the direct sum is not", "[accuracy]") {
  const std::int64_t N = 10000000;
  const std::vector<float> px{1.0f, 0.5f};

  SECTION("uniform terms in [0, 1)") {
    const auto py = random_vector<float>(std::size_t(N), 0.0, 1.0, 2024);
    const double direct = worst_error<sum_scheme::direct>(N, px, py);
    const double block = worst_error<sum_scheme::block>(N, px, py);
    const double kahan = worst_error<sum_scheme::kahan>(N, px, py);
    const double wide = worst_error<sum_scheme::direct, dtype_acc::float64>(N, px, py);
    const double wide_kahan = worst_error<dtype_acc::float64, sum_scheme::kahan>(N, px, py);
    const double by_default = worst_error<>(N, px, py);
    INFO("relative errors: direct " << direct << ", block " << block << ", kahan " << kahan << ", float64 "
                                    << wide << ", float64 kahan " << wide_kahan);
    CHECK(direct > 1e-5);
    // The block sum gains a factor ~50 here but not 1e-6: its n / B adds into
    // the total (~5e6) still err like a random walk, ~sqrt(n / B) u |S|.
    CHECK(block < direct / 20);
    CHECK(block < 5e-6);
    CHECK(kahan < 1e-7);
    CHECK(wide < 1e-7);
    CHECK(wide_kahan < 1e-7);
    CHECK(by_default == block);  // block is the default scheme
  }

  SECTION("a constant term 0.1f: the direct sum's error is systematic") {
    // Every add rounds the same way for long stretches: the direct float sum of
    // 1e7 terms of 0.1f is off by 8.8%. Block sums keep the bias of n / B adds
    // of one block's sum (error ~ (n / B) u, u = 6e-8); Kahan and float64 do not.
    const std::vector<float> py(std::size_t(N), 0.1f);
    const double direct = worst_error<sum_scheme::direct>(N, px, py);
    const double block = worst_error<sum_scheme::block>(N, px, py);
    const double kahan = worst_error<sum_scheme::kahan>(N, px, py);
    const double wide = worst_error<dtype_acc::float64>(N, px, py);
    INFO("relative errors: direct " << direct << ", block " << block << ", kahan " << kahan << ", float64 " << wide);
    CHECK(direct > 5e-2);
    CHECK(block < double(N) / kops::block_sum_length * 6e-8);
    CHECK(kahan < 1e-7);
    CHECK(wide < 1e-7);
  }
}

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 2>;
constexpr auto gauss_j = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
// The same kernel reduced over i, weighted by an i variable: out_j = sum_i exp(-|x_i - y_j|^2) c_i.
constexpr auto c = kops::vi<2, 2>;
constexpr auto gauss_i = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * c, kops::axis_i);

template <class T>
struct gauss_data {
  std::int64_t M, N;
  std::vector<T> px, py, pb, pc;
  gauss_data(std::int64_t m, std::int64_t n)
      : M(m), N(n), px(random_vector<T>(std::size_t(m) * 3, 0, 1, 11)), py(random_vector<T>(std::size_t(n) * 3, 0, 1, 12)),
        pb(random_vector<T>(std::size_t(n) * 2, -1, 1, 13)), pc(random_vector<T>(std::size_t(m) * 2, -1, 1, 14)) {}
  double k(std::int64_t i, std::int64_t j) const {
    double d2 = 0;
    for (int q = 0; q < 3; ++q) {
      const double d = double(px[std::size_t(i * 3 + q)]) - double(py[std::size_t(j * 3 + q)]);
      d2 += d * d;
    }
    return std::exp(-d2);
  }
};

// |out - ref| <= tol * sum |terms|, row by row, for both axes.
template <class T, auto... Pol>
void check_against_loops(const gauss_data<T>& d, double tol) {
  std::vector<T> oj(std::size_t(d.M) * 2), oi(std::size_t(d.N) * 2);
  kops::kokkos::eval<Pol...>(gauss_j, d.M, d.N, oj.data(), d.px.data(), d.py.data(), d.pb.data());
  kops::kokkos::eval<Pol...>(gauss_i, d.M, d.N, oi.data(), d.px.data(), d.py.data(), d.pc.data());
  for (std::int64_t i = 0; i < d.M; ++i)
    for (int q = 0; q < 2; ++q) {
      double s = 0, a = 0;
      for (std::int64_t j = 0; j < d.N; ++j) {
        const double t = d.k(i, j) * double(d.pb[std::size_t(j * 2 + q)]);
        s += t;
        a += std::abs(t);
      }
      INFO("axis_j row " << i << " component " << q);
      REQUIRE(std::abs(double(oj[std::size_t(i * 2 + q)]) - s) <= tol * a);
    }
  for (std::int64_t j = 0; j < d.N; ++j)
    for (int q = 0; q < 2; ++q) {
      double s = 0, a = 0;
      for (std::int64_t i = 0; i < d.M; ++i) {
        const double t = d.k(i, j) * double(d.pc[std::size_t(i * 2 + q)]);
        s += t;
        a += std::abs(t);
      }
      INFO("axis_i row " << j << " component " << q);
      REQUIRE(std::abs(double(oi[std::size_t(j * 2 + q)]) - s) <= tol * a);
    }
}

} // namespace

TEMPLATE_TEST_CASE("every scheme and accumulator matches a double loop on both axes", "[accuracy]", float, double) {
  using T = TestType;
  // 2500 reduced terms: two full blocks of 1024 and a partial one; 37 and 2500
  // output rows: partial SIMD blocks on both axes.
  const gauss_data<T> d(2500, 37);
  const gauss_data<T> e(37, 2500);
  // The per-term evaluation error (exp, products: a few u) bounds what any
  // scheme can reach; the direct sum adds up to n u.
  const double u = std::numeric_limits<T>::epsilon();
  for (const auto* dd : {&d, &e}) {
    check_against_loops<T, sum_scheme::direct>(*dd, (8 + 2500) * u);
    check_against_loops<T, sum_scheme::block>(*dd, (8 + 1024 + 3) * u);
    check_against_loops<T, sum_scheme::kahan>(*dd, 16 * u);
    check_against_loops<T, dtype_acc::float64>(*dd, 16 * u);
    check_against_loops<T, dtype_acc::float64, sum_scheme::kahan>(*dd, 16 * u);
    check_against_loops<T, sum_scheme::kahan, precision::fast>(*dd, 200 * u);
  }
}

TEMPLATE_TEST_CASE("below one block, the block sum is the direct sum bit for bit", "[accuracy]", float, double) {
  using T = TestType;
  const gauss_data<T> d(50, kops::block_sum_length);
  std::vector<T> direct(100), block(100);
  kops::kokkos::eval<sum_scheme::direct>(gauss_j, d.M, d.N, direct.data(), d.px.data(), d.py.data(), d.pb.data());
  kops::kokkos::eval<sum_scheme::block>(gauss_j, d.M, d.N, block.data(), d.px.data(), d.py.data(), d.pb.data());
  CHECK(direct == block);
}

TEST_CASE("gradients (sums, two-pass chains) take the call's scheme", "[accuracy]") {
  // The gradient w.r.t. x of a Gaussian sum is a sum over j: with float64
  // accumulation it is the double gradient rounded once, much closer than direct.
  const std::int64_t M = 3, N = 200000;
  const auto px = random_vector<float>(9, 0, 1, 21), py = random_vector<float>(std::size_t(N) * 3, 0, 1, 22);
  const auto pb = random_vector<float>(std::size_t(N) * 2, 0, 1, 23), pe = random_vector<float>(6, 0.5, 1, 24);
  const auto dgrad = kops::grad(gauss_j, x, kops::vi<3, 2>);
  std::vector<float> direct(9), wide(9), kahan(9);
  kops::kokkos::eval<sum_scheme::direct>(dgrad, M, N, direct.data(), px.data(), py.data(), pb.data(), pe.data());
  kops::kokkos::eval<dtype_acc::float64>(dgrad, M, N, wide.data(), px.data(), py.data(), pb.data(), pe.data());
  kops::kokkos::eval<sum_scheme::kahan>(dgrad, M, N, kahan.data(), px.data(), py.data(), pb.data(), pe.data());
  const std::vector<double> dx(px.begin(), px.end()), dy(py.begin(), py.end()), db(pb.begin(), pb.end()),
      de(pe.begin(), pe.end());
  std::vector<double> ref(9);
  kops::kokkos::eval<sum_scheme::direct>(dgrad, M, N, ref.data(), dx.data(), dy.data(), db.data(), de.data());
  double err_direct = 0, err_wide = 0, err_kahan = 0;
  for (int k = 0; k < 9; ++k) {
    const double scale = std::abs(ref[std::size_t(k)]) + 1;
    err_direct = std::max(err_direct, std::abs(direct[std::size_t(k)] - ref[std::size_t(k)]) / scale);
    err_wide = std::max(err_wide, std::abs(wide[std::size_t(k)] - ref[std::size_t(k)]) / scale);
    err_kahan = std::max(err_kahan, std::abs(kahan[std::size_t(k)] - ref[std::size_t(k)]) / scale);
  }
  INFO("direct " << err_direct << " float64 " << err_wide << " kahan " << err_kahan);
  CHECK(err_wide < 1e-6);
  CHECK(err_kahan < 1e-6);
  CHECK(err_wide * 10 < err_direct);

  // A two-pass gradient (logsumexp w.r.t. the reduced variable) passes the
  // policies to both passes and gives the same values under every scheme.
  constexpr auto lse = kops::logsumexp_reduction(-kops::sqdist(x, y), kops::axis_j);
  const auto lgrad = kops::grad(lse, y, kops::vi<2, 1>);
  const std::int64_t m = 300, n = 40;
  const auto qx = random_vector<double>(std::size_t(m) * 3, 0, 1, 31), qy = random_vector<double>(std::size_t(n) * 3, 0, 1, 32);
  const auto qe = random_vector<double>(std::size_t(m), 0, 1, 33);
  std::vector<double> g0(std::size_t(n) * 3), g1(std::size_t(n) * 3), g2(std::size_t(n) * 3);
  kops::kokkos::eval<sum_scheme::direct>(lgrad, m, n, g0.data(), qx.data(), qy.data(), qe.data());
  kops::kokkos::eval<sum_scheme::kahan>(lgrad, m, n, g1.data(), qx.data(), qy.data(), qe.data());
  kops::kokkos::eval<sum_scheme::block, dtype_acc::float64>(lgrad, m, n, g2.data(), qx.data(), qy.data(), qe.data());
  for (std::size_t k = 0; k < g0.size(); ++k) {
    CHECK(g1[k] == Approx(g0[k]).epsilon(1e-12).margin(1e-14));
    CHECK(g2[k] == Approx(g0[k]).epsilon(1e-12).margin(1e-14));
  }
}

namespace {

// The op-level view of GPU_2D: a range split into chunks, each accumulated from
// init, then combined in order (gpu_2d.hpp), on the scalar math provider.
template <sum_scheme S, dtype_acc A>
double chunked_sum(const std::vector<float>& t, const std::vector<std::size_t>& cuts) {
  using Op = kops::detail::accumulation_op_t<kops::sum_op, S, A>;
  using M = kops::scalar_math;
  auto total = Op::template init<M, float, 1>(0);
  std::size_t begin = 0;
  for (std::size_t k = 0; k <= cuts.size(); ++k) {
    const std::size_t end = k < cuts.size() ? cuts[k] : t.size();
    auto part = Op::template init<M, float, 1>(std::int64_t(begin));
    for (std::size_t j = begin; j < end; ++j) Op::template accumulate<M>(part, kops::vec<float, 1>{{t[j]}}, std::int64_t(j));
    if (k == 0) total = part;
    else Op::template combine<M>(total, part);
    begin = end;
  }
  float out = 0;
  Op::template finalize<M>(total, 0, &out);
  return out;
}

} // namespace

TEST_CASE("combine (GPU_2D's second pass) keeps each scheme's accuracy", "[accuracy]") {
  const std::vector<float> t(300000, 0.1f);
  const double ref = double(0.1f) * double(t.size());
  const std::vector<std::size_t> one_chunk{}, chunks{1000, 1001, 50000, 123457, 200000, 299999};
  auto rel = [&](double v) { return std::abs(v - ref) / ref; };
  // Plain sum_op is the direct scheme in the data's type.
  STATIC_REQUIRE(std::is_same_v<kops::detail::accumulation_op_t<kops::sum_op, sum_scheme::direct, dtype_acc::same>, kops::sum_op>);
  STATIC_REQUIRE(std::is_same_v<kops::detail::accumulation_op_t<kops::min_op, sum_scheme::kahan, dtype_acc::float64>, kops::min_op>);
#ifndef __ASSOCIATIVE_MATH__  // -ffast-math may reorder the direct sum of a scalar loop
  CHECK(rel(chunked_sum<sum_scheme::direct, dtype_acc::same>(t, one_chunk)) > 1e-3);
#endif
  for (const auto& cuts : {one_chunk, chunks}) {
    INFO(cuts.size() << " cuts");
    CHECK(rel(chunked_sum<sum_scheme::kahan, dtype_acc::same>(t, cuts)) < 1e-7);
    CHECK(rel(chunked_sum<sum_scheme::direct, dtype_acc::float64>(t, cuts)) < 1e-7);
    CHECK(rel(chunked_sum<sum_scheme::kahan, dtype_acc::float64>(t, cuts)) < 1e-7);
    CHECK(rel(chunked_sum<sum_scheme::block, dtype_acc::same>(t, cuts)) < 300000.0 / kops::block_sum_length * 6e-8 + 1e-6);
  }
  // Kahan's compensation survives the merge: b's compensation is added, not dropped.
  std::vector<float> mixed{1.0f};
  for (int k = 0; k < 1000; ++k) mixed.push_back(1e-8f);
  const double mixed_ref = 1.0 + 1000 * double(1e-8f);
#ifndef __ASSOCIATIVE_MATH__
  CHECK(chunked_sum<sum_scheme::direct, dtype_acc::same>(mixed, {}) == 1.0);
#endif
  CHECK(std::abs(chunked_sum<sum_scheme::kahan, dtype_acc::same>(mixed, {}) - mixed_ref) < 1e-7);
  CHECK(std::abs(chunked_sum<sum_scheme::kahan, dtype_acc::same>(mixed, {1, 400, 700}) - mixed_ref) < 1e-7);
}

TEMPLATE_TEST_CASE("special values: every scheme gives what the direct sum gives", "[accuracy][bad_input]", float, double) {
  using T = TestType;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T big = std::numeric_limits<T>::max() / 2 * T(1.5);  // big + big overflows
  constexpr auto sum_y = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  const std::vector<T> px{1};
  // (terms, expected: +inf, -inf or NaN)
  const std::vector<std::pair<std::vector<T>, T>> cases{
      {{1, inf, 2}, inf}, {{1, -inf, 2, 3}, -inf}, {{1, nan, 2}, nan}, {{inf, 1, -inf}, nan},
      {{big, big, T(1)}, inf}};
  auto run = [&]<auto... Pol>(const std::vector<T>& py) {
    T out = 0;
    kops::kokkos::eval<Pol...>(sum_y, 1, std::int64_t(py.size()), &out, px.data(), py.data());
    return out;
  };
  auto same = [](T a, T b) { return std::isnan(b) ? std::isnan(a) : a == b; };
  for (const auto& [py, expected] : cases) {
    INFO("case " << py[0] << " " << py[1] << " ...");
    CHECK(same(run.template operator()<sum_scheme::direct>(py), expected));
    CHECK(same(run.template operator()<sum_scheme::block>(py), expected));
    CHECK(same(run.template operator()<sum_scheme::kahan>(py), expected));
    CHECK(same(run.template operator()<sum_scheme::kahan, dtype_acc::float64>(py), expected));
  }
  // A float sum that overflows float does not overflow a double accumulator:
  // the result is the exact sum rounded to float once.
  if constexpr (std::is_same_v<T, float>) {
    const std::vector<T> py{big, big, -big};
    CHECK(run.template operator()<sum_scheme::direct>(py) == inf);
    CHECK(run.template operator()<dtype_acc::float64>(py) == big);
  }
}

TEST_CASE("policies: any order, each kind at most once, defaults documented", "[accuracy]") {
  using kops::detail::policy_of_t;
  using kops::detail::valid_policies_v;
  STATIC_REQUIRE(std::is_same_v<policy_of_t<>, kops::policy<precision::accurate, sum_scheme::block, dtype_acc::same>>);
  STATIC_REQUIRE(kops::default_sum_scheme == sum_scheme::block);
  STATIC_REQUIRE(std::is_same_v<policy_of_t<dtype_acc::float64, precision::fast>,
                                kops::policy<precision::fast, sum_scheme::block, dtype_acc::float64>>);
  STATIC_REQUIRE(std::is_same_v<policy_of_t<sum_scheme::kahan, precision::fast>, policy_of_t<precision::fast, sum_scheme::kahan>>);
  STATIC_REQUIRE(valid_policies_v<>);
  STATIC_REQUIRE(valid_policies_v<precision::fast, sum_scheme::direct, dtype_acc::same>);
  STATIC_REQUIRE(!valid_policies_v<sum_scheme::kahan, sum_scheme::block>);
  STATIC_REQUIRE(!valid_policies_v<precision::fast, precision::accurate>);
  STATIC_REQUIRE(!valid_policies_v<3>);
}

TEST_CASE("the CPU's loop-flushed block sum is the counted block sum (GPU) bit for bit", "[accuracy]") {
  // The CPU kernel flushes between its blocks of block_sum_length indices, the
  // GPU op counts terms: the same adds in the same order.
  const std::int64_t N = 5 * kops::block_sum_length + 77;
  const auto py = random_vector<float>(std::size_t(N), 0, 1, 61);
  const std::vector<float> px = full_packs({1.0f});
  const std::int64_t M = std::int64_t(px.size());
  const kops::kokkos::detail::host_exec one_pass{1, false};
  std::vector<float> out(px.size());
  REQUIRE(kops::kokkos::detail::eval_impl<kops::detail::policy_of_t<sum_scheme::block>, decltype(xy), float, float>(
      one_pass, M, N, out.data(), px.data(), py.data()));
  const float cpu = out[0];
  CHECK(cpu == float(chunked_sum<sum_scheme::block, dtype_acc::same>(py, {})));
  REQUIRE(kops::kokkos::detail::eval_impl<kops::detail::policy_of_t<sum_scheme::direct>, decltype(xy), float, float>(
      one_pass, M, N, out.data(), px.data(), py.data()));
  const float direct = out[0];
  CHECK(direct == float(chunked_sum<sum_scheme::direct, dtype_acc::same>(py, {})));
  CHECK(cpu != direct);  // the flushes changed the rounding: the scheme did run
}
