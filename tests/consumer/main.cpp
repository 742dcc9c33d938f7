// Consumer check: a Gaussian convolution through kops' public API, compared with
// a plain double loop. Exit status 0 = match.
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);

  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
  static_assert(conv.dim == 1);

  const std::int64_t M = 37, N = 53;
  std::vector<double> px(M * 3), py(N * 3), pb(N), pg{0.7}, out(M, -1.0);
  for (std::int64_t k = 0; k < M * 3; ++k) px[k] = std::sin(0.37 * double(k));
  for (std::int64_t k = 0; k < N * 3; ++k) py[k] = std::cos(0.23 * double(k));
  for (std::int64_t k = 0; k < N; ++k) pb[k] = 0.5 + 0.01 * double(k);

  kops::kokkos::eval(conv, M, N, out.data(), px.data(), py.data(), pb.data(), pg.data());
  // The range form of the contract (M and N deduced): the same call, bit for bit.
  std::vector<double> by_spans(M, -1.0);
  kops::kokkos::eval(conv, std::span(by_spans), std::span(px), std::span(py), std::span(pb), std::span(pg));
  int bad = by_spans == out ? 0 : 1;
  if (bad) std::printf("the range form differs from the pointer form\n");
  // A short output is a kops::error, not a write past it.
  try {
    kops::kokkos::eval(conv, std::span(by_spans).first(M - 1), std::span(px), std::span(py), std::span(pb),
                       std::span(pg));
    std::printf("a short output was accepted\n");
    ++bad;
  } catch (const kops::error&) {
  }

  for (std::int64_t i = 0; i < M; ++i) {
    double ref = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double d = px[i * 3 + k] - py[j * 3 + k];
        d2 += d * d;
      }
      ref += std::exp(-pg[0] * d2) * pb[j];
    }
    if (!(std::abs(out[i] - ref) <= 1e-12 * (1.0 + std::abs(ref)))) {
      if (bad < 5) std::printf("mismatch at i=%lld: kops %.17g, reference %.17g\n", (long long)i, out[i], ref);
      ++bad;
    }
  }
  // 16-bit storage (kops::half, kops::bfloat16): evaluated in float; against
  // the double loop on the stored values (widened exactly), a float-level error.
  auto stored16 = [&](auto tag) {
    using S = decltype(tag);
    std::vector<S> hx(px.begin(), px.end()), hy(py.begin(), py.end()), hb(pb.begin(), pb.end()), hg(pg.begin(), pg.end());
    std::vector<float> fout(M);
    kops::kokkos::eval(conv, M, N, fout.data(), hx.data(), hy.data(), hb.data(), hg.data());
    for (std::int64_t i = 0; i < M; ++i) {
      double ref = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        double d2 = 0;
        for (int k = 0; k < 3; ++k) {
          const double d = double(float(hx[i * 3 + k])) - double(float(hy[j * 3 + k]));
          d2 += d * d;
        }
        ref += std::exp(-double(float(hg[0])) * d2) * double(float(hb[j]));
      }
      if (!(std::abs(fout[i] - ref) <= 1e-5 * (1.0 + std::abs(ref)))) {
        if (bad < 5) std::printf("16-bit mismatch at i=%lld: kops %.9g, reference %.17g\n", (long long)i, fout[i], ref);
        ++bad;
      }
    }
  };
  stored16(kops::half{});
  stored16(kops::bfloat16{});
  if (bad) {
    std::printf("kops consumer: %d of %lld values differ\n", bad, (long long)M);
    return 1;
  }
  std::printf("kops consumer: OK (%lld values)\n", (long long)M);
  return 0;
}
