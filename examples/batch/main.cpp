// Many small problems in one call: batched multi-head attention with
// kops::batch and kops::per_batch (CPU backend).
//
//   out[b]_i = sum_j softmax_j(s q[b]_i . k[b]_j) v[b]_j      b = 0 .. B-1
//
// B = heads x sequences independent attention problems of M queries and N
// keys each (q[b]:(M, d), k[b], v[b]:(N, d), stored batch after batch), the
// scale s shared by every batch. One batched call runs them all in one
// parallel loop; the same B problems as B separate calls pay the loop's start
// and its idle end B times, which for small problems is most of the time.
//
// Checked: the batched call equals the B separate calls bit for bit (the same
// kernel in the same order), and every output is within float rounding of a
// double-precision softmax loop.
//
//   batch [B] [M] [N]       (default B = 256, M = N = 64, head dim 32)
// Build: CMake target batch (kops::kokkos), or by hand from kops' root:
//   g++ -std=c++20 -O2 -march=native -Iinclude -isystem /usr/include/trilinos
//       examples/batch/main.cpp -ltrilinos_kokkoscore -ldl -o batch
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

constexpr int d = 32;  // head dim

template <class F>
double best_seconds(int reps, F&& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t B = argc > 1 ? std::atoll(argv[1]) : 256;
  const std::int64_t M = argc > 2 ? std::atoll(argv[2]) : 64;
  const std::int64_t N = argc > 3 ? std::atoll(argv[3]) : 64;

  constexpr auto q = kops::vi<0, d>;
  constexpr auto k = kops::vj<1, d>;
  constexpr auto v = kops::vj<2, d>;
  constexpr auto s = kops::pm<3, 1>;
  constexpr auto attention = kops::sumsoftmaxweight_reduction(s * kops::dot(q, k), v, kops::axis_j);

  std::mt19937 rng(5);
  std::normal_distribution<float> gauss(0.f, 1.f);
  std::vector<float> pq(std::size_t(B * M * d)), pk(std::size_t(B * N * d)), pv(std::size_t(B * N * d));
  for (auto* a : {&pq, &pk, &pv})
    for (auto& x : *a) x = gauss(rng);
  const float scale = 1.f / std::sqrt(float(d));
  std::vector<float> batched(std::size_t(B * M * d)), separate(batched.size());

  auto run_batched = [&] {
    kops::kokkos::eval(attention, M, N, batched.data(), kops::per_batch(pq.data()), kops::per_batch(pk.data()),
                       kops::per_batch(pv.data()), &scale, kops::batch{B});
  };
  auto run_separate = [&] {
    for (std::int64_t b = 0; b < B; ++b)
      kops::kokkos::eval(attention, M, N, separate.data() + b * M * d, pq.data() + b * M * d, pk.data() + b * N * d,
                         pv.data() + b * N * d, &scale);
  };
  run_batched();
  run_separate();
  const double t_batched = best_seconds(5, run_batched);
  const double t_separate = best_seconds(5, run_separate);
  const bool same = std::memcmp(batched.data(), separate.data(), batched.size() * sizeof(float)) == 0;

  // Double-precision softmax, relative to sum_j p_ij |v_jc| (the scale of a
  // weighted average's rounding).
  double err = 0;
  std::vector<double> p(static_cast<std::size_t>(N));
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < M; ++i) {
      const float* qi = pq.data() + (b * M + i) * d;
      double m = -INFINITY, z = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        const float* kj = pk.data() + (b * N + j) * d;
        double dot = 0;
        for (int c = 0; c < d; ++c) dot += double(qi[c]) * double(kj[c]);
        p[std::size_t(j)] = double(scale) * dot;
        m = std::max(m, p[std::size_t(j)]);
      }
      for (std::int64_t j = 0; j < N; ++j) z += (p[std::size_t(j)] = std::exp(p[std::size_t(j)] - m));
      for (int c = 0; c < d; ++c) {
        double ref = 0, mag = 0;
        for (std::int64_t j = 0; j < N; ++j) {
          const double vj = pv[std::size_t((b * N + j) * d + c)];
          ref += p[std::size_t(j)] / z * vj;
          mag += p[std::size_t(j)] / z * std::abs(vj);
        }
        const double e = std::abs(double(batched[std::size_t((b * M + i) * d + c)]) - ref) / mag;
        err = std::isnan(e) ? INFINITY : std::max(err, e);
      }
    }

  const double pairs = double(B) * double(M) * double(N);
  std::printf("kops batched attention on the CPU (Kokkos %s, %d threads): B = %lld problems of M = %lld queries, "
              "N = %lld keys, head dim %d, float32\n",
              Kokkos::DefaultHostExecutionSpace::name(), int(Kokkos::DefaultHostExecutionSpace().concurrency()),
              (long long)B, (long long)M, (long long)N, d);
  std::printf("  one batched call : %.5f s (%.3g pairs/s)\n", t_batched, pairs / t_batched);
  std::printf("  %lld separate calls: %.5f s (%.3g pairs/s), separate / batched = %.2f\n", (long long)B, t_separate,
              pairs / t_separate, t_separate / t_batched);
  std::printf("  batched == separate, bit for bit: %s\n", same ? "yes" : "NO");
  std::printf("  max error vs a double softmax loop (relative to sum_j p_ij |v_jc|): %.2e\n", err);
  const bool ok = same && err < 1e-5;
  std::printf("check: %s (batched equals the separate calls bit for bit; every output within 1e-5 of double)\n",
              ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
