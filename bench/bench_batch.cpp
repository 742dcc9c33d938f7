// Batched calls on the CPU backend (one thread with Debian's Serial Kokkos;
// bench/run_batch.sh pins it to one core): one batched call against a loop of
// B plain calls, and the data for pykeops 2.3's batch dimension on the same
// problem (pykeops_batch.py).
//
//   a[b]_i = sum_j exp(-g |x[b]_i - y[b]_j|^2) c[b]_j,  float32, b = 0 .. B-1
//   (B Gaussian smoothings of 3-D point clouds: x, y, c per batch, g shared)
//
//   bench_batch [--b B] [--m M] [--n N] [--reps R] [--dump DIR]
//
// Prints CSV lines  impl,B,M,N,seconds,pairs  (impl: batched, loop) and, on
// stderr, loop / batched. --dump DIR writes the inputs and the batched output
// for pykeops_batch.py.
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include "timing.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using bench::best_of;

void dump(const std::string& path, const std::vector<float>& v) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(v.data(), sizeof(float), v.size(), f) != v.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fclose(f);
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::int64_t B = 64, M = 2000, N = 2000;
  int reps = 3;
  std::string dir;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--b") B = std::atoll(argv[a + 1]);
    else if (k == "--m") M = std::atoll(argv[a + 1]);
    else if (k == "--n") N = std::atoll(argv[a + 1]);
    else if (k == "--reps") reps = std::atoi(argv[a + 1]);
    else if (k == "--dump") dir = argv[a + 1];
  }
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto c = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * c, kops::axis_j);

  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> px(std::size_t(B * M * 3)), py(std::size_t(B * N * 3)), pc(std::size_t(B * N)), pg{8.0f};
  for (auto* v : {&px, &py, &pc})
    for (auto& e : *v) e = u(rng);
  std::vector<float> batched(std::size_t(B * M)), loop(batched.size());

  auto run_batched = [&] {
    kops::kokkos::eval(conv, M, N, batched.data(), kops::per_batch(px.data()), kops::per_batch(py.data()),
                       kops::per_batch(pc.data()), pg.data(), kops::batch{B});
  };
  auto run_loop = [&] {
    for (std::int64_t b = 0; b < B; ++b)
      kops::kokkos::eval(conv, M, N, loop.data() + b * M, px.data() + b * M * 3, py.data() + b * N * 3,
                         pc.data() + b * N, pg.data());
  };
  run_batched();
  run_loop();
  const double tb = best_of(reps, run_batched), tl = best_of(reps, run_loop);
  const double pairs = double(B) * double(M) * double(N);
  std::printf("batched,%lld,%lld,%lld,%.6f,%.0f\n", (long long)B, (long long)M, (long long)N, tb, pairs);
  std::printf("loop,%lld,%lld,%lld,%.6f,%.0f\n", (long long)B, (long long)M, (long long)N, tl, pairs);
  const bool same = std::memcmp(batched.data(), loop.data(), batched.size() * sizeof(float)) == 0;
  std::fprintf(stderr, "# B = %lld, M = %lld, N = %lld: loop / batched = %.2f; equal bit for bit: %s\n",
               (long long)B, (long long)M, (long long)N, tl / tb, same ? "yes" : "NO");
  if (!dir.empty()) {
    dump(dir + "/x.f32", px);
    dump(dir + "/y.f32", py);
    dump(dir + "/c.f32", pc);
    dump(dir + "/g.f32", pg);
    dump(dir + "/out_kops.f32", batched);
  }
  return same ? 0 : 1;
}
