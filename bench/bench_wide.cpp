// Wide variables on the CPU backend, one core: the Gaussian sum
//   a_i = sum_j exp(-g |x_i - y_j|^2) b_j,  x:(M,D) y:(N,D) b:(N,1), float32,
// at D = 784 (MNIST-sized rows), the sum over coordinates evaluated in chunks
// (lowering/chunk.hpp; build with -DKOPS_CPU_CHUNK_MIN_DIM=1000000 for the
// unchunked evaluation). Writes the inputs and its output as raw float32 for
// bench/wide_peers.py (the numpy/BLAS route and pykeops on the same data).
//
//   bench_wide [--m M] [--n N] [--reps R] [--dump DIR]    D = 784
//   bench_wide --sweep [--m M] [--n N] [--reps R]         D = 8 ... 3072
//   bench_wide --grad [--m M] [--n N] [--reps R]          its gradient w.r.t. x, D = 784
// Prints CSV rows: impl,D,M,N,seconds,pairs_per_s,max_rel_err (the error
// against a double loop over 32 rows, relative to max |a|).
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include "timing.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {
void dump(const std::string& path, const std::vector<float>& v) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(v.data(), sizeof(float), v.size(), f) != v.size()) std::exit(2);
  std::fclose(f);
}

// One CSV row for dimension D (see the file comment).
template <int D>
void run(std::int64_t M, std::int64_t N, int reps, const std::string& dir) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> x(static_cast<std::size_t>(M * D)), y(static_cast<std::size_t>(N * D)),
      b(static_cast<std::size_t>(N)), g{1.0f / D}, out(static_cast<std::size_t>(M));
  for (auto& v : x) v = u(rng);
  for (auto& v : y) v = u(rng);
  for (auto& v : b) v = u(rng) - 0.5f;
  constexpr auto conv = kops::sum_reduction(
      kops::exp(-kops::pm<3, 1> * kops::sqdist(kops::vi<0, D>, kops::vj<1, D>)) * kops::vj<2, 1>, kops::axis_j);
  const double secs = bench::best_of(reps, [&] {
    kops::kokkos::eval(conv, M, N, out.data(), x.data(), y.data(), b.data(), g.data());
  });
  double err = 0, amax = 0;
  for (std::int64_t i = 0; i < std::min<std::int64_t>(M, 32); ++i) {
    double a = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int k = 0; k < D; ++k) {
        const double t = double(x[std::size_t(i * D + k)]) - y[std::size_t(j * D + k)];
        d2 += t * t;
      }
      a += std::exp(-double(g[0]) * d2) * b[std::size_t(j)];
    }
    err = std::max(err, std::abs(a - out[std::size_t(i)]));
    amax = std::max(amax, std::abs(a));
  }
  if (!dir.empty()) {
    dump(dir + "/x.f32", x), dump(dir + "/y.f32", y), dump(dir + "/b.f32", b), dump(dir + "/out_kops.f32", out);
  }
  std::printf("%s,%d,%lld,%lld,%.4f,%.4g,%.2e\n", KOPS_CPU_CHUNK_MIN_DIM <= D ? "kops" : "kops_unchunked", D,
              (long long)M, (long long)N, secs, double(M) * double(N) / secs, err / amax);
}
// The gradient of the same sum w.r.t. x, e_i random: a wide sum whose kernel
// part is wide too (final chunks, block_kernel.hpp), one CSV row "kops_grad"
// (the error over 8 rows and every component).
template <int D>
void run_grad(std::int64_t M, std::int64_t N, int reps) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> x(static_cast<std::size_t>(M * D)), y(static_cast<std::size_t>(N * D)),
      b(static_cast<std::size_t>(N)), g{1.0f / D}, e(static_cast<std::size_t>(M)), out(static_cast<std::size_t>(M * D));
  for (auto& v : x) v = u(rng);
  for (auto& v : y) v = u(rng);
  for (auto& v : b) v = u(rng) - 0.5f;
  for (auto& v : e) v = u(rng);
  constexpr auto conv = kops::sum_reduction(
      kops::exp(-kops::pm<3, 1> * kops::sqdist(kops::vi<0, D>, kops::vj<1, D>)) * kops::vj<2, 1>, kops::axis_j);
  constexpr auto dx = kops::grad(conv, kops::vi<0, D>, kops::vi<4, 1>);
  const double secs = bench::best_of(reps, [&] {
    kops::kokkos::eval(dx, M, N, out.data(), x.data(), y.data(), b.data(), g.data(), e.data());
  });
  // d/dx_i = sum_j -2 g (x_i - y_j) exp(-g |x_i - y_j|^2) b_j e_i
  double err = 0, amax = 0;
  for (std::int64_t i = 0; i < std::min<std::int64_t>(M, 8); ++i) {
    std::vector<double> a(D, 0.0);
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int k = 0; k < D; ++k) {
        const double t = double(x[std::size_t(i * D + k)]) - y[std::size_t(j * D + k)];
        d2 += t * t;
      }
      const double w = -2.0 * double(g[0]) * std::exp(-double(g[0]) * d2) * b[std::size_t(j)] * e[std::size_t(i)];
      for (int k = 0; k < D; ++k) a[std::size_t(k)] += w * (double(x[std::size_t(i * D + k)]) - y[std::size_t(j * D + k)]);
    }
    for (int k = 0; k < D; ++k) {
      err = std::max(err, std::abs(a[std::size_t(k)] - out[std::size_t(i * D + k)]));
      amax = std::max(amax, std::abs(a[std::size_t(k)]));
    }
  }
  std::printf("kops_grad,%d,%lld,%lld,%.4f,%.4g,%.2e\n", D, (long long)M, (long long)N, secs,
              double(M) * double(N) / secs, err / amax);
}
} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::int64_t M = 10000, N = 10000;
  int reps = 3;
  bool sweep = false, grad = false;
  std::string dir;
  for (int a = 1; a < argc; ++a) {
    const bool more = a + 1 < argc;
    if (!std::strcmp(argv[a], "--sweep")) sweep = true;
    else if (!std::strcmp(argv[a], "--grad")) grad = true;
    else if (more && !std::strcmp(argv[a], "--m")) M = std::atoll(argv[++a]);
    else if (more && !std::strcmp(argv[a], "--n")) N = std::atoll(argv[++a]);
    else if (more && !std::strcmp(argv[a], "--reps")) reps = std::atoi(argv[++a]);
    else if (more && !std::strcmp(argv[a], "--dump")) dir = argv[++a];
  }
  if (sweep) {  // the dimensions around and past the chunk threshold, M = N as given
    run<8>(M, N, reps, ""), run<16>(M, N, reps, ""), run<32>(M, N, reps, ""), run<64>(M, N, reps, "");
    run<128>(M, N, reps, ""), run<256>(M, N, reps, ""), run<3072>(M, N, reps, "");
  } else if (grad) {
    run_grad<784>(M, N, reps);
  } else {
    run<784>(M, N, reps, dir);
  }
}
