// 16-bit storage types: kops::half (IEEE 754 binary16) and kops::bfloat16
// (the upper half of a binary32). They only store: a call whose arguments are
// 16-bit evaluates and accumulates in float (the compute type, compute_t),
// reads each input once per use with an exact widening, and writes its output
// either in float or, rounded once at the end, in the 16-bit type.
//
//   kops::half h(0.1f);          // rounded to nearest, ties to even (RNE)
//   float f = h;                 // exact
//   kops::half::from_bits(0x3c00), h.bits()
//
// Layout: one std::uint16_t, trivially copyable, sizeof 2, alignof 2, the
// same bits as CUDA's __half / __nv_bfloat16 (a .cu file may pass arrays of
// those to kops::cuda::eval: detail/storage.hpp). Conversions from float and
// double round once to nearest-even (a double is not rounded to float first),
// overflow to +-Inf, underflow through the subnormals to +-0, keep +-Inf and
// NaN (quiet; on the host with its sign and upper payload bits, in device code
// as the cvt instruction gives it, which may be the canonical NaN). Host code uses F16C for
// half where the target has it (-mf16c, implied by -march=native on x86 since
// 2012); device code the PTX cvt instructions (bfloat16 from float: sm_80 on).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <kops/config.hpp>

namespace kops {

namespace detail {

// The bits of x (finite or not) rounded once to nearest-even in a binary
// format of E exponent and Mb stored mantissa bits (half: 5, 10; bfloat16: 8, 7).
template <int E, int Mb>
KOPS_HD inline std::uint16_t round_to_16(double x) {
  std::uint64_t b = 0;
#if defined(__CUDA_ARCH__)
  b = std::uint64_t(__double_as_longlong(x));
#else
  b = __builtin_bit_cast(std::uint64_t, x);
#endif
  const std::uint16_t sign = std::uint16_t((b >> 63) << 15);
  const std::uint64_t a = b & 0x7fffffffffffffffull;
  constexpr std::uint16_t inf = std::uint16_t(((1u << E) - 1) << Mb);
  if (a >= 0x7ff0000000000000ull) {
    if (a == 0x7ff0000000000000ull) return sign | inf;
    // NaN: quiet, with the payload's upper bits.
    return std::uint16_t(sign | inf | (1u << (Mb - 1)) | std::uint16_t((a >> (52 - Mb)) & ((1u << Mb) - 1)));
  }
  constexpr int bias = (1 << (E - 1)) - 1, emin = 1 - bias;
  const int e = int(a >> 52) - 1023;  // double subnormals (e = -1023) round to +-0 in both formats
  const std::uint64_t sig = (a & 0xfffffffffffffull) | (1ull << 52);  // |x| = sig 2^(e - 52)
  const int et = e < emin ? emin : e;                                 // result quantum: 2^(et - Mb)
  const int shift = 52 - Mb + (et - e);
  if (shift > 62) return sign;
  std::uint64_t q = sig >> shift;
  const std::uint64_t rem = sig & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1))) ++q;
  // Normal: q in [2^Mb, 2^(Mb+1)] (a carry moves to the next exponent by
  // itself); subnormal (et = emin, q < 2^Mb): the exponent field is 0.
  const std::uint64_t r = (std::uint64_t(et + bias - 1) << Mb) + q;
  return r >= inf ? std::uint16_t(sign | inf) : std::uint16_t(sign | r);
}

// The float a binary16's bits denote (exact).
KOPS_HD inline float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  std::uint32_t r = 0;
  if (e == 0x1f) {
    r = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    r = sign | ((e + 112) << 23) | (m << 13);
  } else if (m == 0) {
    r = sign;
  } else {  // subnormal: m 2^-24, normalised
    int s = 0;
    std::uint32_t mm = m;
    while ((mm & 0x400u) == 0) {
      mm <<= 1;
      ++s;
    }
    r = sign | (std::uint32_t(113 - s) << 23) | ((mm & 0x3ffu) << 13);
  }
#if defined(__CUDA_ARCH__)
  return __uint_as_float(r);
#else
  return __builtin_bit_cast(float, r);
#endif
}

#if defined(__F16C__) && !KOPS_DEVICE_COMPILER
typedef float f16c_v4sf __attribute__((vector_size(16)));
typedef short f16c_v8hi __attribute__((vector_size(16)));
#define KOPS_HALF_F16C 1
#else
#define KOPS_HALF_F16C 0
#endif

KOPS_HD KOPS_INLINE std::uint16_t float_to_half_bits(float f) {
#if defined(__CUDA_ARCH__)
  unsigned short r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
#elif KOPS_HALF_F16C
  const f16c_v8hi v = __builtin_ia32_vcvtps2ph(f16c_v4sf{f, 0, 0, 0}, 0);  // imm 0: nearest-even
  return std::uint16_t(v[0]);
#else
  return round_to_16<5, 10>(double(f));  // float -> double is exact: one rounding
#endif
}

KOPS_HD KOPS_INLINE float half_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
  return r;
#elif KOPS_HALF_F16C
  const f16c_v4sf v = __builtin_ia32_vcvtph2ps(f16c_v8hi{short(h), 0, 0, 0, 0, 0, 0, 0});
  return v[0];
#else
  return half_bits_to_float(h);
#endif
}

KOPS_HD KOPS_INLINE std::uint16_t float_to_bfloat16_bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
#else
  // bfloat16 keeps float's exponent range: rounding the low 16 bits away to
  // nearest-even is the whole conversion (subnormals included); a NaN is
  // made quiet instead of being rounded (it could carry into Inf).
  std::uint32_t u = 0;
#if defined(__CUDA_ARCH__)
  u = __float_as_uint(f);
#else
  u = __builtin_bit_cast(std::uint32_t, f);
#endif
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);
  return std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
}

KOPS_HD KOPS_INLINE float bfloat16_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(std::uint32_t(h) << 16);
#else
  return __builtin_bit_cast(float, std::uint32_t(h) << 16);
#endif
}

} // namespace detail

/// A 16-bit floating-point storage type of E exponent and Mb mantissa bits
/// (file comment): kops::half is binary16<5, 10>, kops::bfloat16 binary16<8, 7>.
template <int E, int Mb>
struct binary16 {
  std::uint16_t x;  ///< the bits (public: the layout is the contract)

  binary16() = default;
  /// Rounded to nearest-even (file comment).
  KOPS_HD KOPS_INLINE binary16(float f) : x(from_float(f)) {}
  /// Rounded once to nearest-even (not through float).
  KOPS_HD KOPS_INLINE binary16(double d) : x(detail::round_to_16<E, Mb>(d)) {}
  /// Integers and the other arithmetic types: through double.
  template <class U>
    requires(std::is_arithmetic_v<U> && !std::is_same_v<U, float> && !std::is_same_v<U, double>)
  KOPS_HD KOPS_INLINE binary16(U v) : binary16(double(v)) {}

  /// Exact.
  KOPS_HD KOPS_INLINE operator float() const {
    if constexpr (E == 5) return detail::half_to_float(x);
    else return detail::bfloat16_to_float(x);
  }

  /// The value whose bits are b.
  KOPS_HD static constexpr binary16 from_bits(std::uint16_t b) {
    binary16 h{};
    h.x = b;
    return h;
  }
  /// The bits.
  KOPS_HD constexpr std::uint16_t bits() const { return x; }

private:
  KOPS_HD KOPS_INLINE static std::uint16_t from_float(float f) {
    if constexpr (E == 5) return detail::float_to_half_bits(f);
    else return detail::float_to_bfloat16_bits(f);
  }
};

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits; largest finite
/// 65504, smallest normal 2^-14, unit roundoff 2^-11.
using half = binary16<5, 10>;
/// bfloat16: 1 sign, 8 exponent, 7 mantissa bits; float's range, unit
/// roundoff 2^-8.
using bfloat16 = binary16<8, 7>;

static_assert(sizeof(half) == 2 && alignof(half) == 2 && std::is_trivially_copyable_v<half> &&
              std::is_standard_layout_v<half>);
static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2 && std::is_trivially_copyable_v<bfloat16> &&
              std::is_standard_layout_v<bfloat16>);

namespace detail {
// The 16-bit storage types, and the type a call on them computes in.
template <class T> inline constexpr bool is_16bit_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <class T> struct compute_type { using type = T; };
template <> struct compute_type<half> { using type = float; };
template <> struct compute_type<bfloat16> { using type = float; };
template <class T> using compute_t = typename compute_type<T>::type;
} // namespace detail

} // namespace kops
