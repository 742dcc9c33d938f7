// Scaled dot-product attention with kops::sumsoftmaxweight_reduction (CPU backend):
//   out_i = sum_j softmax_j(s q_i . k_j) v_j = sum_j exp(s q_i . k_j) v_j / sum_j exp(s q_i . k_j),
// s = 1 / sqrt(d), queries q:(M, d), keys k:(N, d), values v:(N, d), float32,
// without ever forming the M x N score matrix. kops keeps a running maximum of
// the scores and rescales its sums when it grows, so the exponentials never
// overflow, however large the scores.
//
// Checked against a naive softmax written below: per row, materialise the N
// scores, subtract their maximum, exponentiate, normalise, multiply by V. The
// reference runs it in double; the error is measured relative to
// sum_j p_ij |v_jc| (p = softmax), the scale of float rounding in a weighted
// average. The same loop in float is timed next to kops. Then the scores are
// scaled by 100 (|scores| up to ~500): the float loop *without* the max shift
// overflows (exp(x) = inf for x > 88.7, inf / inf = NaN) while kops stays
// finite and matches the double reference. (At x100 most terms exp(score - max)
// would be subnormal floats, which x86 cores process through slow microcode;
// kops' log-sum-exp engine drops terms more than e^-80 below the maximum
// instead, so they cost nothing extra.)
//
//   attention [M] [N]       (default M = N = 2000, head dim 64)
// Build: CMake target attention (kops::kokkos), or by hand from kops' root:
//   g++ -std=c++20 -O2 -march=native -fno-math-errno -Iinclude -isystem /usr/include/trilinos
//       examples/attention/main.cpp -ltrilinos_kokkoscore -ldl -o attention
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr int d = 64;  // head dim of queries, keys and values

// The naive attention: per row, scores -> (minus max) -> exp -> normalise -> times V.
// With T = double it is the reference; it also returns, in abs_out, sum_j p_ij |v_jc|.
template <class T>
void naive_attention(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                     std::int64_t M, std::int64_t N, T s, bool shift_by_max, T* out, T* abs_out = nullptr) {
  std::vector<T> p(N);
  for (std::int64_t i = 0; i < M; ++i) {
    T m = -INFINITY;
    for (std::int64_t j = 0; j < N; ++j) {
      T dot = 0;
      for (int c = 0; c < d; ++c) dot += T(q[i * d + c]) * T(k[j * d + c]);
      p[j] = s * dot;
      m = std::max(m, p[j]);
    }
    if (!shift_by_max) m = 0;
    T z = 0;
    for (std::int64_t j = 0; j < N; ++j) z += (p[j] = std::exp(p[j] - m));
    for (int c = 0; c < d; ++c) out[i * d + c] = 0;
    if (abs_out)
      for (int c = 0; c < d; ++c) abs_out[i * d + c] = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      const T w = p[j] / z;
      for (int c = 0; c < d; ++c) out[i * d + c] += w * T(v[j * d + c]);
      if (abs_out)
        for (int c = 0; c < d; ++c) abs_out[i * d + c] += w * std::abs(T(v[j * d + c]));
    }
  }
}

template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Largest |out - ref| / (sum_j p_ij |v_jc|) over every output; NaN if out has a NaN.
double max_relative_error(const std::vector<float>& out, const std::vector<double>& ref,
                          const std::vector<double>& ref_abs) {
  double err = 0;
  for (std::size_t e = 0; e < ref.size(); ++e) {
    const double r = std::abs(out[e] - ref[e]) / ref_abs[e];
    err = std::isnan(r) || std::isnan(err) ? NAN : std::max(err, r);
  }
  return err;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t M = argc > 1 ? std::atoll(argv[1]) : 2000;
  const std::int64_t N = argc > 2 ? std::atoll(argv[2]) : 2000;

  constexpr auto q = kops::vi<0, d>;  // queries, (M, d)
  constexpr auto k = kops::vj<1, d>;  // keys, (N, d)
  constexpr auto v = kops::vj<2, d>;  // values, (N, d)
  constexpr auto s = kops::pm<3, 1>;  // score scale, 1 / sqrt(d)
  constexpr auto attention = kops::sumsoftmaxweight_reduction(s * kops::dot(q, k), v, kops::axis_j);
  static_assert(attention.dim == d);

  std::mt19937 rng(3);
  std::normal_distribution<float> gauss(0.f, 1.f);
  std::vector<float> pq(M * d), pk(N * d), pv(N * d), out(M * d), naive_out(M * d);
  for (auto& x : pq) x = gauss(rng);
  for (auto& x : pk) x = gauss(rng);
  for (auto& x : pv) x = gauss(rng);
  std::vector<double> ref(M * d), ref_abs(M * d);

  std::printf("kops attention on the CPU (Kokkos %s): M = %lld queries, N = %lld keys, head dim %d, float32\n",
              Kokkos::DefaultHostExecutionSpace::name(), (long long)M, (long long)N, d);
  bool ok = true;
  for (const float factor : {1.f, 100.f}) {
    const float scale = factor / std::sqrt(float(d));
    kops::kokkos::eval(attention, M, N, out.data(), pq.data(), pk.data(), pv.data(), &scale);  // warm-up
    const double t_kops = seconds_of([&] {
      kops::kokkos::eval(attention, M, N, out.data(), pq.data(), pk.data(), pv.data(), &scale);
    });
    naive_attention<double>(pq, pk, pv, M, N, scale, true, ref.data(), ref_abs.data());
    const double err = max_relative_error(out, ref, ref_abs);
    // float, max-shifted at factor 1 (a fair timing); not shifted at factor 100.
    const double t_naive = seconds_of([&] { naive_attention<float>(pq, pk, pv, M, N, scale, factor == 1, naive_out.data()); });
    const double naive_err = max_relative_error(naive_out, ref, ref_abs);
    std::int64_t naive_nan = 0;
    for (float x : naive_out) naive_nan += !std::isfinite(x);
    bool finite = true;
    for (float x : out) finite = finite && std::isfinite(x);

    // The scores are rounded to float relative to their size: the tolerance grows with them.
    const double tol = 1e-5 * factor;
    ok = ok && finite && err < tol;
    std::printf("  scores x %-4g: kops %.4f s (%.3g pairs/s), naive float softmax %s %.4f s (naive / kops = %.1f)\n",
                factor, t_kops, double(M) * double(N) / t_kops, factor == 1 ? "(max-shifted)  " : "(no max shift)",
                t_naive, t_naive / t_kops);
    std::printf("                kops vs double reference: max relative error %.2e (< %.0e), all finite: %s\n", err,
                tol, finite ? "yes" : "NO");
    std::printf("                naive float vs double reference: max relative error %.2e, %lld non-finite outputs\n",
                naive_err, (long long)naive_nan);
    if (factor == 100) ok = ok && naive_nan > 0;  // the demonstration itself: the unshifted loop must overflow
  }
  std::printf("check: %s (kops vs a double max-shifted softmax loop on every output, for scores x1 and x100; "
              "the unshifted float loop overflows at x100)\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
