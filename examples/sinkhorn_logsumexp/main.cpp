// Entropic optimal transport between two point clouds by log-domain Sinkhorn
// iterations: each half-step is one kops::logsumexp_reduction (CPU backend).
//
// Measures alpha = sum_i a_i delta(x_i), beta = sum_j b_j delta(y_j) (uniform
// weights here, a_i = 1/M, b_j = 1/N), cost C_ij = |x_i - y_j|^2, blur eps. The plan
//   pi_ij = a_i b_j exp((f_i + g_j - C_ij) / eps)
// has marginals a and b when the dual potentials f, g are fixed points of
//   f_i = -eps log sum_j exp((g_j - C_ij) / eps + log b_j)    (axis_j: M outputs)
//   g_j = -eps log sum_i exp((f_i - C_ij) / eps + log a_i)    (axis_i: N outputs)
// and Sinkhorn alternates the two updates. Both read the same arguments (x, y,
// f, g, log a, log b, 1/eps) in the same order; only the axis differs. The
// exponents are of size |C| / eps, yet nothing overflows: logsumexp keeps a
// running maximum. After a g update the columns of pi sum to b exactly, and
// row i sums to a_i exp((f_i - f'_i) / eps), f' the next f update: the
// stopping test costs nothing extra.
//
// Printed: the transport cost <pi, C> (one kops sum_reduction) and the dual
// objective <a, f> + <b, g> (= <pi, C> + eps KL(pi | a x b) at convergence).
// Self-checks: (1) the final plan's marginals, by a double loop; (2) one f and
// one g update against max-shifted log-sum-exp loops in double; (3) in 1-D,
// where optimal transport between two clouds of N equal weights matches the
// sorted points, <pi, C> tends to (1/N) sum_k (x_(k) - y_(k))^2 as eps -> 0.
// (To first order pi spreads y around T(x), T the monotone map, with variance
// T'(x) eps / 2: <pi, C> exceeds the sorted cost by about eps/2 (T(1) - T(0)),
// which is eps/2 for the 1-D clouds below.)
//
// Speed: with a small eps most terms exp((g_j - C_ij) / eps - max) are below
// 2^-126, i.e. subnormal floats, which x86 cores process through slow
// microcode. kops' log-sum-exp engine adds 0 for a term more than e^-80 below
// the running maximum (reductions/detail/expsum.hpp) instead of computing it:
// this program ran 5x faster with that rule (the 1-D eps = 1e-3 step 20x),
// printing the same values.
//
//   sinkhorn_logsumexp [N] [eps]      (default: N = 1500 points per 3-D cloud, eps = 0.01)
// Build: CMake target sinkhorn_logsumexp (kops::kokkos), or by hand from kops' root:
//   g++ -std=c++20 -O2 -march=native -fno-math-errno -Iinclude -isystem /usr/include/trilinos
//       examples/sinkhorn_logsumexp/main.cpp -ltrilinos_kokkoscore -ldl -o sinkhorn_logsumexp
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

template <int D>
struct ot_problem {
  std::int64_t M, N;
  std::vector<float> x, y;          // (M, D), (N, D)
  std::vector<float> log_a, log_b;  // (M), (N): log weights, each set summing to 1
  float eps;

  ot_problem(std::int64_t m, std::int64_t n, float e)
      : M(m), N(n), x(m * D), y(n * D), log_a(m, -std::log(float(m))), log_b(n, -std::log(float(n))), eps(e) {}
  double cost(std::int64_t i, std::int64_t j) const {  // C_ij in double
    double d2 = 0;
    for (int k = 0; k < D; ++k) d2 += (double(x[i * D + k]) - y[j * D + k]) * (double(x[i * D + k]) - y[j * D + k]);
    return d2;
  }
};

struct ot_solution {
  std::vector<float> f, g;  // (M), (N)
  int iterations = 0;
  double row_error = 0;     // sum_i |sum_j pi_ij - a_i| as seen by the stopping test
  double cost = 0, dual = 0, seconds = 0;
};

// Arguments 0..6 of every reduction: x, y, f, g, log a, log b, 1/eps.
template <int D>
struct sinkhorn_formulas {
  static constexpr auto x = kops::vi<0, D>;
  static constexpr auto y = kops::vj<1, D>;
  static constexpr auto f = kops::vi<2, 1>;
  static constexpr auto g = kops::vj<3, 1>;
  static constexpr auto log_a = kops::vi<4, 1>;
  static constexpr auto log_b = kops::vj<5, 1>;
  static constexpr auto inv_eps = kops::pm<6, 1>;
  static constexpr auto C = kops::sqdist(x, y);
  static constexpr auto f_update = kops::logsumexp_reduction((g - C) * inv_eps + log_b, kops::axis_j);  // -f / eps
  static constexpr auto g_update = kops::logsumexp_reduction((f - C) * inv_eps + log_a, kops::axis_i);  // -g / eps
  static constexpr auto plan_cost =  // sum_j pi_ij C_ij
      kops::sum_reduction(kops::exp((f + g - C) * inv_eps + log_a + log_b) * C, kops::axis_j);
};

template <int D, class Red>
void run(Red red, const ot_problem<D>& p, const ot_solution& s, float* out) {
  const float inv_eps = 1 / p.eps;
  kops::kokkos::eval(red, p.M, p.N, out, p.x.data(), p.y.data(), s.f.data(), s.g.data(), p.log_a.data(),
                     p.log_b.data(), &inv_eps);
}

// Sinkhorn from (f, g) (a warm start) until the rows of pi are within tol (L1).
template <int D>
void sinkhorn(const ot_problem<D>& p, ot_solution& s, int max_iterations, double tol) {
  using F = sinkhorn_formulas<D>;
  std::vector<float> lse(std::max(p.M, p.N));
  const auto t0 = std::chrono::steady_clock::now();
  run(F::f_update, p, s, lse.data());
  for (std::int64_t i = 0; i < p.M; ++i) s.f[i] = -p.eps * lse[i];
  for (s.iterations = 1;; ++s.iterations) {
    run(F::g_update, p, s, lse.data());
    for (std::int64_t j = 0; j < p.N; ++j) s.g[j] = -p.eps * lse[j];
    run(F::f_update, p, s, lse.data());
    s.row_error = 0;
    for (std::int64_t i = 0; i < p.M; ++i)
      s.row_error += std::exp(p.log_a[i]) * std::abs(std::exp((s.f[i] + double(p.eps) * lse[i]) / p.eps) - 1);
    if (s.row_error < tol || s.iterations >= max_iterations) break;  // keep (f, g): columns exact, rows within tol
    for (std::int64_t i = 0; i < p.M; ++i) s.f[i] = -p.eps * lse[i];
  }
  std::vector<float> cost_rows(p.M);
  run(F::plan_cost, p, s, cost_rows.data());
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.cost = s.dual = 0;
  for (std::int64_t i = 0; i < p.M; ++i) s.cost += cost_rows[i], s.dual += std::exp(p.log_a[i]) * s.f[i];
  for (std::int64_t j = 0; j < p.N; ++j) s.dual += std::exp(p.log_b[j]) * s.g[j];
}

// Check 1: L1 errors of the row and column sums of pi, in double.
template <int D>
double marginal_error(const ot_problem<D>& p, const ot_solution& s) {
  std::vector<double> rows(p.M, 0), cols(p.N, 0);
  for (std::int64_t i = 0; i < p.M; ++i)
    for (std::int64_t j = 0; j < p.N; ++j) {
      const double pij = std::exp((double(s.f[i]) + s.g[j] - p.cost(i, j)) / p.eps + p.log_a[i] + p.log_b[j]);
      rows[i] += pij, cols[j] += pij;
    }
  double err = 0;
  for (std::int64_t i = 0; i < p.M; ++i) err += std::abs(rows[i] - std::exp(double(p.log_a[i])));
  for (std::int64_t j = 0; j < p.N; ++j) err += std::abs(cols[j] - std::exp(double(p.log_b[j])));
  return err;
}

// Check 2: one f update and one g update by kops vs log-sum-exp loops in double
// shifted by the largest term; the largest |difference| of the potentials.
template <int D>
double update_error(const ot_problem<D>& p, ot_solution s) {
  using F = sinkhorn_formulas<D>;
  auto lse_ref = [](std::int64_t n, auto term) {
    double m = -INFINITY, sum = 0;
    for (std::int64_t k = 0; k < n; ++k) m = std::max(m, term(k));
    for (std::int64_t k = 0; k < n; ++k) sum += std::exp(term(k) - m);
    return m + std::log(sum);
  };
  std::vector<float> lse(std::max(p.M, p.N));
  double err = 0;
  run(F::f_update, p, s, lse.data());
  for (std::int64_t i = 0; i < p.M; ++i) {
    const double ref = lse_ref(p.N, [&](std::int64_t j) { return (s.g[j] - p.cost(i, j)) / p.eps + p.log_b[j]; });
    err = std::max(err, p.eps * std::abs(ref - lse[i]));
    s.f[i] = -p.eps * lse[i];
  }
  run(F::g_update, p, s, lse.data());
  for (std::int64_t j = 0; j < p.N; ++j) {
    const double ref = lse_ref(p.M, [&](std::int64_t i) { return (s.f[i] - p.cost(i, j)) / p.eps + p.log_a[i]; });
    err = std::max(err, p.eps * std::abs(ref - lse[j]));
  }
  return err;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 1500;
  const float eps = argc > 2 ? float(std::atof(argv[2])) : 0.01f;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::normal_distribution<float> gauss(0.f, 1.f);

  // 3-D: the uniform unit cube to a Gaussian blob beside it.
  ot_problem<3> p(n, n, eps);
  for (auto& v : p.x) v = u(rng);
  for (std::int64_t j = 0; j < n * 3; ++j) p.y[j] = (j % 3 == 0 ? 1.2f : 0.5f) + 0.15f * gauss(rng);
  ot_solution s{std::vector<float>(n, 0.f), std::vector<float>(n, 0.f)};
  sinkhorn(p, s, 1000, 1e-4);
  const double marginal_err = marginal_error(p, s), update_err = update_error(p, s);
  std::printf("kops sinkhorn_logsumexp on the CPU (Kokkos %s)\n", Kokkos::DefaultHostExecutionSpace::name());
  std::printf("  3-D   : M = N = %lld, eps = %g: %d iterations, %.3f s (%.3g pairs/s)\n", (long long)n, eps,
              s.iterations, s.seconds, (2.0 * s.iterations + 2) * double(n) * double(n) / s.seconds);
  std::printf("          <pi, C> = %.6f, dual <a, f> + <b, g> = %.6f, row marginal error %.2e\n", s.cost, s.dual,
              s.row_error);

  // 1-D: uniform on [0, 1] to the product of two uniforms (a monotone map that
  // is not affine), eps annealed 1e-2 -> 1e-3 with warm starts (a small eps
  // from a cold start needs many more iterations).
  const std::int64_t n1 = std::min<std::int64_t>(n, 400);
  ot_problem<1> q(n1, n1, 0.f);
  for (auto& v : q.x) v = u(rng);
  for (auto& v : q.y) v = u(rng) * u(rng);
  std::vector<float> xs = q.x, ys = q.y;
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  double sorted_cost = 0;
  for (std::int64_t k = 0; k < n1; ++k) sorted_cost += (double(xs[k]) - ys[k]) * (double(xs[k]) - ys[k]) / double(n1);
  ot_solution s1{std::vector<float>(n1, 0.f), std::vector<float>(n1, 0.f)};
  double gap = 0;
  for (float e : {1e-2f, 5e-3f, 2e-3f, 1e-3f}) {
    q.eps = e;
    sinkhorn(q, s1, 3000, 1e-4);
    gap = s1.cost - sorted_cost;
    std::printf("  1-D   : N = %lld, eps = %-6g: %4d iterations, %.3f s, <pi, C> = %.6f, sorted matching %.6f, "
                "difference %.2e = %.2f eps\n",
                (long long)n1, e, s1.iterations, s1.seconds, s1.cost, sorted_cost, gap, gap / e);
  }

  const bool ok = marginal_err < 2e-4 && update_err < 1e-5 && s1.row_error < 1e-4 && std::abs(gap) < q.eps;
  std::printf("check: %s (3-D marginal L1 error %.2e < 2e-4 by a double loop; one f and g update vs a double "
              "log-sum-exp: max |diff| %.2e < 1e-5; 1-D |<pi, C> - sorted cost| %.2e < eps = %g)\n",
              ok ? "PASS" : "FAIL", marginal_err, update_err, std::abs(gap), q.eps);
  return ok ? 0 : 1;
}
