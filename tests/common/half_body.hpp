// Test body (included once per test executable): 16-bit storage (kops::half,
// kops::bfloat16; core/half.hpp) through each configuration of
// KOPS_TEST_CONFIGS_16 (backend, 16-bit type).
//
// A call on 16-bit arrays evaluates and accumulates in float, so against a
// double reference computed on the *stored* values (the 16-bit inputs
// widened, exactly) it is as accurate as a float call: the tolerances below
// are float ones, plus one rounding of the output when it is 16-bit. Against
// the float call on the original data, the difference is the inputs'
// rounding, bounded from the formula's derivatives (the Gaussian sum test).
#pragma once

#include "support.hpp"

#ifndef KOPS_TEST_CONFIGS_16
#error "define KOPS_TEST_CONFIGS_16 (backend, 16-bit type configurations) before including half_body.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace half_body {

using kops_test::close;

// Unit roundoff of S (half: 2^-11, bfloat16: 2^-8).
template <class S> constexpr double unit_roundoff() { return std::is_same_v<S, kops::half> ? 0x1p-11 : 0x1p-8; }

// Float-level tolerance of a reduction of a few hundred terms evaluated in float.
inline constexpr double float_tol = 1e-4;

template <class S>
std::vector<S> stored(const std::vector<double>& v) {
  std::vector<S> s(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) s[k] = S(v[k]);
  return s;
}
template <class S>
std::vector<double> widened(const std::vector<S>& s) {
  std::vector<double> v(s.size());
  for (std::size_t k = 0; k < s.size(); ++k) v[k] = double(float(s[k]));
  return v;
}

// x:(M,3) y:(N,3) b:(N,2) in 16 bits, and their values as doubles.
template <class S>
struct data16 {
  std::int64_t M, N;
  std::vector<S> x, y, b;
  std::vector<double> xd, yd, bd;       // the stored values, widened
  std::vector<double> xo, yo, bo;       // the original data
  data16(std::int64_t m, std::int64_t n, double spread, unsigned seed)
      : M(m), N(n),
        xo(kops_test::random_vector<double>(std::size_t(m * 3), 0, spread, seed)),
        yo(kops_test::random_vector<double>(std::size_t(n * 3), 0, spread, seed + 1)),
        bo(kops_test::random_vector<double>(std::size_t(n * 2), -1, 1, seed + 2)) {
    x = stored<S>(xo), y = stored<S>(yo), b = stored<S>(bo);
    xd = widened(x), yd = widened(y), bd = widened(b);
  }
  double d2(const std::vector<double>& X, const std::vector<double>& Y, std::int64_t i, std::int64_t j) const {
    double s = 0;
    for (int k = 0; k < 3; ++k) {
      const double t = X[std::size_t(i * 3 + k)] - Y[std::size_t(j * 3 + k)];
      s += t * t;
    }
    return s;
  }
};

constexpr auto x3 = kops::vi<0, 3>;
constexpr auto y3 = kops::vj<1, 3>;
constexpr auto b2 = kops::vj<2, 2>;

} // namespace half_body

TEMPLATE_TEST_CASE("16-bit storage: value reductions against double on the stored values", "[half]",
                   KOPS_TEST_CONFIGS_16) {
  using Be = typename TestType::backend;
  using S = typename TestType::type;
  using namespace half_body;
  const data16<S> d(37, 301, 1.5, 11);
  const std::int64_t M = d.M, N = d.N;
  const double u = unit_roundoff<S>();

  // Gaussian-weighted sum, axis j: out in float and in S.
  const auto gsum = kops::sum_reduction(kops::exp(-kops::sqdist(x3, y3)) * b2, kops::axis_j);
  std::vector<float> of(static_cast<std::size_t>(M * 2));
  std::vector<S> os(static_cast<std::size_t>(M * 2));
  Be::eval(gsum, M, N, of.data(), d.x.data(), d.y.data(), d.b.data());
  Be::eval(gsum, M, N, os.data(), d.x.data(), d.y.data(), d.b.data());
  for (std::int64_t i = 0; i < M; ++i)
    for (int k = 0; k < 2; ++k) {
      double ref = 0;
      for (std::int64_t j = 0; j < N; ++j) ref += std::exp(-d.d2(d.xd, d.yd, i, j)) * d.bd[std::size_t(j * 2 + k)];
      const std::size_t e = std::size_t(i * 2 + k);
      CHECK(close(of[e], ref, float_tol));
      // One rounding to S on top: half an ulp of the result, relative.
      CHECK(std::abs(double(float(os[e])) - ref) <= u * std::abs(ref) + float_tol * (std::abs(ref) + 1));
      // ... and exactly the float result rounded (both finalize the same accumulator).
      CHECK(float(os[e]) == float(S(of[e])));
    }

  // The same over i (axis_i), the j rows as output.
  const auto gsum_i = kops::sum_reduction(kops::exp(-kops::sqdist(x3, y3)), kops::axis_i);
  std::vector<float> oi(static_cast<std::size_t>(N));
  Be::eval(gsum_i, M, N, oi.data(), d.x.data(), d.y.data());
  for (std::int64_t j = 0; j < N; ++j) {
    double ref = 0;
    for (std::int64_t i = 0; i < M; ++i) ref += std::exp(-d.d2(d.xd, d.yd, i, j));
    CHECK(close(oi[std::size_t(j)], ref, float_tol));
  }

  // min, max, logsumexp, the softmax-weighted sum, k-min.
  const auto d2f = kops::sqdist(x3, y3);
  const std::size_t m = static_cast<std::size_t>(M);
  std::vector<float> omin(m), omax(m), olse(m), osm(m * 2), okmin(m * 3);
  std::vector<S> olse_s(static_cast<std::size_t>(M));
  Be::eval(kops::min_reduction(d2f, kops::axis_j), M, N, omin.data(), d.x.data(), d.y.data());
  Be::eval(kops::max_reduction(d2f, kops::axis_j), M, N, omax.data(), d.x.data(), d.y.data());
  Be::eval(kops::logsumexp_reduction(-d2f, kops::axis_j), M, N, olse.data(), d.x.data(), d.y.data());
  Be::eval(kops::logsumexp_reduction(-d2f, kops::axis_j), M, N, olse_s.data(), d.x.data(), d.y.data());
  Be::eval(kops::sumsoftmaxweight_reduction(-d2f, b2, kops::axis_j), M, N, osm.data(), d.x.data(), d.y.data(),
           d.b.data());
  Be::eval(kops::kmin_reduction<3>(d2f, kops::axis_j), M, N, okmin.data(), d.x.data(), d.y.data());
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> dist(static_cast<std::size_t>(N));
    for (std::int64_t j = 0; j < N; ++j) dist[std::size_t(j)] = d.d2(d.xd, d.yd, i, j);
    std::vector<double> sorted = dist;
    std::sort(sorted.begin(), sorted.end());
    CHECK(close(omin[std::size_t(i)], sorted.front(), float_tol, 1e-3));
    CHECK(close(omax[std::size_t(i)], sorted.back(), float_tol, 1e-3));
    for (int k = 0; k < 3; ++k) CHECK(close(okmin[std::size_t(i * 3 + k)], sorted[std::size_t(k)], float_tol, 1e-3));
    double s = 0, w0 = 0, w1 = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      const double e = std::exp(sorted.front() - dist[std::size_t(j)]);
      s += e, w0 += e * d.bd[std::size_t(j * 2)], w1 += e * d.bd[std::size_t(j * 2 + 1)];
    }
    const double lse = -sorted.front() + std::log(s);
    CHECK(close(olse[std::size_t(i)], lse, float_tol));
    CHECK(std::abs(double(float(olse_s[std::size_t(i)])) - lse) <= u * std::abs(lse) + float_tol * (std::abs(lse) + 1));
    CHECK(close(osm[std::size_t(i * 2)], w0 / s, float_tol));
    CHECK(close(osm[std::size_t(i * 2 + 1)], w1 / s, float_tol));
  }
}

TEMPLATE_TEST_CASE("16-bit storage: index reductions, int64 indices past 2048 terms", "[half]", KOPS_TEST_CONFIGS_16) {
  using Be = typename TestType::backend;
  using S = typename TestType::type;
  using namespace half_body;
  // KeOps' half mode stores indices in half and refuses N > 2048; here they
  // are std::int64_t whatever the storage. 5000 terms: the nearest
  // neighbours are spread over the whole axis.
  const data16<S> d(23, 5000, 4.0, 21);
  const std::int64_t M = d.M, N = d.N;
  const auto d2f = kops::sqdist(x3, y3);
  std::vector<std::int64_t> am(static_cast<std::size_t>(M)), ak(static_cast<std::size_t>(M * 4));
  std::vector<kops::value_index<float>> mam(static_cast<std::size_t>(M));
  Be::eval(kops::argmin_reduction(d2f, kops::axis_j), M, N, am.data(), d.x.data(), d.y.data());
  Be::eval(kops::argkmin_reduction<4>(d2f, kops::axis_j), M, N, ak.data(), d.x.data(), d.y.data());
  Be::eval(kops::min_argmin_reduction(d2f, kops::axis_j), M, N, mam.data(), d.x.data(), d.y.data());
  bool past_2048 = false;
  for (std::int64_t i = 0; i < M; ++i) {
    std::vector<double> dist(static_cast<std::size_t>(N));
    for (std::int64_t j = 0; j < N; ++j) dist[std::size_t(j)] = d.d2(d.xd, d.yd, i, j);
    std::vector<double> sorted = dist;
    std::sort(sorted.begin(), sorted.end());
    // The index's distance is the k-th smallest (within float rounding: the
    // stored data may have near-ties that float resolves either way).
    const auto at = [&](std::int64_t j) {
      REQUIRE(j >= 0);
      REQUIRE(j < N);
      return dist[std::size_t(j)];
    };
    CHECK(close(at(am[std::size_t(i)]), sorted[0], float_tol, 1e-3));
    CHECK(mam[std::size_t(i)].index == am[std::size_t(i)]);
    CHECK(close(mam[std::size_t(i)].value, sorted[0], float_tol, 1e-3));
    for (int k = 0; k < 4; ++k) {
      CHECK(close(at(ak[std::size_t(i * 4 + k)]), sorted[std::size_t(k)], float_tol, 1e-3));
      past_2048 = past_2048 || ak[std::size_t(i * 4 + k)] > 2048;
    }
  }
  CHECK(past_2048);
}

TEMPLATE_TEST_CASE("16-bit storage: gradients, the two-pass temporary in float", "[half]", KOPS_TEST_CONFIGS_16) {
  using Be = typename TestType::backend;
  using S = typename TestType::type;
  using namespace half_body;
  // Points spread over [0, 20]^3: each row's log-sum-exp (the first pass of
  // the gradient w.r.t. y) ranges over tens. Held in 16 bits it would be off
  // by up to u * |lse| (0.01-0.1 here), a 1-10 % error in every weight
  // exp(f - lse); held in float, the gradient is as accurate as a float call.
  const data16<S> d(29, 131, 20.0, 31);
  const std::int64_t M = d.M, N = d.N;
  const auto e1 = kops::vi<3, 1>;
  std::vector<S> e(static_cast<std::size_t>(M));
  for (std::int64_t i = 0; i < M; ++i) e[std::size_t(i)] = S(1.0 + 0.25 * double(i % 4));
  const std::vector<double> ed = widened(e);
  const auto lse = kops::logsumexp_reduction(-kops::sqdist(x3, y3), kops::axis_j);
  std::vector<float> gy(static_cast<std::size_t>(N * 3));
  Be::eval(kops::grad(lse, y3, e1), M, N, gy.data(), d.x.data(), d.y.data(), d.b.data(), e.data());
  std::vector<double> ref(static_cast<std::size_t>(N * 3), 0.0);
  double lse_max = 0;
  for (std::int64_t i = 0; i < M; ++i) {
    double m = std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < N; ++j) m = std::min(m, d.d2(d.xd, d.yd, i, j));
    double s = 0;
    for (std::int64_t j = 0; j < N; ++j) s += std::exp(m - d.d2(d.xd, d.yd, i, j));
    const double l = -m + std::log(s);
    lse_max = std::max(lse_max, std::abs(l));
    for (std::int64_t j = 0; j < N; ++j) {
      const double p = std::exp(-d.d2(d.xd, d.yd, i, j) - l);
      for (int k = 0; k < 3; ++k)
        ref[std::size_t(j * 3 + k)] +=
            ed[std::size_t(i)] * p * 2.0 * (d.xd[std::size_t(i * 3 + k)] - d.yd[std::size_t(j * 3 + k)]);
    }
  }
  CHECK(lse_max > 8);  // the test's premise
  double scale = 0;
  for (double r : ref) scale = std::max(scale, std::abs(r));
  for (std::size_t k = 0; k < ref.size(); ++k) CHECK(std::abs(gy[k] - ref[k]) <= 2e-4 * scale);

  // The Gaussian sum's gradient w.r.t. x (one pass), written in S.
  const auto gsum = kops::sum_reduction(kops::exp(-kops::sqdist(x3, y3)) * b2, kops::axis_j);
  const auto e2 = kops::vi<3, 2>;
  std::vector<S> e2v(static_cast<std::size_t>(M * 2));
  for (std::size_t k = 0; k < e2v.size(); ++k) e2v[k] = S(0.5 + 0.125 * double(k % 5));
  const std::vector<double> e2d = widened(e2v);
  std::vector<S> gx(static_cast<std::size_t>(M * 3));
  Be::eval(kops::grad(gsum, x3, e2), M, N, gx.data(), d.x.data(), d.y.data(), d.b.data(), e2v.data());
  const double u = unit_roundoff<S>();
  for (std::int64_t i = 0; i < M; ++i)
    for (int k = 0; k < 3; ++k) {
      double r = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const double w = std::exp(-d.d2(d.xd, d.yd, i, j)) *
                         (d.bd[std::size_t(j * 2)] * e2d[std::size_t(i * 2)] +
                          d.bd[std::size_t(j * 2 + 1)] * e2d[std::size_t(i * 2 + 1)]);
        r += w * -2.0 * (d.xd[std::size_t(i * 3 + k)] - d.yd[std::size_t(j * 3 + k)]);
      }
      CHECK(std::abs(double(float(gx[std::size_t(i * 3 + k)])) - r) <= u * std::abs(r) + 1e-4 * (std::abs(r) + 1));
    }
}

TEMPLATE_TEST_CASE("16-bit storage: against float on the original data, within the inputs' rounding", "[half]",
                   KOPS_TEST_CONFIGS_16) {
  using Be = typename TestType::backend;
  using S = typename TestType::type;
  using namespace half_body;
  // f_i = sum_j exp(-|x_i - y_j|^2) b_j. Rounding moves each input by at most
  // u |v|; to first order the term moves by at most
  //   k_ij (|b_j| 2 sum_d |x_id - y_jd| (|dx_id| + |dy_jd|) + |db_j|),
  // whose sum over j bounds |f16_i - f_i| (a factor 1.5 for the second order).
  const data16<S> d(31, 257, 1.5, 41);
  const std::int64_t M = d.M, N = d.N;
  const std::vector<float> xf(d.xo.begin(), d.xo.end()), yf(d.yo.begin(), d.yo.end()), bf(d.bo.begin(), d.bo.end());
  const auto gsum = kops::sum_reduction(kops::exp(-kops::sqdist(x3, y3)) * b2, kops::axis_j);
  std::vector<float> o16(static_cast<std::size_t>(M * 2)), o32(static_cast<std::size_t>(M * 2));
  Be::eval(gsum, M, N, o16.data(), d.x.data(), d.y.data(), d.b.data());
  Be::eval(gsum, M, N, o32.data(), xf.data(), yf.data(), bf.data());
  const double u = unit_roundoff<S>();
  for (std::int64_t i = 0; i < M; ++i)
    for (int k = 0; k < 2; ++k) {
      double bound = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const double kij = std::exp(-d.d2(d.xo, d.yo, i, j));
        double s = 0;
        for (int c = 0; c < 3; ++c) {
          const double xv = d.xo[std::size_t(i * 3 + c)], yv = d.yo[std::size_t(j * 3 + c)];
          s += std::abs(xv - yv) * (u * std::abs(xv) + u * std::abs(yv));
        }
        const double bv = d.bo[std::size_t(j * 2 + k)];
        bound += kij * (std::abs(bv) * 2 * s + u * std::abs(bv));
      }
      const std::size_t e = std::size_t(i * 2 + k);
      CHECK(std::abs(double(o16[e]) - double(o32[e])) <= 1.5 * bound + float_tol * (std::abs(o32[e]) + 1));
    }
}

TEMPLATE_TEST_CASE("16-bit storage: 16-bit output overflow, NaN inputs, batches", "[half]", KOPS_TEST_CONFIGS_16) {
  using Be = typename TestType::backend;
  using S = typename TestType::type;
  using namespace half_body;
  // A sum past 65504 (half's largest finite value): Inf in half, finite in
  // float; bfloat16 has float's range, so it is finite there too.
  const std::int64_t M = 3, N = 3000;
  const auto sum = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  std::vector<S> xs(static_cast<std::size_t>(M), S(1.0f)), ys(static_cast<std::size_t>(N), S(30.0f));
  xs[2] = S(std::numeric_limits<float>::quiet_NaN());
  std::vector<S> os(static_cast<std::size_t>(M));
  std::vector<float> of(static_cast<std::size_t>(M));
  Be::eval(sum, M, N, os.data(), xs.data(), ys.data());
  Be::eval(sum, M, N, of.data(), xs.data(), ys.data());
  CHECK(of[0] == 90000.0f);
  if constexpr (std::is_same_v<S, kops::half>) CHECK(std::isinf(float(os[0])));
  else CHECK(float(os[0]) == float(S(90000.0f)));
  CHECK(std::isnan(float(os[2])));
  CHECK(std::isnan(of[2]));

  // Batches: per-batch 16-bit arrays, the sum over the batches rounded once.
  const std::int64_t B = 3, Mb = 5, Nb = 7;
  std::vector<S> xb(static_cast<std::size_t>(B * Mb)), yb(static_cast<std::size_t>(B * Nb));
  for (std::size_t k = 0; k < xb.size(); ++k) xb[k] = S(0.25 * double(k % 7) + 0.5);
  for (std::size_t k = 0; k < yb.size(); ++k) yb[k] = S(0.125 * double(k % 5) + 1.0);
  std::vector<S> each(static_cast<std::size_t>(B * Mb)), total(static_cast<std::size_t>(Mb));
  std::vector<float> total_f(static_cast<std::size_t>(Mb));
  Be::eval(sum, Mb, Nb, each.data(), kops::per_batch(xb.data()), kops::per_batch(yb.data()), kops::batch{B});
  Be::eval(sum, Mb, Nb, total.data(), kops::per_batch(xb.data()), kops::per_batch(yb.data()),
           kops::batch{B, kops::batch_output::sum});
  Be::eval(sum, Mb, Nb, total_f.data(), kops::per_batch(xb.data()), kops::per_batch(yb.data()),
           kops::batch{B, kops::batch_output::sum});
  for (std::int64_t i = 0; i < Mb; ++i) {
    float t = 0;  // every term and partial sum here is exact in float
    for (std::int64_t b = 0; b < B; ++b) {
      float s = 0;
      for (std::int64_t j = 0; j < Nb; ++j)
        s += float(xb[std::size_t(b * Mb + i)]) * float(yb[std::size_t(b * Nb + j)]);
      CHECK(float(each[std::size_t(b * Mb + i)]) == float(S(s)));
      t += s;
    }
    CHECK(total_f[std::size_t(i)] == t);
    CHECK(float(total[std::size_t(i)]) == float(S(t)));
  }
}

TEMPLATE_TEST_CASE("16-bit storage: block-sparse calls", "[half]", KOPS_TEST_CONFIGS_16) {
  using Be = typename TestType::backend;
  using S = typename TestType::type;
  using namespace half_body;
  // Two row blocks: rows [0, 20) over j in [0, 30) and [60, 90); rows [20, 41)
  // over [25, 75). A sum written in S and an argmin, against double loops on
  // the stored values over the kept terms.
  const data16<S> d(41, 90, 2.0, 51);
  const std::int64_t M = d.M, N = d.N;
  const kops::range rows[] = {{0, 20}, {20, 41}};
  const std::int64_t slices[] = {2, 3};
  const kops::range reduced[] = {{0, 30}, {60, 90}, {25, 75}};
  const kops::block_sparsity sp{rows, 2, slices, reduced};
  auto kept = [&](std::int64_t i, std::int64_t j) {
    return i < 20 ? (j < 30 || j >= 60) : (j >= 25 && j < 75);
  };
  const auto gsum = kops::sum_reduction(kops::exp(-kops::sqdist(x3, y3)) * b2, kops::axis_j);
  std::vector<S> os(static_cast<std::size_t>(M * 2));
  std::vector<std::int64_t> am(static_cast<std::size_t>(M));
  Be::eval(gsum, M, N, os.data(), d.x.data(), d.y.data(), d.b.data(), sp);
  Be::eval(kops::argmin_reduction(kops::sqdist(x3, y3), kops::axis_j), M, N, am.data(), d.x.data(), d.y.data(), sp);
  const double u = unit_roundoff<S>();
  for (std::int64_t i = 0; i < M; ++i) {
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 2; ++k) {
      double ref = 0;
      for (std::int64_t j = 0; j < N; ++j)
        if (kept(i, j)) ref += std::exp(-d.d2(d.xd, d.yd, i, j)) * d.bd[std::size_t(j * 2 + k)];
      const double got = double(float(os[std::size_t(i * 2 + k)]));
      CHECK(std::abs(got - ref) <= u * std::abs(ref) + float_tol * (std::abs(ref) + 1));
    }
    for (std::int64_t j = 0; j < N; ++j)
      if (kept(i, j)) best = std::min(best, d.d2(d.xd, d.yd, i, j));
    const std::int64_t j = am[std::size_t(i)];
    REQUIRE(j >= 0);
    REQUIRE(j < N);
    CHECK(kept(i, j));
    CHECK(close(d.d2(d.xd, d.yd, i, j), best, float_tol, 1e-3));
  }
}

TEMPLATE_TEST_CASE("16-bit storage: batched two-pass gradients, parameters, sums over batches, float64 accumulation",
                   "[half]", KOPS_TEST_CONFIGS_16) {
  using Be = typename TestType::backend;
  using S = typename TestType::type;
  using namespace half_body;
  // A batched two-pass gradient: each batch's first pass (a float temporary)
  // at its own offset, against B plain calls, bit for bit (the same plan: the
  // configurations fix the scheme and chunk). M odd: a temporary counted in
  // 16-bit units would start batch 1 in the middle of a float.
  const std::int64_t B = 3, M = 13, N = 29;
  const auto X = stored<S>(kops_test::random_vector<double>(std::size_t(B * M * 3), 0, 4, 61));
  const auto Y = stored<S>(kops_test::random_vector<double>(std::size_t(B * N * 3), 0, 4, 62));
  const auto E = stored<S>(kops_test::random_vector<double>(std::size_t(B * M), 0.5, 1.5, 63));
  const auto G = stored<S>({0.5, 1.25, 2.0});
  const auto g = kops::pm<3, 1>;
  const auto e = kops::vi<4, 1>;
  const auto lse = kops::logsumexp_reduction(-g * kops::sqdist(x3, y3), kops::axis_j);
  const auto gy = kops::grad(lse, y3, e);
  const std::vector<S> unused(1);
  std::vector<float> got(static_cast<std::size_t>(B * N * 3)), one(static_cast<std::size_t>(N * 3));
  Be::eval(gy, M, N, got.data(), kops::per_batch(X.data()), kops::per_batch(Y.data()), unused.data(),
           kops::per_batch(G.data()), kops::per_batch(E.data()), kops::batch{B});
  for (std::int64_t b = 0; b < B; ++b) {
    Be::eval(gy, M, N, one.data(), X.data() + b * M * 3, Y.data() + b * N * 3, unused.data(), G.data() + b,
             E.data() + b * M);
    for (std::int64_t k = 0; k < N * 3; ++k) CHECK(got[std::size_t(b * N * 3 + k)] == one[std::size_t(k)]);
  }

  // A parameter (read once per thread on the GPU, broadcast on the CPU),
  // against double on the stored values.
  const auto gauss = kops::sum_reduction(kops::exp(-g * kops::sqdist(x3, y3)), kops::axis_j);
  std::vector<float> og(static_cast<std::size_t>(M)), og64(static_cast<std::size_t>(M));
  Be::eval(gauss, M, N, og.data(), X.data(), Y.data(), unused.data(), G.data() + 1);
  const std::vector<double> Xd = widened(X), Yd = widened(Y);
  const double gd = double(float(G[1]));
  for (std::int64_t i = 0; i < M; ++i) {
    double ref = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double t = Xd[std::size_t(i * 3 + k)] - Yd[std::size_t(j * 3 + k)];
        d2 += t * t;
      }
      ref += std::exp(-gd * d2);
    }
    CHECK(close(og[std::size_t(i)], ref, float_tol));
  }
  // Accumulated in double: the same within float rounding.
  Be::template eval<kops::dtype_acc::float64>(gauss, M, N, og64.data(), X.data(), Y.data(), unused.data(),
                                               G.data() + 1);
  for (std::int64_t i = 0; i < M; ++i) CHECK(close(og64[std::size_t(i)], og[std::size_t(i)], float_tol));

  // The sum over batches written in S is the float sum rounded once (a sum
  // kept in S would round at every batch: these values are not exact in S).
  std::vector<S> total(static_cast<std::size_t>(M));
  std::vector<float> total_f(static_cast<std::size_t>(M));
  Be::eval(gauss, M, N, total.data(), kops::per_batch(X.data()), kops::per_batch(Y.data()), unused.data(),
           kops::per_batch(G.data()), kops::batch{B, kops::batch_output::sum});
  Be::eval(gauss, M, N, total_f.data(), kops::per_batch(X.data()), kops::per_batch(Y.data()), unused.data(),
           kops::per_batch(G.data()), kops::batch{B, kops::batch_output::sum});
  for (std::int64_t i = 0; i < M; ++i) CHECK(float(total[std::size_t(i)]) == float(S(total_f[std::size_t(i)])));
}
