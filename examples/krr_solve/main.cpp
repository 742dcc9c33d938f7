// Kernel ridge regression (equivalently, the posterior mean of a Gaussian
// process) with kops::kokkos::solve: fit a noisy 2-D function on N training
// points, predict it on M test points, and check both steps in double.
//
// The math. Training points x_j in [0,1]^2 with labels y_j = f(x_j) + noise
// (noise standard deviation sigma), the Gaussian kernel k(x, x') = exp(-g |x - x'|^2).
// The coefficients a solve the N x N system
//
//   (alpha Id + K) a = y,        K_ij = k(x_i, x_j),  alpha = sigma^2,
//
// and the prediction at a test point t is  m(t) = sum_j k(t, x_j) a_j.
// Both are one kops formula, sum_j exp(-g |x_i - y_j|^2) b_j: solve() runs
// conjugate gradient whose products with K are that reduction (the matrix is
// never formed), and eval() of the same reduction with the test points as rows
// and a in b's slot is the prediction.
//
// Self-check (exit code 0 only if all hold):
//   1. the true residual ||(alpha Id + K) a - y|| / ||y||, recomputed by a
//      direct double loop, is below 1e-8 (CG stops at 1e-10 on its own
//      recurrence for the residual);
//   2. the predictions equal those of a dense double-precision Cholesky solve
//      of the same system, written below: max |m_kops - m_dense| <= 1e-8 max |m_dense|
//      (CG's residual of 1e-10 ||y|| moves a by at most 1e-10 ||y|| / alpha);
//   3. the test RMSE against the noise-free f is below sigma (the fit removes
//      noise rather than interpolating it).
//
// Build and run: it is built with the examples (cmake -DKOPS_BUILD_EXAMPLES=ON,
// target krr_solve; ctest -L example runs it), or by hand from the repository root:
//   g++ -std=c++20 -O2 -march=native -Iinclude -isystem /usr/include/trilinos
//       examples/krr_solve/main.cpp -ltrilinos_kokkoscore -ldl -o krr_solve
//   ./krr_solve [N] [M]          (default N = 800 training, M = 2000 test points)
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>  // kops::kokkos::eval and kops::kokkos::solve

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <vector>

namespace {

double truth(double u, double v) {
  return std::sin(2 * std::numbers::pi * u) * std::cos(std::numbers::pi * v) + 0.5 * u;
}

double kernel(const double* p, const double* q, double g) {
  const double d0 = p[0] - q[0], d1 = p[1] - q[1];
  return std::exp(-g * (d0 * d0 + d1 * d1));
}

// Solves A z = r in place for a symmetric positive definite A:(n, n), by Cholesky
// A = L L^T (L overwrites the lower triangle of A), then L w = r, L^T z = w.
bool cholesky_solve(std::vector<double>& A, std::vector<double>& r, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    double d = A[j * n + j];
    for (std::int64_t k = 0; k < j; ++k) d -= A[j * n + k] * A[j * n + k];
    if (!(d > 0)) return false;
    const double ljj = std::sqrt(d);
    A[j * n + j] = ljj;
    for (std::int64_t i = j + 1; i < n; ++i) {
      double s = A[i * n + j];
      for (std::int64_t k = 0; k < j; ++k) s -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = s / ljj;
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t k = 0; k < i; ++k) r[i] -= A[i * n + k] * r[k];
    r[i] /= A[i * n + i];
  }
  for (std::int64_t i = n - 1; i >= 0; --i) {
    for (std::int64_t k = i + 1; k < n; ++k) r[i] -= A[k * n + i] * r[k];
    r[i] /= A[i * n + i];
  }
  return true;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t N = argc > 1 ? std::atoll(argv[1]) : 800;
  const std::int64_t M = argc > 2 ? std::atoll(argv[2]) : 2000;
  if (N < 1 || M < 1) {
    std::fprintf(stderr, "usage: krr_solve [N >= 1] [M >= 1]\n");
    return 2;
  }
  const double sigma = 0.1, alpha = sigma * sigma;
  const double g = 20.0;  // length scale 1/sqrt(2 g) = 0.16

  // One reduction serves both steps: rows x_i, columns y_j, weights b_j.
  constexpr auto x = kops::vi<0, 2>;  // x_i, (rows, 2)
  constexpr auto y = kops::vj<1, 2>;  // y_j, (N, 2): the training points
  constexpr auto b = kops::vj<2, 1>;  // b_j, (N, 1): the unknown of the solve
  constexpr auto gp = kops::pm<3, 1>;
  constexpr auto Kb = kops::sum_reduction(kops::exp(-gp * kops::sqdist(x, y)) * b, kops::axis_j);

  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<double> px(N * 2), labels(N), ptest(M * 2), ft(M), yt(M), pg{g};
  for (std::int64_t j = 0; j < N; ++j) {
    px[2 * j] = unif(rng), px[2 * j + 1] = unif(rng);
    labels[j] = truth(px[2 * j], px[2 * j + 1]) + noise(rng);
  }
  for (std::int64_t i = 0; i < M; ++i) {
    ptest[2 * i] = unif(rng), ptest[2 * i + 1] = unif(rng);
    ft[i] = truth(ptest[2 * i], ptest[2 * i + 1]);
    yt[i] = ft[i] + noise(rng);
  }

  // Fit: the training points are both the rows and the columns; y goes in b's slot.
  std::vector<double> a(N), pred(M);
  kops::solve_options opts;
  opts.tolerance = 1e-10;  // relative to ||y|| (the default for double data, written out)
  auto t0 = std::chrono::steady_clock::now();
  const kops::solve_result res = kops::kokkos::solve(Kb, b, alpha, N, N, a.data(), px.data(), px.data(), labels.data(),
                                                     pg.data(), opts);
  const double t_solve = seconds_since(t0);

  // Predict: the test points are the rows, a is in b's slot.
  t0 = std::chrono::steady_clock::now();
  kops::kokkos::eval(Kb, M, N, pred.data(), ptest.data(), px.data(), a.data(), pg.data());
  const double t_pred = seconds_since(t0);

  double se_truth = 0, se_noisy = 0;
  for (std::int64_t i = 0; i < M; ++i) {
    se_truth += (pred[i] - ft[i]) * (pred[i] - ft[i]);
    se_noisy += (pred[i] - yt[i]) * (pred[i] - yt[i]);
  }
  const double rmse_truth = std::sqrt(se_truth / double(M)), rmse_noisy = std::sqrt(se_noisy / double(M));

  // Check 1: the true residual, by a direct double loop.
  double rr = 0, yy = 0;
  for (std::int64_t i = 0; i < N; ++i) {
    double s = alpha * a[i];
    for (std::int64_t j = 0; j < N; ++j) s += kernel(&px[2 * i], &px[2 * j], g) * a[j];
    rr += (s - labels[i]) * (s - labels[i]);
    yy += labels[i] * labels[i];
  }
  const double residual = std::sqrt(rr / yy);

  // Check 2: the same fit by a dense Cholesky factorisation, then the same predictions.
  t0 = std::chrono::steady_clock::now();
  std::vector<double> A(N * N), a_dense = labels;
  for (std::int64_t i = 0; i < N; ++i)
    for (std::int64_t j = 0; j < N; ++j) A[i * N + j] = kernel(&px[2 * i], &px[2 * j], g) + (i == j ? alpha : 0.0);
  const bool spd = cholesky_solve(A, a_dense, N);
  double max_diff = 0, max_pred = 0;
  for (std::int64_t i = 0; i < M; ++i) {
    double m = 0;
    for (std::int64_t j = 0; j < N; ++j) m += kernel(&ptest[2 * i], &px[2 * j], g) * a_dense[j];
    max_diff = std::max(max_diff, std::abs(pred[i] - m));
    max_pred = std::max(max_pred, std::abs(m));
  }
  const double t_dense = seconds_since(t0);
  const double pred_diff = max_diff / max_pred;

  const bool ok_res = res.converged && residual < 1e-8, ok_dense = spd && pred_diff <= 1e-8,
             ok_rmse = rmse_truth < sigma, ok = ok_res && ok_dense && ok_rmse;
  auto verdict = [](bool b) { return b ? "ok" : "FAILED"; };
  std::printf("kops krr_solve: kernel ridge regression / GP mean, Gaussian kernel, float64\n");
  std::printf("  data     : f(u,v) = sin(2 pi u) cos(pi v) + u/2 on [0,1]^2, noise sigma = %.2g; N = %lld train, "
              "M = %lld test\n", sigma, (long long)N, (long long)M);
  std::printf("  fit      : (alpha Id + K) a = y, alpha = %.2g, g = %.3g: CG %lld iterations, converged = %s, "
              "relative residual %.2e (%.3f s)\n", alpha, g, (long long)res.iterations, res.converged ? "yes" : "no",
              res.relative_residual, t_solve);
  std::printf("  predict  : m(t) = sum_j k(t, x_j) a_j on %lld points (%.4f s)\n", (long long)M, t_pred);
  std::printf("  test RMSE: %.4f vs noise-free f, %.4f vs noisy labels (noise sigma = %.4f)\n", rmse_truth,
              rmse_noisy, sigma);
  std::printf("  dense    : Cholesky of the %lld x %lld matrix in double + predictions (%.3f s)\n", (long long)N,
              (long long)N, t_dense);
  std::printf("check: %s (true residual %.2e < 1e-8: %s; max |m - m_dense| / max |m_dense| = %.2e <= 1e-8: %s; "
              "RMSE vs f %.4f < sigma: %s)\n",
              ok ? "PASS" : "FAIL", residual, verdict(ok_res), pred_diff, verdict(ok_dense), rmse_truth,
              verdict(ok_rmse));
  return ok ? 0 : 1;
}
