// exp and exp2 on the generic vector-extension code, any pack and target: vexp_generic,
// vexp2_generic, vexp2_fast_generic, and the 2^r polynomial exp2_poly (also used by
// the AVX-512 versions, exp_avx512.hpp).
#pragma once

#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/config.hpp>

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

// e^x, generic.  Reduction (Cody-Waite): n = round(x*log2 e), r = x - n*ln2_hi - n*ln2_lo,
// |r| <= ln2/2 (+ rounding slack), ln2_hi with trailing zeros so n*ln2_hi is exact.
// n comes from the round-to-nearest addition of 1.5*2^23 (1.5*2^52): its low bits
// are n, so no float<->int conversion is needed.
// float : e^r = 1 + r + r^2*P(r), P the degree-5 Cephes expf minimax polynomial
//         (degree 7 overall); x clamped to [-104, 89].
// double: e^r = 1 + r + r^2*(1/2! + r/3! + ... + r^11/13!) (Taylor, degree 13,
//         truncation < 5e-18 relative); x clamped to [-746, 710].
// Result p*2^n by scale_pow2 (overflow to +inf, subnormals rounded once).
// exp(+-0) = 1 exactly, exp(-inf) = 0, exp(+inf) = +inf, exp(NaN) = NaN
// (NaN flows through the arithmetic, or is patched from the bit pattern where the
// clamp may drop it: finite-math or packs wider than a register).
template <class VT>
KOPS_INLINE VT vexp_generic(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using IV = typename Tr::ivec;
  using U = typename Tr::uelem;
  using UV = typename Tr::uvec;
  constexpr bool f32 = sizeof(E) == 4;
  constexpr E lo = f32 ? E(-104) : E(-746), hi = f32 ? E(89) : E(710);
  constexpr E magic = f32 ? E(0x1.8p23) : E(0x1.8p52);
  const VT xc = clamp_keep_nan(x, lo, hi);
  const VT kd = xc * E(1.4426950408889634074) + magic;
  // [-150, 128] / [-1077, 1025] (any bits on NaN lanes: wrapping subtraction)
  const IV n = vbits<IV>(vbits<UV>(kd) - vbits<U>(magic));
  const VT nf = opaque(kd) - magic;
  VT r;
  VT p;
  if constexpr (f32) {
    r = opaque(xc - nf * E(0.693359375)) - nf * E(-2.12194440e-4);
    p = vsplat<VT>(E(1.9875691500e-4));
    p = p * r + E(1.3981999507e-3);
    p = p * r + E(8.3334519073e-3);
    p = p * r + E(4.1665795894e-2);
    p = p * r + E(1.6666665459e-1);
    p = p * r + E(5.0000001201e-1);
  } else {
    r = opaque(xc - nf * E(6.93147180369123816490e-01)) - nf * E(1.90821492927058770002e-10);
    p = vsplat<VT>(E(1.0 / 6227020800.0));  // 1/13!
    p = p * r + E(1.0 / 479001600.0);
    p = p * r + E(1.0 / 39916800.0);
    p = p * r + E(1.0 / 3628800.0);
    p = p * r + E(1.0 / 362880.0);
    p = p * r + E(1.0 / 40320.0);
    p = p * r + E(1.0 / 5040.0);
    p = p * r + E(1.0 / 720.0);
    p = p * r + E(1.0 / 120.0);
    p = p * r + E(1.0 / 24.0);
    p = p * r + E(1.0 / 6.0);
    p = p * r + E(0.5);
  }
  p = (p * (r * r) + r) + E(1);
  return nan_patch(x, scale_pow2(p, n));
}

// 2^r for |r| <= 1/2 (+ tiny slack), times S (a power of two: every coefficient is
// scaled exactly, so the result is exactly S times the S = 1 one); p(0) = S exactly.
// float, accurate: degree 6, minimax relative error 3.0e-9 with the float
//   coefficients (0.05 ulp); fast: degree 5, 9.3e-8 (0.78 ulp at 1).  (Fitted with
//   p(0) = 1 fixed by weighted least squares iterated to the minimax (Lawson), the
//   coefficients rounded to float one at a time, the rest refitted.)
// double: Taylor in r ln 2 to degree 13 (coefficients ln2^k / k!; truncation < 5e-18
//   relative), for both.
template <bool fast, int S = 1, class VT>
KOPS_INLINE VT exp2_poly(VT r) noexcept {
  using E = typename vec_traits<VT>::elem;
  constexpr E s = E(S);
  VT p;
  if constexpr (sizeof(E) == 4 && fast) {
    p = vsplat<VT>(s * 0x1.5bda52p-10f);
    p = p * r + s * 0x1.3ce8aep-7f;
    p = p * r + s * 0x1.c6b6d8p-5f;
    p = p * r + s * 0x1.ebf9c2p-3f;
    p = p * r + s * 0x1.62e42ap-1f;
  } else if constexpr (sizeof(E) == 4) {
    p = vsplat<VT>(s * 0x1.416b44p-13f);
    p = p * r + s * 0x1.5f0830p-10f;
    p = p * r + s * 0x1.3b2de0p-7f;
    p = p * r + s * 0x1.c6af7cp-5f;
    p = p * r + s * 0x1.ebfbdcp-3f;
    p = p * r + s * 0x1.62e430p-1f;
  } else {
    constexpr E coef[13] = {0.69314718055994530942,
                            0.24022650695910071233,
                            0.055504108664821579953,
                            0.009618129107628477162,
                            0.0013333558146428443423,
                            0.00015403530393381609954,
                            0.00001525273380405984028,
                            1.3215486790144309488e-6,
                            1.0178086009239699727e-7,
                            7.0549116208011233299e-9,
                            4.4455382718708114976e-10,
                            2.5678435993488205142e-11,
                            1.3691488853904128881e-12};
    p = vsplat<VT>(s * coef[12]);
    for (int k = 11; k >= 0; --k) p = p * r + s * coef[k];
  }
  return p * r + s;
}

// 2^t, accurate (generic): t clamped to [-151, 129] ([-1076, 1025]), n = round(t) by the
// 1.5*2^p addition, r = t - n exact, 2^r by exp2_poly<false>, p*2^n by scale_pow2.
// Measured (simd_math_test sweeps, subnormal results included): 0.83 ulp float,
// 0.85 ulp double with FMA contraction (-march=native); 1.05 / 1.13 ulp without FMA
// (x86-64 baseline).  2^(+-0) = 1, 2^-inf = 0, 2^+inf = +inf, NaN stays NaN.
template <class VT>
KOPS_INLINE VT vexp2_generic(VT t) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using IV = typename Tr::ivec;
  using U = typename Tr::uelem;
  using UV = typename Tr::uvec;
  constexpr bool f32 = sizeof(E) == 4;
  constexpr E lo = f32 ? E(-151) : E(-1076), hi = f32 ? E(129) : E(1025);
  constexpr E magic = f32 ? E(0x1.8p23) : E(0x1.8p52);
  const VT tc = clamp_keep_nan(t, lo, hi);
  const VT kd = tc + magic;
  const IV n = vbits<IV>(vbits<UV>(kd) - vbits<U>(magic));
  const VT r = tc - opaque(opaque(kd) - magic);  // exact
  return nan_patch(t, scale_pow2(exp2_poly<false>(r), n));
}

// 2^t, fast (generic): t clamped to [-126, 128] ([-1022, 1024]); n = round(t) read
// from the low bits of t + (1.5*2^23 + 126) (resp. 1.5*2^52 + 1022), which are
// n + 126 = the biased exponent of 2^(n-1); r = t - n; result (2 p(r)) * 2^(n-1),
// the polynomial coefficients doubled (exact), one multiplication (NaN * anything
// is NaN, so NaN stays NaN).  2^+inf = 2^128 = +inf; results below 2^-125.5
// (2^-1021.5) are flushed to +0 (n - 1 = -127 gives the factor +0), -inf gives +0.
// Accuracy: see vexp2_fast.
template <class VT>
KOPS_INLINE VT vexp2_fast_generic(VT t) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using UV = typename Tr::uvec;
  constexpr bool f32 = sizeof(E) == 4;
  constexpr int mant = f32 ? 23 : 52;
  constexpr E lo = f32 ? E(-126) : E(-1022), hi = f32 ? E(128) : E(1024);
  constexpr E magic = f32 ? E(0x1.8p23 + 126) : E(0x1.8p52 + 1022);
  const VT tc = clamp_keep_nan(t, lo, hi);
  const VT kd = tc + magic;
  const VT r = tc - opaque(opaque(kd) - magic);
  return nan_patch(t, exp2_poly<true, 2>(r) * vbits<VT>(vbits<UV>(kd) << mant));
}

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
