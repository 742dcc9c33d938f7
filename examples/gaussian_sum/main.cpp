// Flagship example: the Gaussian kernel sum a_i = sum_j exp(-g |x_i - y_j|^2) b_j
// on the CPU (Kokkos backend), checked against a direct double-precision loop.
//
//   gaussian_sum [M] [N]      (default M = N = 20000)
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include "check.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t M = argc > 1 ? std::atoll(argv[1]) : 20000;
  const std::int64_t N = argc > 2 ? std::atoll(argv[2]) : 20000;

  // The formula is a compile-time value; its type is the expression tree.
  constexpr auto x = kops::vi<0, 3>;  // x_i in R^3, shape (M, 3)
  constexpr auto y = kops::vj<1, 3>;  // y_j in R^3, shape (N, 3)
  constexpr auto b = kops::vj<2, 1>;  // b_j, shape (N, 1)
  constexpr auto g = kops::pm<3, 1>;  // gamma, shape (1)
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> px(M * 3), py(N * 3), pb(N), pg{8.0f}, out(M);
  for (auto& v : px) v = u(rng);
  for (auto& v : py) v = u(rng);
  for (auto& v : pb) v = u(rng) - 0.5f;

  kops::kokkos::eval(conv, M, N, out.data(), px.data(), py.data(), pb.data(), pg.data());  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  kops::kokkos::eval(conv, M, N, out.data(), px.data(), py.data(), pb.data(), pg.data());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const check_result check = check_against_direct_loop(out, px, py, pb, pg[0], M, N);
  const std::int64_t checked = check.rows;
  const double max_err = check.max_error;
  const bool ok = check.ok();

  std::printf("kops gaussian_sum on the CPU (Kokkos %s)\n", Kokkos::DefaultHostExecutionSpace::name());
  std::printf("  formula  : a_i = sum_j exp(-g |x_i - y_j|^2) b_j, M = %lld, N = %lld, float32\n",
              (long long)M, (long long)N);
  std::printf("  result   : a_0 = %.7g, a_1 = %.7g, a_%lld = %.7g\n", out[0], M > 1 ? out[1] : 0.f,
              (long long)(M - 1), out[M - 1]);
  std::printf("  time     : %.4f s (%.3g pairs/s)\n", secs, double(M) * double(N) / secs);
  std::printf("  check    : %lld rows vs a double loop, max error %.2e (relative to sum |terms|): %s\n",
              (long long)checked, max_err, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
