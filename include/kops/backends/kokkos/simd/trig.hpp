// sin and cos on packs: vsin, vcos (float packs evaluated in double).
#pragma once

#include <cmath>
#include <limits>

#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/config.hpp>

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

// Knuth two-sum: a + b = s + e exactly (barriers keep it under -ffast-math).
template <class V>
KOPS_INLINE V two_sum(V a, V b, V& e) noexcept {
  const V s = opaque(a + b);
  const V bb = opaque(s - a);
  e = opaque(a - opaque(s - bb)) + opaque(b - bb);
  return s;
}

// sin (odd = 0) or cos (odd = 1) of ax in [0, 2^20] on a double pack; the sign of the
// result is the quadrant sign only.  Reduction: n = round(ax*2/pi) (via + 1.5*2^52),
// r = ax - n*pi/2 with pi/2 = P1 + P2 + P3 (+ P4), P1..P3 of 33 bits (fdlibm pio2_1,
// pio2_2, pio2_3) so that each n*Pi is exact for n < 2^20 and ax - n*P1 is exact.
// for_float: r = (ax - n*P1) - n*P2 - n*P2t (error < 1e-26 absolute), kernels FreeBSD
//   k_sinf/k_cosf (degree 9 / 8, relative error < 2^-34 evaluated in double).
// double: the subtractions of n*P2, n*P3 are two-sums, so r = hi + lo with
//   |error| < 2^-100 relative even at the worst cancellations below 2^20; kernels
//   fdlibm __kernel_sin/__kernel_cos (degree 13 / 14) with the tail lo.
// Quadrant q = n + odd: q odd selects the cos kernel, q & 2 flips the sign.
template <bool for_float, class VD>
KOPS_INLINE VD sincos_reduced(VD ax, int odd) noexcept {
  using Tr = vec_traits<VD>;
  using IV = typename Tr::ivec;
  using UV = typename Tr::uvec;
  const VD kd = ax * 0.63661977236758134308 + 0x1.8p52;  // low bits: n = round(ax*2/pi)
  const VD nf = opaque(kd) - 0x1.8p52;
  const VD t = opaque(ax - nf * 1.57079632673412561417e+00);  // pio2_1, exact
  VD s, c;
  if constexpr (for_float) {
    const VD r = opaque(t - nf * 6.07710050630396597660e-11) -  // pio2_2
                 nf * 2.02226624879595063154e-21;                // pio2_2t
    const VD z = r * r, w = z * z, v = z * r;
    s = (r + v * (-0x15555554cbac77.0p-55 + z * 0x111110896efbb2.0p-59)) +
        v * w * (-0x1a00f9e2cae774.0p-65 + z * 0x16cd878c3b46a7.0p-71);
    c = ((1.0 + z * -0x1ffffffd0c5e81.0p-54) + w * 0x155553e1053a42.0p-57) +
        (w * z) * (-0x16c087e80f1e27.0p-62 + z * 0x199342e0ee5069.0p-68);
  } else {
    VD e2, e3;
    const VD h2 = two_sum(t, nf * -6.07710050630396597660e-11, e2);  // pio2_2
    const VD h3 = two_sum(h2, nf * -2.02226624871116645580e-21, e3);  // pio2_3
    const VD lo = (e2 + e3) - nf * 8.47842766036889956997e-32;       // pio2_3t
    const VD r = opaque(h3 + lo);
    const VD y = opaque(h3 - r) + lo;  // r + y = reduced argument
    const VD z = r * r, w = z * z, v = z * r;
    const VD ps = 8.33333333332248946124e-03 +
                  z * (-1.98412698298579493134e-04 +
                       z * (2.75573137070700676789e-06 +
                            z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
    s = r - ((z * (0.5 * y - v * ps) - y) - v * -1.66666666666666324348e-01);
    const VD pc = z * (4.16666666666666019037e-02 +
                       z * (-1.38888888888741095749e-03 + z * 2.48015872894767294178e-05)) +
                  w * w * (-2.75573143513906633035e-07 +
                           z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11));
    const VD hz = 0.5 * z;
    const VD one_hz = opaque(1.0 - hz);
    c = one_hz + (((1.0 - one_hz) - hz) + (z * pc - r * y));
  }
  const IV q = vbits<IV>(kd) + odd;  // kd in [1.5*2^52, 1.5*2^52 + 2^20]: no overflow
  const VD res = vblend(-(q & 1), c, s);
  return vbits<VD>(vbits<IV>(res) ^ vbits<IV>(vbits<UV>(q & 2) << 62));  // unsigned <<
}

template <class VT>
KOPS_INLINE VT vsincos_impl(VT x, int odd) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using IV = typename Tr::ivec;
  constexpr auto absmask = std::numeric_limits<typename Tr::ielem>::max();
  const IV ix = vbits<IV>(x);
  const IV iax = ix & absmask;
  const IV big = vlt_mask(vsplat<IV>(vbits<typename Tr::ielem>(E(0x1p20))), iax);  // inf, NaN
  const VT ax = vbits<VT>(iax & ~big);
  VT res;
  if constexpr (sizeof(E) == 4) {
    using VD = typename Tr::f64vec;
    res = __builtin_convertvector(
        sincos_reduced<true>(__builtin_convertvector(ax, VD), odd), VT);
  } else {
    res = sincos_reduced<false>(ax, odd);
  }
  if (odd == 0)  // sin is odd
    res = vbits<VT>(vbits<IV>(res) ^ (ix & std::numeric_limits<typename Tr::ielem>::min()));
  if (vany(big)) [[unlikely]] {
    for (int i = 0; i < Tr::lanes; ++i)
      if (big[i]) res[i] = odd ? std::cos(x[i]) : std::sin(x[i]);
  }
  return res;
}

// sin x / cos x: x = +-|x|, sin(-x) = -sin x, cos(-x) = cos x, the core above on |x|.
// Accurate (< 2 ulp) for |x| <= 2^20; lanes beyond (and inf/NaN) go to std::sin /
// std::cos in a whole-pack branch that is normally never taken.  float packs are
// evaluated in double (reduction and kernels) and rounded once at the end.
template <class VT>
KOPS_INLINE VT vsin(VT x) noexcept {
  return vsincos_impl(x, 0);
}
template <class VT>
KOPS_INLINE VT vcos(VT x) noexcept {
  return vsincos_impl(x, 1);
}

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
