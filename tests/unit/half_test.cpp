// 16-bit storage (core/half.hpp): the conversions, against references built
// independently of them (the 16-bit values enumerated and compared as
// doubles), every bit pattern where there are 2^16; then the backend-generic
// body of tests/common/half_body.hpp on the Kokkos CPU backend.
#include "test_support.hpp"

#include <kops/core/half.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

// (The sanitizer builds, tools/sanitize.sh, run the body in half only: the two
// types differ only in their conversions, which the cases below test in full.)
#if defined(KOPS_TEST_FEWER)
#define KOPS_TEST_CONFIGS_16 (kops_test::cfg<kops_test::kokkos_backend, kops::half>)
#else
#define KOPS_TEST_CONFIGS_16 \
  (kops_test::cfg<kops_test::kokkos_backend, kops::half>), (kops_test::cfg<kops_test::kokkos_backend, kops::bfloat16>)
#endif
#include "../common/half_body.hpp"

namespace {

static_assert(sizeof(kops::half) == 2 && alignof(kops::half) == 2);
static_assert(sizeof(kops::bfloat16) == 2 && alignof(kops::bfloat16) == 2);
static_assert(std::is_trivially_copyable_v<kops::half> && std::is_trivially_copyable_v<kops::bfloat16>);
static_assert(std::is_standard_layout_v<kops::half> && std::is_standard_layout_v<kops::bfloat16>);
static_assert(std::is_same_v<kops::detail::compute_t<kops::half>, float>);
static_assert(std::is_same_v<kops::detail::compute_t<kops::bfloat16>, float>);
static_assert(std::is_same_v<kops::detail::compute_t<double>, double>);
// Built with -march=native too (kops_native_tests): there the conversions of
// kops::half are F16C's, elsewhere the portable ones; this file tests both.
#if defined(__F16C__)
static_assert(KOPS_HALF_F16C == 1, "an F16C target converts kops::half with F16C");
#else
static_assert(KOPS_HALF_F16C == 0);
#endif

// The value of 16-bit pattern h of a format with E exponent and Mb mantissa
// bits, from the definition (sign, biased exponent, subnormals), as a double.
double decode(std::uint16_t h, int E, int Mb) {
  const int bias = (1 << (E - 1)) - 1;
  const int e = (h >> Mb) & ((1 << E) - 1);
  const double m = double(h & ((1u << Mb) - 1));
  const double sign = (h >> 15) ? -1.0 : 1.0;
  if (e == (1 << E) - 1) return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::nan("");
  if (e == 0) return sign * std::ldexp(m, 1 - bias - Mb);
  return sign * std::ldexp(1.0 + std::ldexp(m, -Mb), e - bias);
}

// Round-to-nearest-even of x into the format, by search over its finite
// positive values (sorted as their patterns are): the reference.
struct format {
  int E, Mb;
  std::vector<double> pos;  // pos[p] = value of pattern p, p < the Inf pattern
  format(int e, int mb) : E(e), Mb(mb) {
    const std::uint16_t inf = std::uint16_t(((1u << E) - 1) << Mb);
    for (std::uint32_t p = 0; p < inf; ++p) pos.push_back(decode(std::uint16_t(p), E, Mb));
  }
  std::uint16_t round(double x) const {
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::abs(x);
    const std::uint16_t inf = std::uint16_t(pos.size());
    const double top = pos.back(), ulp_top = top - pos[pos.size() - 2];
    if (a >= top + ulp_top / 2) return sign | inf;  // the tie goes to Inf (the max's mantissa is odd)
    if (a >= top) return sign | std::uint16_t(pos.size() - 1);
    const auto it = std::lower_bound(pos.begin(), pos.end(), a);
    const std::size_t hi = std::size_t(it - pos.begin());
    if (hi < pos.size() && pos[hi] == a) return sign | std::uint16_t(hi);
    const std::size_t lo = hi - 1;
    const double dl = a - pos[lo], dh = pos[hi] - a;
    if (dl < dh) return sign | std::uint16_t(lo);
    if (dh < dl) return sign | std::uint16_t(hi);
    return sign | std::uint16_t(lo % 2 == 0 ? lo : hi);
  }
};

float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

template <class S>
void check_format(const format& fmt) {
  // Every pattern: widening is the definition; narrowing back is the identity
  // (NaNs: a NaN of the same sign).
  for (std::uint32_t p = 0; p < 65536; ++p) {
    const S h = S::from_bits(std::uint16_t(p));
    const double want = decode(std::uint16_t(p), fmt.E, fmt.Mb);
    const float f = h;
    if (std::isnan(want)) {
      CHECK(std::isnan(f));
      const S back(f);
      CHECK(std::isnan(float(back)));
      CHECK((back.bits() >> 15) == (p >> 15));
      continue;
    }
    CHECK(double(f) == want);
    CHECK(S(f).bits() == std::uint16_t(p));
    CHECK(S(double(f)).bits() == std::uint16_t(p));
  }
  // Midpoints between neighbours (exact in float: at most 12 significant
  // bits) go to the even neighbour; one float ulp either side, to the nearer.
  for (std::size_t p = 0; p + 1 < fmt.pos.size(); ++p) {
    const double mid = (fmt.pos[p] + fmt.pos[p + 1]) / 2;
    const float fm = float(mid);
    REQUIRE(double(fm) == mid);
    const std::uint16_t even = std::uint16_t(p % 2 == 0 ? p : p + 1);
    CHECK(S(fm).bits() == even);
    CHECK(S(-fm).bits() == (0x8000 | even));
    CHECK(S(std::nextafter(fm, 0.0f)).bits() == std::uint16_t(p));
    CHECK(S(std::nextafter(fm, std::numeric_limits<float>::infinity())).bits() == std::uint16_t(p + 1));
    // A double just past the midpoint rounds up: once, not through float
    // (which would land on the midpoint and go to the even neighbour).
    CHECK(S(mid + mid * 0x1p-40).bits() == std::uint16_t(p + 1));
    CHECK(S(mid - mid * 0x1p-40).bits() == std::uint16_t(p));
  }
  // Random float patterns against the reference (finite, Inf, NaN).
  std::mt19937 rng(7);
  for (int n = 0; n < 400000; ++n) {
    const float f = bits_float(rng());
    if (std::isnan(f)) {
      CHECK(std::isnan(float(S(f))));
      continue;
    }
    const std::uint16_t want = fmt.round(double(f));
    INFO("float " << f);
    CHECK(S(f).bits() == want);
    CHECK(S(double(f)).bits() == want);
  }
  // The software path of the same rounding (the one without F16C / device code).
  for (int n = 0; n < 400000; ++n) {
    const float f = bits_float(rng());
    if (!std::isnan(f)) CHECK((kops::detail::round_to_16<std::is_same_v<S, kops::half> ? 5 : 8,
                                                         std::is_same_v<S, kops::half> ? 10 : 7>(double(f))) ==
                              fmt.round(double(f)));
  }
}

} // namespace

TEST_CASE("16-bit types: kops::half conversions, every pattern and every rounding boundary", "[half]") {
  const format fmt(5, 10);
  CHECK(fmt.pos.back() == 65504.0);
  check_format<kops::half>(fmt);
  // Named values.
  CHECK(kops::half(1.0f).bits() == 0x3c00);
  CHECK(kops::half(65504.0f).bits() == 0x7bff);
  CHECK(kops::half(65520.0f).bits() == 0x7c00);             // the tie past the max goes to Inf
  CHECK(kops::half(65519.996f).bits() == 0x7bff);
  CHECK(kops::half(0x1p-24f).bits() == 0x0001);             // the smallest subnormal
  CHECK(kops::half(0x1p-25f).bits() == 0x0000);             // its half: the tie to even (0)
  CHECK(kops::half(0x1.000002p-25f).bits() == 0x0001);
  CHECK(kops::half(-0.0f).bits() == 0x8000);
  CHECK(kops::half(std::numeric_limits<float>::infinity()).bits() == 0x7c00);
  CHECK(kops::half(-std::numeric_limits<double>::infinity()).bits() == 0xfc00);
  CHECK(kops::half(1e300).bits() == 0x7c00);
  CHECK(kops::half(1e-300).bits() == 0x0000);
  CHECK(kops::half(3).bits() == 0x4200);                    // integers, through double
  CHECK((kops::half(std::nanf("")).bits() & 0x7e00) == 0x7e00);  // a quiet NaN
}

TEST_CASE("16-bit types: kops::bfloat16 conversions, every pattern and every rounding boundary", "[half]") {
  const format fmt(8, 7);
  check_format<kops::bfloat16>(fmt);
  CHECK(kops::bfloat16(1.0f).bits() == 0x3f80);
  CHECK(kops::bfloat16(std::numeric_limits<float>::max()).bits() == 0x7f80);  // rounds past the max: Inf
  CHECK(kops::bfloat16(0x1p-133f).bits() == 0x0001);                          // the smallest subnormal
  CHECK(kops::bfloat16(-std::numeric_limits<float>::infinity()).bits() == 0xff80);
  CHECK((kops::bfloat16(std::nanf("")).bits() & 0x7fc0) == 0x7fc0);
  // A NaN whose low bits would carry into the exponent stays a NaN.
  CHECK(std::isnan(float(kops::bfloat16(bits_float(0x7fffffffu)))));
  CHECK(std::isnan(float(kops::bfloat16(bits_float(0x7f80ffffu)))));
}
