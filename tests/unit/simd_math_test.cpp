// Accuracy and special-value tests for kops::simd::detail::{vexp, vlog, vsin, vcos}.
// Reference: the long double libm functions (64-bit significand), so the measured
// error is against the (almost) exact value; the distance to std:: in the pack's own
// type is checked as well.
#include <catch2/catch.hpp>

#include <kops/backends/kokkos/simd_math.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

// Packs wider than the target's registers warn "changes the ABI" at call sites.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace {

using namespace kops::simd::detail;

typedef float f16 __attribute__((vector_size(64)));
typedef double d8 __attribute__((vector_size(64)));
typedef float f8 __attribute__((vector_size(32)));
typedef double d16 __attribute__((vector_size(128)));

template <class E>
using bits_t = std::conditional_t<sizeof(E) == 4, std::int32_t, std::int64_t>;

// Pack functions as functors taking references: no pack crosses a call boundary by
// value (that would warn -Wpsabi on targets narrower than the pack).
struct Exp { template <class V> void operator()(const V& x, V& y) const { y = vexp(x); } };
struct Log { template <class V> void operator()(const V& x, V& y) const { y = vlog(x); } };
struct Sin { template <class V> void operator()(const V& x, V& y) const { y = vsin(x); } };
struct Cos { template <class V> void operator()(const V& x, V& y) const { y = vcos(x); } };

// Evaluate a pack function on every input (padded to a whole number of packs).
template <class VT, class F, class E>
std::vector<E> apply(F f, const std::vector<E>& in) {
  constexpr int L = int(sizeof(VT) / sizeof(E));
  std::vector<E> out(in.size());
  for (std::size_t i = 0; i < in.size(); i += L) {
    VT v{};
    for (int l = 0; l < L; ++l) v[l] = i + l < in.size() ? in[i + l] : E(1);
    VT r;
    f(v, r);
    for (int l = 0; l < L && i + l < in.size(); ++l) out[i + l] = r[l];
  }
  return out;
}

// |got - ref| in ulps of E at ref (subnormal ulp below the normal range); an
// infinite `got` scores 0 when the exact value rounds to that infinity, else it counts
// as +-2^max_exponent.
template <class E>
long double ulp_error(E got, long double ref) {
  using lim = std::numeric_limits<E>;
  if (std::isnan(ref)) return std::isnan(got) ? 0.0L : INFINITY;
  if (std::isnan(got)) return INFINITY;
  if (std::isinf(ref)) return got == ref ? 0.0L : INFINITY;
  long double g = got;
  if (std::isinf(got)) {
    if (std::isinf(E(ref)) && (got > 0) == (ref > 0)) return 0.0L;  // correct overflow
    g = std::copysign(std::ldexp(1.0L, lim::max_exponent), (long double)got);
  }
  const long double a = std::fabs(ref);
  int e = a == 0 ? lim::min_exponent - 1 : std::ilogb(a);
  e = std::clamp(e, lim::min_exponent - 1, lim::max_exponent - 1);
  return std::fabs(g - ref) / std::ldexp(1.0L, e - (lim::digits - 1));
}

// Distance in representable values (0 = identical, NaN == NaN).
template <class E>
long double ulp_distance(E a, E b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0.0L : INFINITY;
  auto key = [](E v) {
    bits_t<E> i;
    std::memcpy(&i, &v, sizeof i);
    return i < 0 ? (long double)std::numeric_limits<bits_t<E>>::min() - i : (long double)i;
  };
  return std::fabs(key(a) - key(b));
}

template <class E>
struct Stat {
  long double max_ulp = 0, max_vs_std = 0;
  E worst_x = 0, worst_got = 0;
  long double worst_ref = 0;
};

template <class VT, class VF, class RF, class SF, class E>
Stat<E> sweep(VF vf, RF ref, SF stdf, const std::vector<E>& xs) {
  const std::vector<E> got = apply<VT>(vf, xs);
  Stat<E> s;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const long double u = ulp_error<E>(got[i], ref((long double)xs[i]));
    if (!(u <= s.max_ulp)) {
      s.max_ulp = u;
      s.worst_x = xs[i];
      s.worst_got = got[i];
      s.worst_ref = ref((long double)xs[i]);
    }
    s.max_vs_std = std::max(s.max_vs_std, ulp_distance<E>(got[i], stdf(xs[i])));
  }
  return s;
}

template <class E>
void append_uniform(std::vector<E>& v, std::mt19937_64& g, double a, double b, std::size_t n) {
  std::uniform_real_distribution<double> d(a, b);
  for (std::size_t i = 0; i < n; ++i) v.push_back(E(d(g)));
}

// Log-uniform magnitudes: random bit patterns of finite values with lo <= |x| <= hi.
template <class E>
void append_bits(std::vector<E>& v, std::mt19937_64& g, E lo, E hi, bool both_signs,
                 std::size_t n) {
  using U = std::conditional_t<sizeof(E) == 4, std::uint32_t, std::uint64_t>;
  U blo, bhi;
  std::memcpy(&blo, &lo, sizeof(E));
  std::memcpy(&bhi, &hi, sizeof(E));
  std::uniform_int_distribution<U> d(blo, bhi);
  for (std::size_t i = 0; i < n; ++i) {
    U b = d(g);
    E x;
    std::memcpy(&x, &b, sizeof(E));
    v.push_back(both_signs && (g() & 1) ? -x : x);
  }
}

constexpr long double kPiL = 3.141592653589793238462643383279502884L;

template <class E>
std::vector<E> exp_inputs() {
  using lim = std::numeric_limits<E>;
  std::mt19937_64 g(1);
  const bool f = sizeof(E) == 4;
  const double lo = f ? -104.0 : -746.0, hi = f ? 89.0 : 710.0;
  const double sub_hi = f ? -87.3 : -708.3;  // below: subnormal results
  std::vector<E> v;
  append_uniform(v, g, lo, hi, 400000);
  append_bits<E>(v, g, lim::denorm_min(), E(hi), true, 300000);
  append_uniform(v, g, lo, sub_hi, 150000);
  append_uniform(v, g, hi - 2, hi, 50000);
  append_uniform(v, g, -1.0, 1.0, 100000);
  for (int k = -1100; k <= 1100; ++k) v.push_back(E(k * 0.6931471805599453));  // n*ln2
  for (int k = -1100; k <= 1100; ++k) v.push_back(E((k + 0.5) * 0.6931471805599453));
  return v;
}

template <class E>
std::vector<E> log_inputs() {
  using lim = std::numeric_limits<E>;
  std::mt19937_64 g(2);
  std::vector<E> v;
  append_bits<E>(v, g, lim::denorm_min(), lim::max(), false, 400000);
  append_bits<E>(v, g, lim::denorm_min(), lim::min(), false, 100000);
  append_uniform(v, g, 0.0, 10.0, 200000);
  append_uniform(v, g, 0.5, 2.0, 200000);
  append_uniform(v, g, 0.99, 1.01, 100000);
  for (int k = -64; k <= 64; ++k) {  // neighbours of 1 and of sqrt(2)*2^k
    E one = 1, s = E(std::ldexp(1.4142135623730951, k));
    for (int j = 0; j < 50; ++j) {
      v.push_back(one), one = std::nextafter(one, E(2));
      v.push_back(s), s = std::nextafter(s, E(0));
    }
  }
  return v;
}

template <class E>
std::vector<E> trig_inputs() {
  std::mt19937_64 g(3);
  std::vector<E> v;
  append_uniform(v, g, -7.0, 7.0, 300000);
  append_uniform(v, g, -1e5, 1e5, 300000);
  append_bits<E>(v, g, std::numeric_limits<E>::denorm_min(), E(0x1p20), true, 300000);
  append_bits<E>(v, g, E(0x1p20), E(1e30), true, 5000);  // per-lane fallback path
  // Float values nearest to multiples of pi/2 (hard cases for the reduction).
  for (long k = 1; k < 600000; k += (k < 2000 ? 1 : 37)) {
    E x = E(k * (kPiL / 2));
    v.push_back(x);
    v.push_back(std::nextafter(x, E(0)));
    v.push_back(-std::nextafter(x, E(1e30)));
  }
  return v;
}

template <class E>
void report(const char* name, const Stat<E>& s) {
  INFO(name << ": max ulp vs exact " << (double)s.max_ulp << " at x = " << s.worst_x
            << " (got " << s.worst_got << ", exact " << (double)s.worst_ref
            << "), max distance to std:: " << (double)s.max_vs_std);
  WARN(name << " max ulp " << (double)s.max_ulp << ", vs std " << (double)s.max_vs_std);
  CHECK(s.max_ulp <= 1.5L);
  CHECK(s.max_vs_std <= 2.0L);
}

auto exp_l = [](long double x) { return std::exp(x); };
auto log_l = [](long double x) { return std::log(x); };
auto sin_l = [](long double x) { return std::sin(x); };
auto cos_l = [](long double x) { return std::cos(x); };

template <class E>
bool same(E a, E b) {  // bitwise, except any NaN equals any NaN
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(E)) == 0;
}

template <class VT, class E>
void check_specials() {
  using lim = std::numeric_limits<E>;
  const E inf = lim::infinity(), nan = lim::quiet_NaN();
  const std::vector<E> xe{nan, -nan, inf, -inf, 0, -E(0), 1000, -1000, lim::max(),
                          lim::lowest(), lim::denorm_min(), -lim::denorm_min()};
  const std::vector<E> ee{nan, nan, inf, 0, 1, 1, inf, 0, inf, 0, 1, 1};
  const auto ge = apply<VT>(Exp{}, xe);
  for (std::size_t i = 0; i < xe.size(); ++i) {
    INFO("exp(" << xe[i] << ") = " << ge[i]);
    CHECK(same(ge[i], ee[i]));
  }
  const std::vector<E> x1{1, -1};
  const auto g1 = apply<VT>(Exp{}, x1);
  CHECK(ulp_error<E>(g1[0], std::exp(1.0L)) <= 1.0L);
  CHECK(ulp_error<E>(g1[1], std::exp(-1.0L)) <= 1.0L);
  const std::vector<E> xl{nan, -nan, inf, -inf, 0, -E(0), 1, -1, -lim::denorm_min(),
                          lim::denorm_min(), lim::min(), lim::max(), E(2), -lim::max()};
  const auto gl = apply<VT>(Log{}, xl);
  for (std::size_t i = 0; i < xl.size(); ++i) {
    const E want = xl[i] > 0 && xl[i] < inf ? E(std::log((long double)xl[i])) : std::log(xl[i]);
    INFO("log(" << xl[i] << ") = " << gl[i] << ", want " << want);
    CHECK(same(gl[i], want));
  }
  const std::vector<E> xt{nan, inf, -inf, 0, -E(0), lim::denorm_min(), -lim::min(), E(1e-30)};
  const auto gs = apply<VT>(Sin{}, xt);
  const auto gc = apply<VT>(Cos{}, xt);
  for (std::size_t i = 0; i < xt.size(); ++i) {
    INFO("sin/cos(" << xt[i] << ") = " << gs[i] << ", " << gc[i]);
    CHECK(same(gs[i], std::sin(xt[i])));
    CHECK(same(gc[i], std::cos(xt[i])));
  }
  // Subnormal results of exp: the whole range, compared with the exact value.
  std::vector<E> xs;
  const bool f = sizeof(E) == 4;
  for (E x = f ? E(-103.97) : E(-745.13); x < (f ? E(-87.3) : E(-708.3)); x += E(0.01))
    xs.push_back(x);
  const auto gs2 = apply<VT>(Exp{}, xs);
  long double worst = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    CHECK(gs2[i] > 0);
    worst = std::max(worst, ulp_error<E>(gs2[i], std::exp((long double)xs[i])));
  }
  CHECK(worst <= 1.0L);
}

}  // namespace

TEST_CASE("simd_math exp float x16", "[simd_math]") {
  report<float>("vexp<f16>", sweep<f16>(Exp{}, exp_l,
                                        [](float x) { return std::exp(x); }, exp_inputs<float>()));
}
TEST_CASE("simd_math exp double x8", "[simd_math]") {
  report<double>("vexp<d8>", sweep<d8>(Exp{}, exp_l,
                                       [](double x) { return std::exp(x); }, exp_inputs<double>()));
}
TEST_CASE("simd_math log float x16", "[simd_math]") {
  report<float>("vlog<f16>", sweep<f16>(Log{}, log_l,
                                        [](float x) { return std::log(x); }, log_inputs<float>()));
}
TEST_CASE("simd_math log double x8", "[simd_math]") {
  report<double>("vlog<d8>", sweep<d8>(Log{}, log_l,
                                       [](double x) { return std::log(x); }, log_inputs<double>()));
}
TEST_CASE("simd_math sin/cos float x16", "[simd_math]") {
  const auto xs = trig_inputs<float>();
  report<float>("vsin<f16>", sweep<f16>(Sin{}, sin_l,
                                        [](float x) { return std::sin(x); }, xs));
  report<float>("vcos<f16>", sweep<f16>(Cos{}, cos_l,
                                        [](float x) { return std::cos(x); }, xs));
}
TEST_CASE("simd_math sin/cos double x8", "[simd_math]") {
  const auto xs = trig_inputs<double>();
  report<double>("vsin<d8>", sweep<d8>(Sin{}, sin_l,
                                       [](double x) { return std::sin(x); }, xs));
  report<double>("vcos<d8>", sweep<d8>(Cos{}, cos_l,
                                       [](double x) { return std::cos(x); }, xs));
}
TEST_CASE("simd_math special values", "[simd_math]") {
  check_specials<f16, float>();
  check_specials<d8, double>();
  check_specials<f8, float>();
  check_specials<d16, double>();
}
TEST_CASE("simd_math other pack widths agree with x16 / x8", "[simd_math]") {
  std::vector<float> xf;
  std::vector<double> xd;
  std::mt19937_64 g(4);
  append_uniform(xf, g, -100.0, 100.0, 4096);
  append_uniform(xd, g, -700.0, 700.0, 4096);
  auto eqf = [&](auto a, auto b) { return a == b; };
  CHECK(eqf(apply<f8>(Exp{}, xf), apply<f16>(Exp{}, xf)));
  CHECK(eqf(apply<f8>(Sin{}, xf), apply<f16>(Sin{}, xf)));
  CHECK(eqf(apply<d16>(Exp{}, xd), apply<d8>(Exp{}, xd)));
  CHECK(eqf(apply<d16>(Cos{}, xd), apply<d8>(Cos{}, xd)));
  for (auto& x : xf) x = std::fabs(x);
  for (auto& x : xd) x = std::fabs(x);
  CHECK(eqf(apply<f8>(Log{}, xf), apply<f16>(Log{}, xf)));
  CHECK(eqf(apply<d16>(Log{}, xd), apply<d8>(Log{}, xd)));
}
