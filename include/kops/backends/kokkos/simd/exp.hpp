// e^x, e^(x b), 2^t (accurate and fast) on packs: vexp, vexp_scaled, vexp2, vexp2_fast,
// vexp_fast, each taking the ISA path where there is one, else the generic code.
//
// ISA fast paths: with AVX-512F (KOPS_SIMD_AVX512 = 1), packs of exactly one
// 64-byte register (16 floats, 8 doubles) take intrinsic versions of vexp, vexp2
// and vexp2_fast (namespace avx512, exp_avx512.hpp): rounding by vreduce (AVX-512DQ; else
// vrndscale), p*2^n by vscalef (overflow, underflow and subnormal results in one
// correctly rounded instruction), special lanes without clamps where DQ allows
// (else vmin/vmax clamps).  Every other pack and target (AVX2, SSE2, aarch64, ...)
// uses the generic vector-extension code, also callable as vexp_generic /
// vexp2_generic / vexp2_fast_generic (the tests compare both).
#pragma once

#include <type_traits>

#include <kops/backends/kokkos/simd/avx512.hpp>
#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/backends/kokkos/simd/exp_avx512.hpp>
#include <kops/backends/kokkos/simd/exp_generic.hpp>
#include <kops/config.hpp>

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

// e^x: ISA path where there is one, else vexp_generic.  Measured max error against
// the exact value (simd_math_test sweeps, subnormal results included):
//   AVX-512 path  0.76 ulp float (0.52 for normal results), 0.91 ulp double;
//   generic       1.00 / 0.97 ulp with FMA contraction, 0.98 / 0.95 ulp without.
// Special values identical on both paths: exp(+-0) = 1, exp(-inf) = +0, exp(+inf) =
// +inf, overflow to +inf, NaN stays NaN.
template <class VT>
KOPS_INLINE VT vexp(VT x) noexcept {
  using R = avx512_reg<VT>;
  if constexpr (!std::is_void_v<R>) {
#if KOPS_SIMD_AVX512
    return vbits<VT>(avx512::exp(vbits<R>(x)));
#endif
  } else {
    return vexp_generic(x);
  }
}

// e^(x b), accurate, for the exp of a scaled argument (the CPU backend's rewrite of
// exp(a b), b invariant: exp_op::scaled_form in ops/exp.hpp, lowering/lower.hpp).  AVX-512: x b is not
// rounded before the exponential (avx512::exp_scaled), so the result is within
// an ulp of the exact e^(x b) (measured 0.75 float, 0.99 double; 2^-100 <= |b| <
// 2^120 in float) -- closer than e^(fl(x b)), which is off by up to |x b| 2^-24
// relative.  Other packs: vexp(x * b).  Special values as
// vexp(x * b): 0 * inf gives NaN.
template <class VT>
KOPS_INLINE VT vexp_scaled(VT x, VT b) noexcept {
  using R = avx512_reg<VT>;
  if constexpr (!std::is_void_v<R>) {
#if KOPS_SIMD_AVX512
    return vbits<VT>(avx512::exp_scaled(vbits<R>(x), vbits<R>(b)));
#endif
  } else {
    return vexp(x * b);
  }
}

// 2^t, accurate: see vexp2_generic (AVX-512: the same polynomial, vreduce/vscalef, and
// the same results: 0.83 ulp float, 0.85 ulp double).
template <class VT>
KOPS_INLINE VT vexp2(VT t) noexcept {
  using R = avx512_reg<VT>;
  if constexpr (!std::is_void_v<R>) {
#if KOPS_SIMD_AVX512
    return vbits<VT>(avx512::exp2<false>(vbits<R>(t)));
#endif
  } else {
    return vexp2_generic(t);
  }
}

// 2^t, fast (the fast precision policy): t = n + r, n = round-to-nearest(t)
// (AVX-512: r = vreduce(t), n = t - r -- vrndscale without DQ --; elsewhere the
// 1.5*2^p addition), |r| <= 1/2, 2^r by a
// polynomial with p(0) = 1 exactly -- float: degree-5 minimax for the relative error
// (9.3e-8 with its float coefficients); double: degree-13 Taylor --, then 2^n by
// vscalef (AVX-512) or by one multiplication with 2^(n-1) built from the bits of the
// rounding sum (generic, see vexp2_fast_generic).
// Measured max relative error against the exact 2^t (simd_math_test, t in
// [-130, 130], results >= 2^-125 / 2^-1021):
//   float  1.51e-7 with FMA (AVX-512 and generic, -march=native), 1.72e-7 without FMA;
//   double 1.33e-16 with FMA, 1.74e-16 without.
// Documented bound: 1.9e-7 (float), 2.3e-16 (double).
// Special values: NaN stays NaN, +inf -> +inf, -inf -> +0, 2^0 = 1 exactly,
// overflow gives +inf.  Subnormal results: AVX-512 rounds p * 2^n once (vscalef);
// generic flushes results below 2^-125.5 (2^-1021.5) to +0.  AVX-512 (DQ): 8
// instructions (vreduce, vsub, 5 FMA, vscalef), no clamp.
template <class VT>
KOPS_INLINE VT vexp2_fast(VT t) noexcept {
  using R = avx512_reg<VT>;
  if constexpr (!std::is_void_v<R>) {
#if KOPS_SIMD_AVX512
    return vbits<VT>(avx512::exp2<true>(vbits<R>(t)));
#endif
  } else {
    return vexp2_fast_generic(t);
  }
}

// e^x, fast: vexp2_fast(x * log2 e).  The roundings of log2 e and of x log2 e add a
// relative error below 1.5 |x| 2^-24 (float; |x| 9e-8) / 1.5 |x| 2^-53 (double) to
// vexp2_fast's bound (simd_math_test checks the sum; measured up to 0.8 of it).
template <class VT>
KOPS_INLINE VT vexp_fast(VT x) noexcept {
  using E = typename vec_traits<VT>::elem;
  return vexp2_fast(x * E(1.4426950408889634074));
}

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
