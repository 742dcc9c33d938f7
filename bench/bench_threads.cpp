// kops on every thread of Kokkos::DefaultHostExecutionSpace: the 3-D Gaussian
// sum a_i = sum_j exp(-g |x_i - y_j|^2) b_j, float32, at two shapes,
//
//   square:    M = N = 1e5    (rows alone fill the threads)
//   few rows:  M = 16, N = 1e7 (one row block: the reduced axis is sliced)
//
// best of REPS timed calls after one warm-up, default policy
// (precision::accurate) and precision::fast. Prints one CSV line per
// (shape, policy): shape,M,N,policy,threads,seconds,pairs_per_s. With --dump DIR
// it writes the inputs and kops's outputs (float32, raw) for pykeops_threads.py.
// bench/run_threads.sh builds it against Kokkos 4.6 OpenMP and runs it on 1 and
// 2 threads beside pykeops on 2.
//
//   OMP_NUM_THREADS=2 ./bench_threads [--reps 5] [--dump DIR] [--only square|few]
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto gauss = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);

std::vector<float> uniform(std::size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& e : v) e = u(gen);
  return v;
}

void write(const std::string& path, const std::vector<float>& v) {
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(v.data(), sizeof(float), v.size(), f);
    std::fclose(f);
  }
}

template <kops::precision P>
double best_seconds(int reps, std::int64_t M, std::int64_t N, std::vector<float>& out, const std::vector<float>& px,
                    const std::vector<float>& py, const std::vector<float>& pb, const float* pg) {
  kops::kokkos::eval<P>(gauss, M, N, out.data(), px.data(), py.data(), pb.data(), pg);  // warm-up
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    kops::kokkos::eval<P>(gauss, M, N, out.data(), px.data(), py.data(), pb.data(), pg);
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  int reps = 5;
  std::string dump, only;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--reps" && a + 1 < argc) reps = std::atoi(argv[++a]);
    else if (s == "--dump" && a + 1 < argc) dump = argv[++a];
    else if (s == "--only" && a + 1 < argc) only = argv[++a];
  }
  const int threads = int(Kokkos::DefaultHostExecutionSpace().concurrency());
  struct shape {
    const char* name;
    std::int64_t M, N;
  };
  const float gamma[1] = {2.0f};
  for (const shape sh : {shape{"square", 100000, 100000}, shape{"few", 16, 10000000}}) {
    if (!only.empty() && only != sh.name) continue;
    const auto px = uniform(std::size_t(sh.M) * 3, 1, 0.f, 1.f), py = uniform(std::size_t(sh.N) * 3, 2, 0.f, 1.f);
    const auto pb = uniform(std::size_t(sh.N), 3, 0.f, 1.f);
    std::vector<float> out(std::size_t(sh.M));
    const double acc = best_seconds<kops::precision::accurate>(reps, sh.M, sh.N, out, px, py, pb, gamma);
    if (!dump.empty()) {
      const std::string p = dump + "/" + sh.name + "_";
      write(p + "x.f32", px);
      write(p + "y.f32", py);
      write(p + "b.f32", pb);
      write(p + "out_kops.f32", out);
    }
    const double fast = best_seconds<kops::precision::fast>(reps, sh.M, sh.N, out, px, py, pb, gamma);
    const double pairs = double(sh.M) * double(sh.N);
    std::printf("%s,%lld,%lld,accurate,%d,%.6f,%.4g\n", sh.name, (long long)sh.M, (long long)sh.N, threads, acc,
                pairs / acc);
    std::printf("%s,%lld,%lld,fast,%d,%.6f,%.4g\n", sh.name, (long long)sh.M, (long long)sh.N, threads, fast,
                pairs / fast);
    std::fflush(stdout);
  }
  return 0;
}
