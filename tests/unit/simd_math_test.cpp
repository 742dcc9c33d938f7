// Accuracy and special-value tests for kops::simd::detail::{vexp, vlog, vsin, vcos},
// the accurate vexp2 and the fast-policy vexp2_fast / vexp_fast.
// Reference: the long double libm functions (64-bit significand), so the measured
// error is against the (almost) exact value; the distance to std:: in the pack's own
// type is checked as well.
// Built with -march=native (AVX-512) the 64-byte packs (f16, d8) take the AVX-512
// paths of simd_math.hpp, and the "generic" test cases compare them with the
// generic code (vexp_generic, ...); the default build tests the generic code only.
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
struct Exp2 { template <class V> void operator()(const V& x, V& y) const { y = vexp2(x); } };
struct Exp2Fast { template <class V> void operator()(const V& x, V& y) const { y = vexp2_fast(x); } };
struct ExpFast { template <class V> void operator()(const V& x, V& y) const { y = vexp_fast(x); } };
struct ExpGen { template <class V> void operator()(const V& x, V& y) const { y = vexp_generic(x); } };
struct Exp2Gen { template <class V> void operator()(const V& x, V& y) const { y = vexp2_generic(x); } };
struct Exp2FastGen {
  template <class V> void operator()(const V& x, V& y) const { y = vexp2_fast_generic(x); }
};

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
#ifdef KOPS_SIMD_TEST_VERBOSE  // print the measured errors (e.g. for the docs)
  WARN(name << ": max ulp " << (double)s.max_ulp << " at x = " << s.worst_x
            << ", max distance to std:: " << (double)s.max_vs_std);
#endif
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
  // Packs wider than a register take other code paths (integer clamps, NaN patch);
  // results may differ by FMA contraction only.
  std::vector<float> xf;
  std::vector<double> xd;
  std::mt19937_64 g(4);
  append_uniform(xf, g, -100.0, 100.0, 4096);
  append_uniform(xd, g, -700.0, 700.0, 4096);
  xf.push_back(std::numeric_limits<float>::quiet_NaN());
  xd.push_back(std::numeric_limits<double>::quiet_NaN());
  auto maxdist = [](const auto& a, const auto& b) {
    long double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, ulp_distance(a[i], b[i]));
    return m;
  };
  CHECK(maxdist(apply<f8>(Exp{}, xf), apply<f16>(Exp{}, xf)) <= 1);
  CHECK(maxdist(apply<f8>(Sin{}, xf), apply<f16>(Sin{}, xf)) <= 1);
  CHECK(maxdist(apply<d16>(Exp{}, xd), apply<d8>(Exp{}, xd)) <= 1);
  CHECK(maxdist(apply<d16>(Cos{}, xd), apply<d8>(Cos{}, xd)) <= 1);
  for (auto& x : xf) x = std::fabs(x);
  for (auto& x : xd) x = std::fabs(x);
  CHECK(maxdist(apply<f8>(Log{}, xf), apply<f16>(Log{}, xf)) <= 1);
  CHECK(maxdist(apply<d16>(Log{}, xd), apply<d8>(Log{}, xd)) <= 1);
}

// ---------------------------------------------------------------------------
// exp2 (accurate), vexp2_fast / vexp_fast (fast policy), AVX-512 vs generic.

namespace {

auto exp2_l = [](long double x) { return std::exp2(x); };

template <class E>
std::vector<E> exp2_inputs() {
  using lim = std::numeric_limits<E>;
  std::mt19937_64 g(5);
  const bool f = sizeof(E) == 4;
  const double lo = f ? -151.0 : -1076.0, hi = f ? 129.0 : 1025.0;
  const double sub_hi = f ? -126.0 : -1022.0;  // below: subnormal results
  std::vector<E> v;
  append_uniform(v, g, lo, hi, 400000);
  append_bits<E>(v, g, lim::denorm_min(), E(hi), true, 300000);
  append_uniform(v, g, lo, sub_hi, 150000);
  append_uniform(v, g, hi - 3, hi, 50000);
  append_uniform(v, g, -1.0, 1.0, 100000);
  for (int k = int(lo); k <= int(hi); ++k) {  // integers, half-integers and neighbours
    for (E t : {E(k), E(k + 0.5)}) {
      v.push_back(t);
      v.push_back(std::nextafter(t, E(-2000)));
      v.push_back(std::nextafter(t, E(2000)));
    }
  }
  return v;
}

// Max relative error |got - ref| / ref over lanes whose exact result is at least
// `tiny` (a small normal number); smaller results must be within `tiny` absolutely
// (the generic fast path flushes results below 2^-125.5 / 2^-1021.5 to 0).
template <class VT, class F, class RF, class E>
long double max_rel_error(F f, RF ref, const std::vector<E>& xs, E& worst_x, long double tiny) {
  const std::vector<E> got = apply<VT>(f, xs);
  long double m = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const long double r = ref((long double)xs[i]);
    if (r > (long double)std::numeric_limits<E>::max()) {  // overflow: must give +inf
      if (!(got[i] > std::numeric_limits<E>::max())) m = INFINITY, worst_x = xs[i];
      continue;
    }
    if (r < tiny) {
      if (!(std::fabs(got[i] - r) <= tiny)) m = INFINITY, worst_x = xs[i];
      continue;
    }
    const long double e = std::fabs(got[i] - r) / r;
    if (!(e <= m)) m = e, worst_x = xs[i];
  }
#ifdef KOPS_SIMD_TEST_VERBOSE
  WARN("max rel err " << (double)m << " at " << worst_x);
#endif
  return m;
}

template <class VT, class F, class E>
void check_exp2_specials(F f, bool fast) {
  using lim = std::numeric_limits<E>;
  const E inf = lim::infinity(), nan = lim::quiet_NaN();
  const bool fl = sizeof(E) == 4;
  const std::vector<E> x{nan, -nan, inf, -inf, 0, -E(0), 1, -1, 10, E(0.5), lim::max(),
                         lim::lowest(), lim::denorm_min(), -lim::denorm_min(),
                         E(fl ? 128 : 1024), E(fl ? 200 : 2000), E(fl ? -151 : -1076),
                         E(fl ? -1000 : -1e4), E(fl ? 127.99f : 1023.99)};
  const std::vector<E> want{nan, nan, inf, 0, 1, 1, 2, E(0.5), 1024, E(std::sqrt(2.0L)),
                            inf, 0, 1, 1, inf, inf, 0, 0, E(std::exp2((long double)x[18]))};
  const auto got = apply<VT>(f, x);
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("2^" << x[i] << " = " << got[i] << ", want " << want[i]);
    if (i == 9 || i == 18) {  // not exact: within 1 ulp / the fast bound
      if (fast)
        CHECK(std::fabs(got[i] - want[i]) <= (fl ? 2e-7 : 3e-16) * want[i]);
      else
        CHECK(ulp_error<E>(got[i], std::exp2((long double)x[i])) <= 1.0L);
    } else {
      CHECK(same(got[i], want[i]));
    }
  }
}

}  // namespace

TEST_CASE("simd_math exp2 (accurate) float / double", "[simd_math]") {
  const auto xf = exp2_inputs<float>();
  const auto xd = exp2_inputs<double>();
  auto sf = [](float x) { return std::exp2(x); };
  auto sd = [](double x) { return std::exp2(x); };
  report<float>("vexp2<f16>", sweep<f16>(Exp2{}, exp2_l, sf, xf));
  report<float>("vexp2<f8>", sweep<f8>(Exp2{}, exp2_l, sf, xf));
  report<float>("vexp2_generic<f16>", sweep<f16>(Exp2Gen{}, exp2_l, sf, xf));
  report<double>("vexp2<d8>", sweep<d8>(Exp2{}, exp2_l, sd, xd));
  report<double>("vexp2<d16>", sweep<d16>(Exp2{}, exp2_l, sd, xd));
  report<double>("vexp2_generic<d8>", sweep<d8>(Exp2Gen{}, exp2_l, sd, xd));
  check_exp2_specials<f16, Exp2, float>(Exp2{}, false);
  check_exp2_specials<f8, Exp2, float>(Exp2{}, false);
  check_exp2_specials<d8, Exp2, double>(Exp2{}, false);
  check_exp2_specials<d16, Exp2, double>(Exp2{}, false);
}

TEST_CASE("simd_math exp generic path (ISA paths compared)", "[simd_math]") {
  // With AVX-512 vexp<f16> / vexp<d8> above are the intrinsic paths; the generic
  // code must hold the same bounds on the same packs.
  report<float>("vexp_generic<f16>", sweep<f16>(ExpGen{}, exp_l,
                                                [](float x) { return std::exp(x); }, exp_inputs<float>()));
  report<double>("vexp_generic<d8>", sweep<d8>(ExpGen{}, exp_l,
                                               [](double x) { return std::exp(x); }, exp_inputs<double>()));
}

// Documented in simd/exp.hpp (vexp2_fast): max relative error 1.9e-7 (float),
// 2.3e-16 (double) for normal results; vexp_fast adds |x| * 2^-24 (float) / |x| *
// 2^-53 (double) from the rounding of x log2 e (and of log2 e itself).
TEST_CASE("simd_math exp2_fast / exp_fast", "[simd_math]") {
  const float tf = std::ldexp(1.0f, -125);   // generic: flushed below 2^-125.5
  const double td = std::ldexp(1.0, -1021);
  std::vector<float> xf;
  std::vector<double> xd;
  std::mt19937_64 g(6);
  append_uniform(xf, g, -130.0, 130.0, 400000);
  append_uniform(xf, g, -1.0, 1.0, 200000);
  append_uniform(xd, g, -1030.0, 1030.0, 400000);
  append_uniform(xd, g, -1.0, 1.0, 200000);
  for (int k = -130; k <= 130; ++k)
    for (float t : {float(k), k + 0.5f, std::nextafter(k + 0.5f, 1e9f), std::nextafter(k + 0.5f, -1e9f)})
      xf.push_back(t);
  float wf = 0;
  double wd = 0;
  long double e;
  e = max_rel_error<f16>(Exp2Fast{}, exp2_l, xf, wf, tf);
  INFO("vexp2_fast<f16> max rel err " << (double)e << " at " << wf);
  CHECK(e <= 1.9e-7L);
  e = max_rel_error<f8>(Exp2Fast{}, exp2_l, xf, wf, tf);
  INFO("vexp2_fast<f8> max rel err " << (double)e << " at " << wf);
  CHECK(e <= 1.9e-7L);
  e = max_rel_error<f16>(Exp2FastGen{}, exp2_l, xf, wf, tf);
  INFO("vexp2_fast_generic<f16> max rel err " << (double)e << " at " << wf);
  CHECK(e <= 1.9e-7L);
  e = max_rel_error<d8>(Exp2Fast{}, exp2_l, xd, wd, td);
  INFO("vexp2_fast<d8> max rel err " << (double)e << " at " << wd);
  CHECK(e <= 2.3e-16L);
  e = max_rel_error<d16>(Exp2Fast{}, exp2_l, xd, wd, td);
  INFO("vexp2_fast<d16> max rel err " << (double)e << " at " << wd);
  CHECK(e <= 2.3e-16L);
  e = max_rel_error<d8>(Exp2FastGen{}, exp2_l, xd, wd, td);
  INFO("vexp2_fast_generic<d8> max rel err " << (double)e << " at " << wd);
  CHECK(e <= 2.3e-16L);
  check_exp2_specials<f16, Exp2Fast, float>(Exp2Fast{}, true);
  check_exp2_specials<f8, Exp2Fast, float>(Exp2Fast{}, true);
  check_exp2_specials<d8, Exp2Fast, double>(Exp2Fast{}, true);
  check_exp2_specials<d16, Exp2Fast, double>(Exp2Fast{}, true);

  // exp_fast: relative error <= bound(2^t) + |x| * 2^-24 * (1 + 1/2) (rounding of the
  // product and of log2 e), checked per input.
  auto check_exp_fast = [](auto vt, const auto& xs, long double b2, long double u) {
    using VT = decltype(vt);
    using E = std::remove_cvref_t<decltype(xs[0])>;
    const auto got = apply<VT>(ExpFast{}, xs);
    long double worst = 0;
    E wx = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const long double r = std::exp((long double)xs[i]);
      if (r < (long double)std::numeric_limits<E>::min() * 2 ||
          r > (long double)std::numeric_limits<E>::max() / 2)
        continue;
      const long double q = (std::fabs(got[i] - r) / r) / (b2 + 1.5L * u * std::fabs(xs[i]));
      if (!(q <= worst)) worst = q, wx = xs[i];
    }
    INFO("vexp_fast: max (rel err / bound) " << (double)worst << " at x = " << wx);
#ifdef KOPS_SIMD_TEST_VERBOSE
    WARN("vexp_fast<" << sizeof(VT) / sizeof(E) << " x " << sizeof(E) * 8
                      << " bit>: max (rel err / bound) " << (double)worst << " at x = " << wx);
#endif
    CHECK(worst <= 1.0L);
  };
  std::vector<float> ef;
  std::vector<double> ed;
  append_uniform(ef, g, -87.0, 88.0, 400000);
  append_uniform(ef, g, -2.0, 2.0, 100000);
  append_uniform(ed, g, -708.0, 709.0, 400000);
  append_uniform(ed, g, -2.0, 2.0, 100000);
  check_exp_fast(f16{}, ef, 1.9e-7L, 0x1p-24L);
  check_exp_fast(f8{}, ef, 1.9e-7L, 0x1p-24L);
  check_exp_fast(d8{}, ed, 2.3e-16L, 0x1p-53L);
  check_exp_fast(d16{}, ed, 2.3e-16L, 0x1p-53L);
  const std::vector<float> sx{std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, 0.0f, -0.0f, 100.0f, -200.0f};
  const std::vector<float> sw{std::numeric_limits<float>::quiet_NaN(), INFINITY, 0.0f, 1.0f, 1.0f, INFINITY, 0.0f};
  const auto sg = apply<f16>(ExpFast{}, sx);
  const auto sg8 = apply<f8>(ExpFast{}, sx);
  for (std::size_t i = 0; i < sx.size(); ++i) {
    INFO("exp_fast(" << sx[i] << ") = " << sg[i] << " / " << sg8[i]);
    CHECK(same(sg[i], sw[i]));
    CHECK(same(sg8[i], sw[i]));
  }
}

namespace {

// e^(x b) for a pack x and a scalar b (the accurate policy's exp of a scaled
// argument, one b per call): with AVX-512 the product x b is not rounded, so the
// result is within 1 ulp of the exact e^(x b) (measured 0.75 float, 0.99 double);
// other packs evaluate vexp(x * b), whose error grows with |x b| (the rounding of
// the product): within 1.5 + |x b| ulp of the exact value.
template <class VT>
void check_exp_scaled(const char* name) {
  using E = std::remove_cvref_t<decltype(VT{}[0])>;
  constexpr int L = int(sizeof(VT) / sizeof(E));
  constexpr bool wide_path = KOPS_SIMD_AVX512 && sizeof(VT) == 64;
  const bool f = sizeof(E) == 4;
  std::mt19937_64 g(17);
  std::uniform_real_distribution<double> ub(-12.0, 12.0), ux(-1.0, 1.0);
  long double worst = 0, worst_normal = 0, worst_excess = -1;
  E wx = 0, wb = 0;
  for (int t = 0; t < 3000; ++t) {
    // b over the scales users pass (-g, -1/(2 s^2), ...), x spanning the whole
    // range of results, subnormal ones included.
    const E b = E((ub(g) < 0 ? -1 : 1) * std::ldexp(1.0 + std::fabs(ux(g)), int(ub(g))));
    const long double lim = f ? 104.0L : 745.0L;
    VT x, bb, y;
    for (int l = 0; l < L; ++l) {
      x[l] = E(ux(g) * double(lim / std::fabs((long double)b)));
      bb[l] = b;
    }
    y = vexp_scaled(x, bb);
    for (int l = 0; l < L; ++l) {
      const long double xb = (long double)x[l] * (long double)b;
      const long double u = ulp_error<E>(y[l], std::exp(xb));
      if (!(u <= worst)) { worst = u; wx = x[l]; wb = b; }
      if (std::exp(xb) >= (long double)std::numeric_limits<E>::min()) worst_normal = std::max(worst_normal, u);
      worst_excess = std::max(worst_excess, u - (1.5L + std::fabs(xb)));
    }
  }
  INFO(name << ": max ulp vs the exact e^(x b) " << (double)worst << " at x = " << wx << ", b = " << wb
            << "; normal results " << (double)worst_normal);
#ifdef KOPS_SIMD_TEST_VERBOSE
  WARN(name << ": max ulp " << (double)worst << ", normal results " << (double)worst_normal);
#endif
  if (wide_path) {
    CHECK(worst <= 1.0L);
  } else {
    CHECK(worst_excess <= 0);
  }
  // A huge b (|b| log2 e overflows): the product is formed, as exp(x * b).
  {
    const E big = f ? E(3e38) : E(1e308);
    VT x, b;
    for (int l = 0; l < L; ++l) { x[l] = l % 2 ? E(3) / big : E(0); b[l] = big; }
    const VT y = vexp_scaled(x, b);
    INFO(name << ": exp(0 * " << big << ") = " << y[0] << ", exp(" << x[1] << " * " << big << ") = " << y[1]);
    CHECK(y[0] == 1);
    CHECK(ulp_error<E>(y[1], std::exp((long double)x[1] * (long double)big)) <= 1.5L + 3);  // x b = 3, rounded
  }
  // Special values, as e^(x * b) in IEEE arithmetic: 0 * inf is NaN.
  const E inf = std::numeric_limits<E>::infinity(), nan = std::numeric_limits<E>::quiet_NaN();
  const E xs[] = {0, -E(0), inf, -inf, nan, 1, 1, 0, 1e30f, -1e30f, 2, 3, 0, 1};
  const E bs[] = {-5, 3, -1, -1, 2, inf, -inf, inf, -1, -1, nan, 0, -inf, nan};
  const E want[] = {1, 1, 0, inf, nan, inf, 0, nan, 0, inf, nan, 1, nan, nan};
  for (std::size_t i = 0; i < std::size(xs); ++i) {
    VT x, b;
    for (int l = 0; l < L; ++l) { x[l] = xs[i]; b[l] = bs[i]; }
    const VT y = vexp_scaled(x, b);
    INFO(name << ": exp(" << xs[i] << " * " << bs[i] << ") = " << y[0] << ", want " << want[i]);
    for (int l = 0; l < L; ++l) CHECK((std::isnan(want[i]) ? std::isnan(y[l]) : y[l] == want[i]));
  }
}

}  // namespace

TEST_CASE("simd_math exp of a scaled argument (vexp_scaled)", "[simd_math]") {
  check_exp_scaled<f16>("vexp_scaled<f16>");
  check_exp_scaled<d8>("vexp_scaled<d8>");
  check_exp_scaled<f8>("vexp_scaled<f8>");
  check_exp_scaled<d16>("vexp_scaled<d16>");
}
