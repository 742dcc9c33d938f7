// GPU_1D, GPU_2D and the automatic scheme against the host reference
// (tests/common/reference.hpp: the reduction's definition, one pair at a time)
// on sizes around the warp (32) and block (192) boundaries, with M << N and
// M >> N, over both axes, for every reduction, float and double; the fast
// precision policy against its documented error bounds; and a problem with
// M * N beyond 2^32.
#include "cuda_support.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

using namespace kops_test;
using kops::cuda::scheme;

namespace {

// Emulated (gpu_emulated), `big` is 700: still several tiles and GPU_2D chunks.
constexpr std::int64_t big = emulated ? 700 : 4097;
constexpr std::int64_t block_sizes[] = {1, 31, 32, 33, 191, 192, 193, 1000, big};

// (s, big) and (big, s) for every size s: M << N, M >> N, and both large.
std::vector<std::pair<std::int64_t, std::int64_t>> shapes() {
  std::vector<std::pair<std::int64_t, std::int64_t>> v;
  for (auto s : block_sizes) {
    v.emplace_back(s, big);
    if (s != big) v.emplace_back(big, s);
  }
  return v;
}

struct variant {
  const char* name;
  scheme s;
  std::int64_t chunk;
  kops::cuda::options opts() const {
    kops::cuda::options o;
    o.scheme = s;
    o.gpu_2d_chunk = chunk;
    return o;
  }
};
// GPU_2D with its own chunking, and with chunks of 7 (not a multiple of the
// tile: chunk boundaries fall inside tiles and next to block boundaries).
const variant variants[] = {{"gpu_1d", scheme::gpu_1d, 0},
                            {"gpu_2d", scheme::gpu_2d, 0},
                            {"gpu_2d chunk 7", scheme::gpu_2d, 7},
                            {"automatic", scheme::automatic, 0}};

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 2>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto gauss = kops::exp(-g * kops::sqdist(x, y)) * b;  // sums
// Extrema: additions only, so no multiply-add contraction can make the device's
// values differ from the host's: the results must agree exactly.
constexpr auto diff = x - y;

template <class A> constexpr bool over_j = std::is_same_v<A, kops::axis_tag<1>>;

// Integer-valued data in [0, 8): x - y takes 15 values, so most extrema are
// reached many times and the first-index rule is exercised across tiles,
// blocks and chunks.
template <class T>
std::vector<T> small_integers(std::size_t n, unsigned seed) {
  auto v = random_vector<double>(n, 0, 8, seed);
  std::vector<T> r(n);
  for (std::size_t k = 0; k < n; ++k) r[k] = T(std::floor(v[k]));
  return r;
}

template <class T, class A>
void check_sum_agreement(A axis) {
  for (auto [M, N] : shapes()) {
    const auto px = random_vector<T>(M * 3, 0, 1, 31), py = random_vector<T>(N * 3, 0, 1, 32);
    const auto pb = random_vector<T>(N * 2, -1, 1, 33);
    const std::vector<T> pg{T(2)};
    const std::int64_t rows = over_j<A> ? M : N;
    std::vector<double> ref(rows * 2), sabs(rows * 2);
    reference_eval<double>(kops::sum_reduction(gauss, axis), M, N, ref.data(), px.data(), py.data(), pb.data(), pg.data());
    reference_eval<double>(kops::sum_reduction(kops::abs(gauss), axis), M, N, sabs.data(), px.data(), py.data(),
                           pb.data(), pg.data());
    for (const auto& v : variants) {
      std::vector<T> out(rows * 2, std::numeric_limits<T>::quiet_NaN());
      kops::cuda::eval_host(kops::sum_reduction(gauss, axis), M, N, out.data(), px.data(), py.data(), pb.data(),
                            pg.data(), v.opts());
      // Error of a sum of terms in T: proportional to the sum of |terms|.
      double worst = 0;
      std::int64_t where = -1;
      for (std::int64_t n = 0; n < rows * 2; ++n) {
        const double e = std::abs(double(out[n]) - ref[n]) / (sabs[n] + 1e-3);
        if (!(e <= worst)) worst = e, where = n;
      }
      INFO(v.name << " M=" << M << " N=" << N << " worst component " << where);
      REQUIRE(worst <= tolerance<T>() * 4);
    }
  }
}

template <class T, class Red>
void check_exact(Red red, std::int64_t M, std::int64_t N, const std::vector<T>& px, const std::vector<T>& py,
                 const char* what) {
  using Out = typename Red::op::template out_t<T>;
  const std::int64_t rows = Red::row_cat == kops::category::i ? M : N;
  std::vector<Out> ref(rows * Red::dim);
  reference_eval<T>(red, M, N, ref.data(), px.data(), py.data());
  for (const auto& v : variants) {
    std::vector<Out> out(rows * Red::dim, Out(-7));
    kops::cuda::eval_host(red, M, N, out.data(), px.data(), py.data(), v.opts());
    std::int64_t bad = -1;
    for (std::int64_t n = 0; n < std::int64_t(out.size()) && bad < 0; ++n)
      if (out[n] != ref[n]) bad = n;
    INFO(what << " " << v.name << " M=" << M << " N=" << N << " first mismatch at " << bad << ": "
              << (bad >= 0 ? double(out[bad]) : 0.0) << " vs " << (bad >= 0 ? double(ref[bad]) : 0.0));
    REQUIRE(bad == -1);
  }
}

template <class T, class A>
void check_extrema_agreement(A axis) {
  for (auto [M, N] : shapes()) {
    const auto px = small_integers<T>(M * 3, 41), py = small_integers<T>(N * 3, 42);
    check_exact<T>(kops::min_reduction(diff, axis), M, N, px, py, "min");
    check_exact<T>(kops::max_reduction(diff, axis), M, N, px, py, "max");
    check_exact<T>(kops::argmin_reduction(diff, axis), M, N, px, py, "argmin");
    check_exact<T>(kops::argmax_reduction(diff, axis), M, N, px, py, "argmax");
  }
}

} // namespace

TEMPLATE_TEST_CASE("sum: GPU_1D, GPU_2D and automatic agree with the host reference around block sizes",
                   "[agreement]", float, double) {
  SECTION("axis_j") { check_sum_agreement<TestType>(kops::axis_j); }
  SECTION("axis_i") { check_sum_agreement<TestType>(kops::axis_i); }
}

TEMPLATE_TEST_CASE("min, max, argmin, argmax: GPU_1D, GPU_2D and automatic equal the host reference, ties included",
                   "[agreement]", float, double) {
  SECTION("axis_j") { check_extrema_agreement<TestType>(kops::axis_j); }
  SECTION("axis_i") { check_extrema_agreement<TestType>(kops::axis_i); }
}

TEMPLATE_TEST_CASE("the fast policy stays within its error bound on a Gaussian sum", "[agreement][precision]",
                   float, double) {
  using T = TestType;
  constexpr auto conv = kops::sum_reduction(gauss, kops::axis_j);
  for (auto [M, N] : {std::pair<std::int64_t, std::int64_t>{1000, 4097}, {4097, 1000}, {193, 193}}) {
    const auto px = random_vector<T>(M * 3, 0, 1, 51), py = random_vector<T>(N * 3, 0, 1, 52);
    const auto pb = random_vector<T>(N * 2, -1, 1, 53);
    const std::vector<T> pg{T(2)};
    std::vector<double> ref(M * 2), sabs(M * 2);
    reference_eval<double>(conv, M, N, ref.data(), px.data(), py.data(), pb.data(), pg.data());
    reference_eval<double>(kops::sum_reduction(kops::abs(gauss), kops::axis_j), M, N, sabs.data(), px.data(),
                           py.data(), pb.data(), pg.data());
    for (const auto& v : variants) {
      std::vector<T> fast(M * 2), accurate(M * 2);
      kops::cuda::eval_host<kops::precision::fast>(conv, M, N, fast.data(), px.data(), py.data(), pb.data(),
                                                   pg.data(), v.opts());
      kops::cuda::eval_host<kops::precision::accurate>(conv, M, N, accurate.data(), px.data(), py.data(),
                                                       pb.data(), pg.data(), v.opts());
      double worst = 0;
      for (std::int64_t n = 0; n < M * 2; ++n)
        worst = std::fmax(worst, std::abs(double(fast[n]) - ref[n]) / (sabs[n] + 1e-3));
      INFO(v.name << " M=" << M << " N=" << N);
      // exp(-g d^2) with g d^2 <= 6: __expf is within 2 + 1.173 * 6 ulp.
      REQUIRE(worst <= tolerance<T>() * 4);
      if constexpr (std::is_same_v<T, double>) REQUIRE(fast == accurate);  // no fast double intrinsics
    }
  }
}

TEST_CASE("fast_math functions stay within their documented bounds on the GPU", "[precision]") {
  constexpr std::int64_t n = 20000;
  constexpr double ulp = 1.0 / 8388608.0;  // 2^-23: one ulp relative to a float, at most
  const auto xi = kops::vi<0, 1>;
  // bound(x, exact) is the largest error allowed at x.
  auto check = [&](auto f, double lo, double hi, double (*exact)(double), auto bound, const char* name) {
    const auto px = random_vector<float>(n, lo, hi, 61);
    std::vector<float> out(n);
    kops::cuda::eval_host<kops::precision::fast>(kops::sum_reduction(f, kops::axis_j), n, 1, out.data(), px.data());
    std::int64_t bad = -1;
    for (std::int64_t k = 0; k < n && bad < 0; ++k) {
      const double e = exact(double(px[k]));
      if (!(std::abs(double(out[k]) - e) <= bound(double(px[k]), e))) bad = k;
    }
    INFO(name << ": first value out of bounds at x = " << (bad >= 0 ? px[bad] : 0.f) << ": "
              << (bad >= 0 ? out[bad] : 0.f));
    CHECK(bad == -1);
  };
  const double pi = 3.14159265358979;
  check(kops::exp(xi), -30, 30, [](double a) { return std::exp(a); },
        [&](double a, double e) { return (3 + 1.173 * std::abs(a)) * ulp * e; }, "exp");
  check(kops::log(xi), 1e-3, 1e3, [](double a) { return std::log(a); },
        [&](double, double e) { return 0x1p-21 + 4 * ulp * std::abs(e); }, "log");
  check(kops::sin(xi), -pi, pi, [](double a) { return std::sin(a); }, [](double, double) { return 0x1p-21; }, "sin");
  check(kops::cos(xi), -pi, pi, [](double a) { return std::cos(a); }, [](double, double) { return 0x1p-21; }, "cos");
  check(kops::sqrt(xi), 0, 100, [](double a) { return std::sqrt(a); },
        [&](double, double e) { return 2 * ulp * e; }, "sqrt");
  check(kops::rsqrt(xi), 1e-3, 100, [](double a) { return 1 / std::sqrt(a); },
        [&](double, double e) { return 3 * ulp * e; }, "rsqrt");
  const std::vector<float> zero{0.f};
  float r = 1;
  kops::cuda::eval_host<kops::precision::fast>(kops::sum_reduction(kops::rsqrt(xi), kops::axis_j), 1, 1, &r,
                                               zero.data());
  CHECK(r == 0.f);
}

TEST_CASE("M * N beyond 2^32: sums and argmax on sampled rows", "[agreement][large]") {
  // 4.9e9 pairs. Emulated, M is cut to 700 (the same kernels and index types;
  // the 2^32 crossing itself is checked on a GPU, tools/gpu_check.sh, and on the CPU backend).
  constexpr std::int64_t M = emulated ? 700 : 70000, N = 70000;
  static_assert(emulated || M * N > (std::int64_t(1) << 32));
  constexpr std::int64_t samples = 16;
  const auto px = random_vector<float>(M * 3, 0, 1, 71), py = random_vector<float>(N * 3, 0, 1, 72);
  const auto pb = random_vector<float>(N * 2, -1, 1, 73);
  const std::vector<float> pg{2.f};
  std::vector<float> sx(samples * 3);
  for (std::int64_t s = 0; s < samples; ++s)
    for (int k = 0; k < 3; ++k) sx[s * 3 + k] = px[(s * (M - 1) / (samples - 1)) * 3 + k];
  constexpr auto conv = kops::sum_reduction(gauss, kops::axis_j);
  std::vector<double> ref(samples * 2), sabs(samples * 2);
  reference_eval<double>(conv, samples, N, ref.data(), sx.data(), py.data(), pb.data(), pg.data());
  reference_eval<double>(kops::sum_reduction(kops::abs(gauss), kops::axis_j), samples, N, sabs.data(), sx.data(),
                         py.data(), pb.data(), pg.data());
  const auto ix = small_integers<float>(M * 3, 74), iy = small_integers<float>(N * 3, 75);
  std::vector<float> six(samples * 3);
  for (std::int64_t s = 0; s < samples; ++s)
    for (int k = 0; k < 3; ++k) six[s * 3 + k] = ix[(s * (M - 1) / (samples - 1)) * 3 + k];
  constexpr auto amax = kops::argmax_reduction(diff, kops::axis_i);  // reduced over i: M = 70000 terms
  constexpr auto amax_j = kops::argmax_reduction(diff, kops::axis_j);
  std::vector<std::int64_t> iref(samples * 3);
  reference_eval<float>(amax_j, samples, N, iref.data(), six.data(), iy.data());
  for (const auto& v : {variants[0], variants[1], variants[3]}) {
    std::vector<float> out(M * 2);
    kops::cuda::eval_host<kops::precision::fast>(conv, M, N, out.data(), px.data(), py.data(), pb.data(), pg.data(),
                                                 v.opts());
    for (std::int64_t s = 0; s < samples; ++s)
      for (int k = 0; k < 2; ++k) {
        const std::int64_t row = s * (M - 1) / (samples - 1);
        INFO(v.name << " row " << row << " comp " << k);
        // 70000 float terms: a looser bound than the small sizes'.
        REQUIRE(std::abs(double(out[row * 2 + k]) - ref[s * 2 + k]) <= 1e-4 * (sabs[s * 2 + k] + 1e-3));
      }
    std::vector<std::int64_t> idx(M * 3), idx_i(N * 3);
    kops::cuda::eval_host(amax_j, M, N, idx.data(), ix.data(), iy.data(), v.opts());
    kops::cuda::eval_host(amax, M, N, idx_i.data(), ix.data(), iy.data(), v.opts());
    for (std::int64_t s = 0; s < samples; ++s)
      for (int k = 0; k < 3; ++k) {
        const std::int64_t row = s * (M - 1) / (samples - 1);
        INFO(v.name << " row " << row << " comp " << k);
        REQUIRE(idx[row * 3 + k] == iref[s * 3 + k]);
      }
    // argmax over i of x_i - y_j: the first i where x_i,k is largest, whatever j.
    for (int k = 0; k < 3; ++k) {
      std::int64_t first = 0;
      for (std::int64_t i = 1; i < M; ++i)
        if (ix[i * 3 + k] > ix[first * 3 + k]) first = i;
      INFO(v.name << " argmax over i, comp " << k);
      REQUIRE(idx_i[k] == first);
      REQUIRE(idx_i[(N - 1) * 3 + k] == first);
    }
  }
}
