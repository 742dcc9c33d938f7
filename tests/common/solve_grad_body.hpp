// Test body of the gradients through a solve (kops::solve_grad) and w.r.t. a
// cloud read on both axes (kops::grad(red, kops::tied(x, y), e)), included once
// per test executable. The references are independent of kops: central finite
// differences of double loops (the reduction) and of a dense direct solve by
// Cholesky factorisation (the solve). KOPS_SOLVE_GRAD_CONFIGS (defined by the
// includer): a list of cfg<Backend, double>, Backend::solve(...) and
// Backend::eval(...) taking host pointers.
#pragma once

#include "support.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include <kops/solve/options.hpp>

#ifndef KOPS_SOLVE_GRAD_CONFIGS
#error "define KOPS_SOLVE_GRAD_CONFIGS (the backend configurations) before including solve_grad_body.hpp"
#endif

namespace solve_grad_test {

using namespace kops_test;

constexpr std::int64_t n = 40;  // points of the cloud
constexpr int D = 2;            // columns of b and a
constexpr double alpha = 0.5;
constexpr double scale = 2.0;   // g
constexpr double h = 1e-6;      // finite-difference step

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, D>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto e = kops::vi<4, D>;  // the adjoint's slot
constexpr auto K = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);

// L(p, b, g) = w . a with (alpha Id + K(p, p)) a = b, K_ij = exp(-g |p_i - p_j|^2),
// in double by a Cholesky factorisation A = C C^T (A is symmetric positive
// definite: alpha > 0, K a Gaussian kernel matrix), then C z = b, C^T a = z.
inline double dense_loss(const std::vector<double>& p, const std::vector<double>& rhs, double gs,
                         const std::vector<double>& w) {
  std::vector<double> C(std::size_t(n * n), 0.0);  // lower triangle
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j <= i; ++j) {
      double d2 = 0;
      for (int c = 0; c < 3; ++c) d2 += (p[i * 3 + c] - p[j * 3 + c]) * (p[i * 3 + c] - p[j * 3 + c]);
      double s = std::exp(-gs * d2) + (i == j ? alpha : 0.0);
      for (std::int64_t k = 0; k < j; ++k) s -= C[i * n + k] * C[j * n + k];
      C[i * n + j] = i == j ? std::sqrt(s) : s / C[j * n + j];
    }
  std::vector<double> z = rhs;
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < D; ++c) {
      for (std::int64_t k = 0; k < i; ++k) z[i * D + c] -= C[i * n + k] * z[k * D + c];
      z[i * D + c] /= C[i * n + i];
    }
  double loss = 0;
  for (std::int64_t i = n - 1; i >= 0; --i)
    for (int c = 0; c < D; ++c) {
      for (std::int64_t k = i + 1; k < n; ++k) z[i * D + c] -= C[k * n + i] * z[k * D + c];
      z[i * D + c] /= C[i * n + i];
      loss += w[i * D + c] * z[i * D + c];
    }
  return loss;
}

// d loss / d v_k for every entry of v, by central differences (v restored).
template <class Loss>
std::vector<double> finite_differences(std::vector<double>& v, Loss loss) {
  std::vector<double> d(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    const double v0 = v[k];
    v[k] = v0 + h;
    const double up = loss();
    v[k] = v0 - h;
    const double down = loss();
    v[k] = v0;
    d[k] = (up - down) / (2 * h);
  }
  return d;
}

// max_k |a_k - b_k| / max_k |b_k|
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& ref) {
  double diff = 0, size = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    diff = std::max(diff, std::abs(a[k] - ref[k]));
    size = std::max(size, std::abs(ref[k]));
  }
  return diff / size;
}

// A reduction that reads x_i and y_j asymmetrically, b_j too: the two parts
// of the tied gradient differ.
//   out_i = sum_j exp(-g |x_i - y_j|^2) b_j + sin(sum_c x_ic y_jc^2)
constexpr auto b1 = kops::vj<2, 1>;
constexpr auto e1 = kops::vi<4, 1>;
constexpr auto asym = kops::sum_reduction(
    kops::exp(-g * kops::sqdist(x, y)) * b1 + kops::sin(kops::sum(x * kops::square(y))), kops::axis_j);

// e . asym with the cloud p on both axes, in double loops; with blocks > 1
// only the pairs (i, j) in the same of `blocks` equal blocks of points.
inline double asym_loss(const std::vector<double>& p, const std::vector<double>& pb, double gs,
                        const std::vector<double>& pe, std::int64_t blocks = 1) {
  double s = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i * blocks / n != j * blocks / n) continue;
      double d2 = 0, t = 0;
      for (int c = 0; c < 3; ++c) {
        d2 += (p[i * 3 + c] - p[j * 3 + c]) * (p[i * 3 + c] - p[j * 3 + c]);
        t += p[i * 3 + c] * p[j * 3 + c] * p[j * 3 + c];
      }
      s += pe[i] * (std::exp(-gs * d2) * pb[j] + std::sin(t));
    }
  return s;
}

} // namespace solve_grad_test

TEMPLATE_TEST_CASE("solve_grad: the gradient of w . a through a solve w.r.t. b, the cloud and g agrees with "
                   "finite differences of a dense Cholesky solve",
                   "[solve][grad]", KOPS_SOLVE_GRAD_CONFIGS) {
  using namespace solve_grad_test;
  using Be = typename TestType::backend;
  std::vector<double> p = random_vector<double>(n * 3, 0, 2, 61);
  std::vector<double> pb = random_vector<double>(n * D, -1, 1, 62);
  const std::vector<double> w = random_vector<double>(n * D, -1, 1, 63);  // g = dL/da
  std::vector<double> pg{scale};
  kops::solve_options tight;
  tight.tolerance = 1e-13;

  // Forward: a; adjoint: b_bar = (alpha Id + K)^-1 w, the same solve with w in b's slot.
  std::vector<double> a(n * D), bbar(n * D);
  REQUIRE(Be::solve(K, b, alpha, n, n, a.data(), p.data(), p.data(), pb.data(), pg.data(), tight).converged);
  REQUIRE(Be::solve(K, b, alpha, n, n, bbar.data(), p.data(), p.data(), w.data(), pg.data(), tight).converged);

  const auto loss = [&] { return dense_loss(p, pb, pg[0], w); };
  const std::vector<double> fd_b = finite_differences(pb, loss);
  const std::vector<double> fd_p = finite_differences(p, loss);
  const std::vector<double> fd_g = finite_differences(pg, loss);

  INFO(Be::name);
  CHECK(max_relative_difference(bbar, fd_b) <= 1e-7);

  // The cloud: x_i and y_j read p; the gradient w.r.t. p is the tied one.
  std::vector<double> dp(n * 3);
  Be::eval(kops::solve_grad(K, b, kops::tied(x, y), e), n, n, dp.data(), p.data(), p.data(), a.data(), pg.data(),
           bbar.data());
  CHECK(max_relative_difference(dp, fd_p) <= 1e-6);

  // The x_i part alone is not the gradient w.r.t. the cloud: the y_j part is
  // what is missing, and the tied call is their sum.
  std::vector<double> dx(n * 3), dy(n * 3);
  Be::eval(kops::solve_grad(K, b, x, e), n, n, dx.data(), p.data(), p.data(), a.data(), pg.data(), bbar.data());
  Be::eval(kops::solve_grad(K, b, y, e), n, n, dy.data(), p.data(), p.data(), a.data(), pg.data(), bbar.data());
  CHECK(max_relative_difference(dx, fd_p) > 0.1);
  for (std::size_t k = 0; k < dp.size(); ++k) CHECK(close(dx[k] + dy[k], dp[k], 1e-12));

  // The parameter: per-row contributions, summed over the rows.
  std::vector<double> contrib(n), dg(1);
  Be::eval(kops::solve_grad(K, b, g, e), n, n, contrib.data(), p.data(), p.data(), a.data(), pg.data(),
           bbar.data());
  kops::sum_rows(contrib.data(), n, 1, dg.data());
  CHECK(max_relative_difference(dg, fd_g) <= 1e-6);
}

TEMPLATE_TEST_CASE("solve_grad: the unknown on axis_i (a vi in the first slot) differentiates the same way",
                   "[solve][grad]", KOPS_SOLVE_GRAD_CONFIGS) {
  // out_j = sum_i exp(-g |x_i - y_j|^2) u_i: the same symmetric system, the
  // adjoint's slot now a vj (one per output row j), the cloud tied as (x, y).
  using namespace solve_grad_test;
  using Be = typename TestType::backend;
  constexpr auto u = kops::vi<0, D>;
  constexpr auto xi = kops::vi<1, 3>;
  constexpr auto yj = kops::vj<2, 3>;
  constexpr auto gi = kops::pm<3, 1>;
  constexpr auto ej = kops::vj<4, D>;
  constexpr auto Ki = kops::sum_reduction(kops::exp(-gi * kops::sqdist(xi, yj)) * u, kops::axis_i);
  std::vector<double> p = random_vector<double>(n * 3, 0, 2, 71);
  const std::vector<double> pb = random_vector<double>(n * D, -1, 1, 72);
  const std::vector<double> w = random_vector<double>(n * D, -1, 1, 73);
  const std::vector<double> pg{scale};
  kops::solve_options tight;
  tight.tolerance = 1e-13;
  std::vector<double> a(n * D), bbar(n * D), dp(n * 3);
  REQUIRE(Be::solve(Ki, u, alpha, n, n, a.data(), pb.data(), p.data(), p.data(), pg.data(), tight).converged);
  REQUIRE(Be::solve(Ki, u, alpha, n, n, bbar.data(), w.data(), p.data(), p.data(), pg.data(), tight).converged);
  Be::eval(kops::solve_grad(Ki, u, kops::tied(yj, xi), ej), n, n, dp.data(), a.data(), p.data(), p.data(),
           pg.data(), bbar.data());
  const std::vector<double> fd_p = finite_differences(p, [&] { return dense_loss(p, pb, scale, w); });
  INFO(Be::name);
  CHECK(max_relative_difference(dp, fd_p) <= 1e-6);
}

TEMPLATE_TEST_CASE("grad w.r.t. kops::tied(x, y): the gradient w.r.t. one cloud read as x_i and as y_j agrees "
                   "with finite differences",
                   "[grad][tied]", KOPS_SOLVE_GRAD_CONFIGS) {
  using namespace solve_grad_test;
  using Be = typename TestType::backend;
  std::vector<double> p = random_vector<double>(n * 3, 0, 1.5, 81);
  const std::vector<double> pb = random_vector<double>(n, -1, 1, 82);
  const std::vector<double> pe = random_vector<double>(n, -1, 1, 83);
  const std::vector<double> pg{scale};
  std::vector<double> dp(n * 3, 123.0);  // overwritten, not accumulated into
  Be::eval(kops::grad(asym, kops::tied(x, y), e1), n, n, dp.data(), p.data(), p.data(), pb.data(), pg.data(),
           pe.data());
  const std::vector<double> fd = finite_differences(p, [&] { return asym_loss(p, pb, scale, pe); });
  INFO(Be::name);
  CHECK(max_relative_difference(dp, fd) <= 1e-7);
  // Either part alone is off: the formula is not symmetric in x and y.
  std::vector<double> dx(n * 3), dy(n * 3);
  Be::eval(kops::grad(asym, x, e1), n, n, dx.data(), p.data(), p.data(), pb.data(), pg.data(), pe.data());
  Be::eval(kops::grad(asym, y, e1), n, n, dy.data(), p.data(), p.data(), pb.data(), pg.data(), pe.data());
  CHECK(max_relative_difference(dx, fd) > 0.1);
  CHECK(max_relative_difference(dy, fd) > 0.1);
}

TEMPLATE_TEST_CASE("grad w.r.t. kops::tied(x, y) of a logsumexp: a two-pass y_j part is summed in too",
                   "[grad][tied]", KOPS_SOLVE_GRAD_CONFIGS) {
  // out_i = log sum_j exp(-g |x_i - y_j|^2): its gradient w.r.t. y_j is a
  // kops::Chained (the forward result of every row first).
  using namespace solve_grad_test;
  using Be = typename TestType::backend;
  constexpr auto lse = kops::logsumexp_reduction(-g * kops::sqdist(x, y), kops::axis_j);
  constexpr auto G = kops::grad(lse, kops::tied(x, y), kops::vi<2, 1>);
  STATIC_REQUIRE(kops::is_chained_v<typename decltype(G)::row_j>);
  std::vector<double> p = random_vector<double>(n * 3, 0, 1.5, 111);
  const std::vector<double> pe = random_vector<double>(n, -1, 1, 112), pg{scale};
  std::vector<double> dp(n * 3);
  Be::eval(G, n, n, dp.data(), p.data(), p.data(), pe.data(), pg.data());
  const std::vector<double> fd = finite_differences(p, [&] {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double row = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        double d2 = 0;
        for (int c = 0; c < 3; ++c) d2 += (p[i * 3 + c] - p[j * 3 + c]) * (p[i * 3 + c] - p[j * 3 + c]);
        row += std::exp(-scale * d2);
      }
      s += pe[i] * std::log(row);
    }
    return s;
  });
  INFO(Be::name);
  CHECK(max_relative_difference(dp, fd) <= 1e-7);
}

TEMPLATE_TEST_CASE("grad w.r.t. kops::tied(x, y) on a block-sparse K: both parts over the kept pairs only",
                   "[grad][tied][block_sparse]", KOPS_SOLVE_GRAD_CONFIGS) {
  // Two diagonal blocks of 20 points (a symmetric structure): the reference
  // sums the pairs within a block. The y_j part runs on the transposed structure.
  using namespace solve_grad_test;
  using Be = typename TestType::backend;
  std::vector<double> p = random_vector<double>(n * 3, 0, 1.5, 121);
  const std::vector<double> pb = random_vector<double>(n, -1, 1, 122), pe = random_vector<double>(n, -1, 1, 123);
  const std::vector<double> pg{scale};
  const kops::range halves[2] = {{0, n / 2}, {n / 2, n}};
  const std::int64_t ends[2] = {1, 2};
  const kops::block_sparsity s{halves, 2, ends, halves, kops::sparsity_axis::i};  // tagged: the y_j part is a reduced-axis gradient
  std::vector<double> dp(n * 3);
  Be::eval(kops::grad(asym, kops::tied(x, y), e1), n, n, dp.data(), p.data(), p.data(), pb.data(), pg.data(),
           pe.data(), s);
  const std::vector<double> fd = finite_differences(p, [&] { return asym_loss(p, pb, scale, pe, 2); });
  const std::vector<double> dense = finite_differences(p, [&] { return asym_loss(p, pb, scale, pe); });
  INFO(Be::name);
  CHECK(max_relative_difference(dp, fd) <= 1e-7);
  CHECK(max_relative_difference(dp, dense) > 0.1);
}
