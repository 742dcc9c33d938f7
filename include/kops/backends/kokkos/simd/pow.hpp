// a^b on float packs with the C pow rules: vpow (exp and log evaluated in double).
#pragma once

#include <limits>

#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/backends/kokkos/simd/exp.hpp>
#include <kops/backends/kokkos/simd/log.hpp>
#include <kops/config.hpp>

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

// All-ones where the integer lanes x and y are equal (callers keep x - y and y - x
// from overflowing, e.g. both non-negative).
template <class IV>
KOPS_INLINE IV veq_mask(IV x, IV y) noexcept {
  return ~(vlt_mask(x, y) | vlt_mask(y, x));
}

// a^b on a float pack, with the C pow rules.  The core is |a|^b = exp(b log|a|)
// evaluated in double (vlog, vexp on the double pack of the same lanes): the
// argument's rounding error, <= 745 * 2^-53, is far below a float ulp, so the
// result is rounded once (nearly always correctly).  The rest is decided on the
// bits: b is an integer when |b| >= 2^24 (inf counted as even, as C does) or when it
// converts to an int32 and back unchanged, odd from that int's low bit; then
//   sign bit of a set (-0, -inf, -NaN too) and b odd   -> the result negated;
//   a < 0 finite and non-zero, b not an integer        -> NaN;
//   b = +-0, a = +1, or |a| = 1 and b = +-inf          -> 1 (NaN operands included).
// Everything else (0^-b = inf, inf^b, NaN) comes out of exp / log.
template <class VT>
KOPS_INLINE VT vpow(VT a, VT b) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  using VD = typename Tr::f64vec;
  static_assert(sizeof(E) == 4, "vpow: float packs only (double packs use libm pow lane by lane)");
  constexpr I abs_mask = std::numeric_limits<I>::max(), sign_bit = std::numeric_limits<I>::min();
  constexpr I one_bits = 0x3f800000, inf_bits = 0x7f800000, int_limit = 0x4b800000;  // 1, inf, 2^24
  const IV ia = vbits<IV>(a), ib = vbits<IV>(b);
  const IV aa = ia & abs_mask, ab = ib & abs_mask;
  const VD core = vexp(__builtin_convertvector(b, VD) * vlog(__builtin_convertvector(vbits<VT>(aa), VD)));
  IV r = vbits<IV>(__builtin_convertvector(core, VT));
  // b's integer part, for |b| < 2^24 (other lanes converted as 0: no out-of-range conversion).
  const IV small_b = vlt_mask(ab, vsplat<IV>(int_limit));
  const IV bi = __builtin_convertvector(vbits<VT>(ib & small_b), IV);
  const IV b_int = ~small_b | veq_mask(vbits<IV>(__builtin_convertvector(bi, VT)) & abs_mask, ab);
  const IV b_odd = small_b & b_int & -(bi & 1);
  const IV a_neg = ia >> (8 * sizeof(I) - 1);
  r ^= a_neg & b_odd & sign_bit;
  const IV a_finite_nonzero = vlt_mask(IV{}, aa) & vlt_mask(aa, vsplat<IV>(inf_bits));
  r = vblend(a_neg & ~b_int & a_finite_nonzero, vsplat<IV>(I(0x7fc00000)), r);
  const IV a_one = veq_mask(aa, vsplat<IV>(one_bits));
  const IV ones = veq_mask(ab, IV{}) | (a_one & ~a_neg) | (a_one & veq_mask(ab, vsplat<IV>(inf_bits)));
  return vbits<VT>(vblend(ones, vsplat<IV>(one_bits), r));
}

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
