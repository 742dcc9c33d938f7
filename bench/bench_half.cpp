// 16-bit storage on the CPU backend (one thread with Debian's Serial Kokkos;
// bench/run_half.sh pins it to one core): the Gaussian sum with its inputs in
// float, kops::half and kops::bfloat16 storage (evaluated in float in all
// three), its speed and its agreement with a double-precision reference.
//
//   a_i = sum_j exp(-g |x_i - y_j|^2) b_j,  x, y in R^D (D = 3 and 64), b in R^1
//
//   bench_half [--m M] [--n N] [--reps R] [--rows K]
//
// Prints CSV lines  D,storage,policy,M,N,seconds,max_rel_err,median_rel_err
// (errors: against the double sum on the original, unrounded data, over the
// first K output rows, relative to max_i |a_i|), then the same errors against
// the double sum on the stored values (what the evaluation itself adds).
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using bench::best_of;

// The double sum for rows [0, K) on the data X, Y, B (doubles).
template <int D>
std::vector<double> reference(const std::vector<double>& X, const std::vector<double>& Y, const std::vector<double>& B,
                              double g, std::int64_t N, std::int64_t K) {
  std::vector<double> a(static_cast<std::size_t>(K), 0.0);
  for (std::int64_t i = 0; i < K; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int k = 0; k < D; ++k) {
        const double t = X[std::size_t(i * D + k)] - Y[std::size_t(j * D + k)];
        d2 += t * t;
      }
      a[std::size_t(i)] += std::exp(-g * d2) * B[std::size_t(j)];
    }
  return a;
}

struct errors {
  double max, median;
};
errors compare(const std::vector<float>& got, const std::vector<double>& ref) {
  double scale = 0;
  for (double r : ref) scale = std::max(scale, std::abs(r));
  std::vector<double> e;
  for (std::size_t i = 0; i < ref.size(); ++i) e.push_back(std::abs(double(got[i]) - ref[i]) / scale);
  std::sort(e.begin(), e.end());
  return {e.back(), e[e.size() / 2]};
}

template <class S>
std::vector<S> as(const std::vector<double>& v) {
  return std::vector<S>(v.begin(), v.end());
}
template <class S>
std::vector<double> widened(const std::vector<S>& v) {
  std::vector<double> w;
  for (const S& s : v) w.push_back(double(float(s)));
  return w;
}

template <int D>
void run(std::int64_t M, std::int64_t N, int reps, std::int64_t K) {
  // Points in a cube of side 2 (D = 3) or spread so that the Gaussian's
  // exponent stays O(1) at D = 64; weights in [-1, 1].
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const double side = D == 3 ? 1.0 : 0.25;
  std::vector<double> X(static_cast<std::size_t>(M * D)), Y(static_cast<std::size_t>(N * D)),
      B(static_cast<std::size_t>(N));
  for (auto& v : X) v = side * u(rng);
  for (auto& v : Y) v = side * u(rng);
  for (auto& v : B) v = u(rng);
  const double g = D == 3 ? 2.0 : 0.5;
  const auto x = kops::vi<0, D>;
  const auto y = kops::vj<1, D>;
  const auto b = kops::vj<2, 1>;
  const auto gp = kops::pm<3, 1>;
  const auto conv = kops::sum_reduction(kops::exp(-gp * kops::sqdist(x, y)) * b, kops::axis_j);
  const std::vector<double> ref = reference<D>(X, Y, B, g, N, K);

  auto one = [&]<class S>(const char* name, S) {
    const std::vector<S> xs = as<S>(X), ys = as<S>(Y), bs = as<S>(B), gs = as<S>({g});
    std::vector<float> out(static_cast<std::size_t>(M));
    for (int fast = 0; fast < 2; ++fast) {
      const double t = best_of(reps, [&] {
        if (fast) kops::kokkos::eval<kops::precision::fast>(conv, M, N, out.data(), xs.data(), ys.data(), bs.data(), gs.data());
        else kops::kokkos::eval(conv, M, N, out.data(), xs.data(), ys.data(), bs.data(), gs.data());
      });
      const errors e = compare(std::vector<float>(out.begin(), out.begin() + K), ref);
      const errors s = compare(std::vector<float>(out.begin(), out.begin() + K),
                               reference<D>(widened(xs), widened(ys), widened(bs), double(float(gs[0])), N, K));
      std::printf("%d,%s,%s,%lld,%lld,%.6f,%.3g,%.3g,%.3g,%.3g\n", D, name, fast ? "fast" : "accurate", (long long)M,
                  (long long)N, t, e.max, e.median, s.max, s.median);
      std::fflush(stdout);
    }
  };
  one("float", 0.0f);
  one("half", kops::half{});
  one("bfloat16", kops::bfloat16{});
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::int64_t M = 10000, N = 10000, K = 200;
  int reps = 3;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    const long long v = std::atoll(argv[a + 1]);
    if (k == "--m") M = v;
    else if (k == "--n") N = v;
    else if (k == "--reps") reps = int(v);
    else if (k == "--rows") K = v;
    else {
      std::fprintf(stderr, "usage: bench_half [--m M] [--n N] [--reps R] [--rows K]\n");
      return 2;
    }
  }
  K = std::min(K, M);
  std::printf("D,storage,policy,M,N,seconds,max_rel_err,median_rel_err,max_rel_err_stored,median_rel_err_stored\n");
  run<3>(M, N, reps, K);
  run<64>(M, N, reps, K);
}
