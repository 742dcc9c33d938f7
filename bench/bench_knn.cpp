// k nearest neighbours on the CPU backend, one thread (Debian's Serial Kokkos;
// bench/run_knn.sh pins it to one core): argkmin_reduction<10> of |x_i - y_j|^2
// against argmin_reduction of the same formula, side by side on the same data,
//
//   x: (M, D) queries (i), y: (N, D) points (j), float32, uniform in [0, 1)^D,
//   reduced over j (axis_j): M output rows of 10 (resp. 1) indices,
//
// at D = 3 and D = 784 (MNIST-sized rows). The two are timed alternately,
// rep by rep, so that both see the same machine load; the best of each is kept.
// Checks: argkmin's first column equals argmin's output, and argkmin's rows
// match a double-precision brute force (stable order) on the first 16 rows
// ("mismatch": the differing indices, expected 0 unless two distances are
// within float rounding).
//
//   bench_knn [--m M] [--n N] [--reps R] [--dump DIR] [--only D]
//
// Prints CSV rows: impl,D,M,N,K,seconds,pairs_per_s,mismatch; --dump writes
// x_D.f32, y_D.f32 and argkmin_D.i64 for bench/pykeops_knn.py.
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include "timing.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int K = 10;

template <class T>
void dump(const std::string& path, const std::vector<T>& v) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(v.data(), sizeof(T), v.size(), f) != v.size()) std::exit(2);
  std::fclose(f);
}

// Indices of argkmin's first `rows` rows that differ from a double brute force.
template <int D>
long mismatches(const std::vector<float>& x, const std::vector<float>& y, std::int64_t N,
                const std::vector<std::int64_t>& got, std::int64_t rows) {
  long bad = 0;
  std::vector<double> d2(static_cast<std::size_t>(N));
  std::vector<std::int64_t> order(static_cast<std::size_t>(N));
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < D; ++k) {
        const double t = double(x[std::size_t(i * D + k)]) - y[std::size_t(j * D + k)];
        s += t * t;
      }
      d2[std::size_t(j)] = s;
    }
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return d2[std::size_t(a)] < d2[std::size_t(b)]; });
    for (int s = 0; s < K; ++s) bad += got[std::size_t(i * K + s)] != order[std::size_t(s)];
  }
  return bad;
}

template <int D>
void run(std::int64_t M, std::int64_t N, int reps, const std::string& dir) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> x(static_cast<std::size_t>(M * D)), y(static_cast<std::size_t>(N * D));
  for (auto& v : x) v = u(rng);
  for (auto& v : y) v = u(rng);
  std::vector<std::int64_t> nn(static_cast<std::size_t>(M)), knn(static_cast<std::size_t>(M * K));
  constexpr auto d2 = kops::sqdist(kops::vi<0, D>, kops::vj<1, D>);
  constexpr auto argmin = kops::argmin_reduction(d2, kops::axis_j);
  constexpr auto argkmin = kops::argkmin_reduction<K>(d2, kops::axis_j);
  double best_min = 1e300, best_kmin = 1e300;
  for (int r = 0; r < reps; ++r) {
    best_min = std::min(best_min, bench::best_of(1, [&] { kops::kokkos::eval(argmin, M, N, nn.data(), x.data(), y.data()); }));
    best_kmin =
        std::min(best_kmin, bench::best_of(1, [&] { kops::kokkos::eval(argkmin, M, N, knn.data(), x.data(), y.data()); }));
  }
  long first = 0;
  for (std::int64_t i = 0; i < M; ++i) first += knn[std::size_t(i * K)] != nn[std::size_t(i)];
  const long bad = mismatches<D>(x, y, N, knn, std::min<std::int64_t>(M, 16));
  const double pairs = double(M) * double(N);
  std::printf("kops_argmin,%d,%lld,%lld,1,%.4f,%.4g,%ld\n", D, (long long)M, (long long)N, best_min, pairs / best_min,
              first);
  std::printf("kops_argkmin,%d,%lld,%lld,%d,%.4f,%.4g,%ld\n", D, (long long)M, (long long)N, K, best_kmin,
              pairs / best_kmin, bad);
  std::fflush(stdout);
  if (!dir.empty()) {
    const std::string tag = "_" + std::to_string(D);
    dump(dir + "/x" + tag + ".f32", x), dump(dir + "/y" + tag + ".f32", y), dump(dir + "/argkmin" + tag + ".i64", knn);
  }
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::int64_t M = 2000, N = 20000;
  int reps = 3, only = 0;
  std::string dir;
  for (int a = 1; a < argc; ++a) {
    const bool more = a + 1 < argc;
    if (more && !std::strcmp(argv[a], "--m")) M = std::atoll(argv[++a]);
    else if (more && !std::strcmp(argv[a], "--n")) N = std::atoll(argv[++a]);
    else if (more && !std::strcmp(argv[a], "--reps")) reps = std::atoi(argv[++a]);
    else if (more && !std::strcmp(argv[a], "--dump")) dir = argv[++a];
    else if (more && !std::strcmp(argv[a], "--only")) only = std::atoi(argv[++a]);
  }
  if (N < K) {
    std::fprintf(stderr, "bench_knn: N must be at least K = %d, given %lld\n", K, (long long)N);
    return 2;
  }
  if (only != 784) run<3>(M, N, reps, dir);
  if (only != 3) run<784>(M, N, reps, dir);
}
