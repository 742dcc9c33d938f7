// exp / exp2 on one AVX-512 register (namespace avx512): the table-driven exp2_dd,
// exp, exp_scaled and exp2, which vexp / vexp_scaled / vexp2 / vexp2_fast (exp.hpp)
// dispatch to.
#pragma once

#include <cstdint>
#include <type_traits>

#include <kops/backends/kokkos/simd/avx512.hpp>
#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/backends/kokkos/simd/exp_generic.hpp>
#include <kops/backends/kokkos/simd/x86.hpp>
#include <kops/config.hpp>

namespace kops::simd::detail {

#if KOPS_SIMD_AVX512
// One-register AVX-512 versions (see exp.hpp).
namespace avx512 {

// 2^(x m) for a multiplier m = mhi + mlo held as two floats/doubles (|mlo| <= half an
// ulp of mhi), x m never rounded: e^x is exp2_dd(x, L_hi, L_lo) with L_hi + L_lo =
// log2 e, and e^(x b) for an invariant b (the accurate policy's exp of a scaled
// argument, vexp_scaled) is exp2_dd(x, b L_hi, the rest of b log2 e), so that the
// product b x is not rounded before the exponential either.
//
// float: a 32-entry table.  u = x mhi rounded; v = u + 1.5*2^18 rounds u to k, a
// multiple of 1/32 (exact for |u| < 2^17), whose 32nds modulo 32, j, are the low five
// bits of v; r = (x mhi - k) + x mlo (the first term rounded once by an FMA: |r| <=
// 1/64, absolute error 2^-31); 2^(x m) = 2^floor(k) * 2^(j/32) * 2^r with 2^(j/32) =
// T_hi[j] + T_lo[j] (two vpermt2ps on tables held in four registers) and 2^r = 1 + q,
// q by a degree-3 polynomial (truncation 6e-10 relative); result T_hi + (T_hi q + T_lo)
// (one FMA, one addition: ~0.5 ulp) scaled by vscalef, which takes floor(k) itself.
// Per lane: 7 multiply-class operations (3 for the reduction, 3 for q, 1 FMA), 3
// additions, 2 permutes, vrange, vscalef -- against 9 multiply-class for the
// degree-6 polynomial on [-1/2, 1/2] that this replaced; measured 0.75 ulp (the
// subnormal results; normal ones 0.52), was 0.87.
// double: u = x mhi rounded, e = (x mhi - u) + x mlo (one FMA each), u = n + f
// (split_nearest), 2^(f + e) by the degree-13 polynomial, vscalef(., n).
// Special lanes, no clamp on the critical path with AVX-512DQ: the reduced argument
// (r, e) is clamped by vrange (|.| <= bound, sign kept; a NaN gives the bound, as
// IEEE minNum), so +-inf and huge |x m| (where r is meaningless: inf - inf, or the
// rounding error of a huge u) give vscalef(~1, +-huge) = +inf / +0, and a NaN x or
// m (or 0 * inf) gives NaN through u and k.  Without DQ: vmax/vmin with r as the
// first operand (a NaN r gives the bound), and for double u clamped to +-2^11 first.
template <class V>
KOPS_INLINE V range_small(V r, typename vec_traits<V>::elem bound) noexcept {
#if defined(__AVX512DQ__)
  if constexpr (sizeof(typename vec_traits<V>::elem) == 4) {
    return _mm512_mask_range_ps(r, 0xffff, r, vsplat<V>(bound), 0x2);  // min |.|, sign of r
  } else {
    return _mm512_mask_range_pd(r, 0xff, r, vsplat<V>(bound), 0x2);
  }
#else
  // On the bits, so that no compiler reasoning about NaN (finite-math) applies: the
  // magnitude's bits, unsigned, capped at the bound's (NaN and inf are above it),
  // the sign put back.
  using U = std::conditional_t<sizeof(typename vec_traits<V>::elem) == 4, std::uint32_t, std::uint64_t>;
  typedef U UV __attribute__((vector_size(64)));
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  const UV bits = vbits<UV>(r), cap = vbits<UV>(vsplat<V>(bound));
  const UV mag = bits & ~sign;
  UV capped;
  if constexpr (sizeof(U) == 4) {
    capped = UV(_mm512_mask_min_epu32(__m512i(mag), 0xffff, __m512i(mag), __m512i(cap)));
  } else {
    capped = UV(_mm512_mask_min_epu64(__m512i(mag), 0xff, __m512i(mag), __m512i(cap)));
  }
  return vbits<V>(capped | (bits & sign));
#endif
}

KOPS_INLINE v16sf exp2_dd(v16sf x, v16sf mhi, v16sf mlo) noexcept {
  // 2^(j/32) = thi[j] + tlo[j], j = 0..31 (thi rounded to nearest; tlo the rest, rounded).
  alignas(64) static constexpr float thi[32] = {
      0x1p+0f,        0x1.059b0ep+0f, 0x1.0b5586p+0f, 0x1.11301ep+0f, 0x1.172b84p+0f, 0x1.1d4874p+0f,
      0x1.2387a6p+0f, 0x1.29e9ep+0f,  0x1.306fep+0f,  0x1.371a74p+0f, 0x1.3dea64p+0f, 0x1.44e086p+0f,
      0x1.4bfdaep+0f, 0x1.5342b6p+0f, 0x1.5ab07ep+0f, 0x1.6247ecp+0f, 0x1.6a09e6p+0f, 0x1.71f75ep+0f,
      0x1.7a1148p+0f, 0x1.82589ap+0f, 0x1.8ace54p+0f, 0x1.93737cp+0f, 0x1.9c4918p+0f, 0x1.a5503cp+0f,
      0x1.ae89fap+0f, 0x1.b7f77p+0f,  0x1.c199bep+0f, 0x1.cb720ep+0f, 0x1.d5818ep+0f, 0x1.dfc974p+0f,
      0x1.ea4afap+0f, 0x1.f50766p+0f};
  alignas(64) static constexpr float tlo[32] = {
      0x0p+0f,         -0x1.9d4f52p-25f, 0x1.9f3122p-25f,  -0x1.fdb496p-25f, -0x1.c15742p-27f, -0x1.d2e8cap-25f,
      0x1.ceac48p-25f, -0x1.5c0424p-25f, 0x1.4636e2p-25f,  -0x1.18aac6p-25f, 0x1.824684p-25f,  0x1.8624b4p-30f,
      -0x1.593abcp-25f, -0x1.2c561p-25f, -0x1.5bd5ecp-27f, -0x1.f8b55p-25f,  0x1.9fcef4p-26f,  0x1.1d8beep-25f,
      -0x1.829fdp-25f, -0x1.accc7cp-26f, 0x1.15506ep-27f,  -0x1.e64744p-25f, 0x1.51f848p-27f,  -0x1.b83b54p-25f,
      -0x1.a94b14p-26f, -0x1.a09438p-25f, -0x1.3d56b2p-27f, -0x1.8837ccp-27f, -0x1.822dbcp-27f, -0x1.908c94p-25f,
      0x1.52486cp-27f, -0x1.246ebp-26f};
  const v16sf magic = vsplat<v16sf>(0x1.8p18f);
  const v16sf u = opaque(x * mhi);
  const v16sf v = opaque(u + magic);  // opaque: (u + magic) - magic is not u
  const v16sf k = v - magic;
  v16sf r = _mm512_fmadd_ps(x, mlo, _mm512_fmsub_ps(x, mhi, k));
  r = range_small(r, 0x1p-5f);
  v16sf q = _mm512_fmadd_ps(r, vsplat<v16sf>(0x1.c6b08ep-5f), vsplat<v16sf>(0x1.ebfbep-3f));
  q = _mm512_fmadd_ps(q, r, vsplat<v16sf>(0x1.62e43p-1f));
  q = q * r;
  const __m512i j = _mm512_castps_si512(v);
  const v16sf th = _mm512_permutex2var_ps(_mm512_load_ps(thi), j, _mm512_load_ps(thi + 16));
  const v16sf tl = _mm512_permutex2var_ps(_mm512_load_ps(tlo), j, _mm512_load_ps(tlo + 16));
  return scalef(th + v16sf(_mm512_fmadd_ps(th, q, tl)), k);
}

KOPS_INLINE v8df exp2_dd(v8df x, v8df mhi, v8df mlo) noexcept {
  v8df u = opaque(x * mhi);
  v8df e = _mm512_fmadd_pd(x, mlo, _mm512_fmsub_pd(x, mhi, u));
  e = range_small(e, 0x1p-10);
#if defined(__AVX512DQ__)
  v8df n, f;
  split_nearest(u, n, f);
  return scalef(exp2_poly<false>(f + e), n);
#else
  const v8df uc = clamp(u, -0x1p11, 0x1p11);  // vrndscale of +-inf would leave f NaN
  v8df n, f;
  split_nearest(uc, n, f);
  return keep_nan(u, scalef(exp2_poly<false>(f + e), n));  // finite-math: NaN lanes of u back
#endif
}

// log2 e = L_hi + L_lo.
template <class V>
inline constexpr auto log2e_hi = sizeof(typename vec_traits<V>::elem) == 4 ? 0x1.715476p+0 : 0x1.71547652b82fep+0;
template <class V>
inline constexpr auto log2e_lo = sizeof(typename vec_traits<V>::elem) == 4 ? 1.925962991127e-8 : 2.035527374093103205e-17;

// e^x, accurate: 2^(x log2 e), the product carried in two parts.
template <class V>
KOPS_INLINE V exp(V x) noexcept {
  using E = typename vec_traits<V>::elem;
  return exp2_dd(x, vsplat<V>(E(log2e_hi<V>)), vsplat<V>(E(log2e_lo<V>)));
}

// e^(x b), accurate, x b not rounded: b log2 e = mhi + mlo with mhi = b L_hi
// rounded, mlo = (b L_hi - mhi) + b L_lo (2^-40 relative in float).  For a b that is
// the same for every pair, mhi and mlo are loop-invariant and the compilers hoist them
// (and the test on b below with them: a branch, taken the same way for every pair).
// Where |b| >= 2^120 (float; 2^1000 double) b log2 e may overflow: those calls take
// exp(x * b), the product rounded.  Where |b| < 2^-100 (2^-960) mlo is subnormal and
// the product is carried less exactly (no worse than exp(x * b)).
template <class V>
KOPS_INLINE V exp_scaled(V x, V b) noexcept {
  using E = typename vec_traits<V>::elem;
  constexpr E huge = sizeof(E) == 4 ? E(0x1p120) : E(0x1p1000);
  const V lhi = vsplat<V>(E(log2e_hi<V>)), llo = vsplat<V>(E(log2e_lo<V>));
  // mhi, mlo and the test on b before the branch: code after it runs conditionally,
  // and under -ftrapping-math (the default) the compilers do not hoist
  // floating-point operations out of conditional code.
  const V mhi = opaque(b * lhi);
  V mlo;
  bool big;
  if constexpr (sizeof(E) == 4) {
    mlo = _mm512_fmadd_ps(b, llo, _mm512_fmsub_ps(b, lhi, mhi));
    big = _mm512_cmp_ps_mask(_mm512_abs_ps(b), vsplat<V>(huge), _CMP_GE_OQ) != 0;
  } else {
    mlo = _mm512_fmadd_pd(b, llo, _mm512_fmsub_pd(b, lhi, mhi));
    big = _mm512_cmp_pd_mask(_mm512_abs_pd(b), vsplat<V>(huge), _CMP_GE_OQ) != 0;
  }
  if (__builtin_expect(big, 0)) return exp(x * b);
  return exp2_dd(x, mhi, mlo);
}

// 2^t: with AVX-512DQ r = vreduce(t) = t - round(t) and n = t - r, both exact, and
// no clamp (t = +-inf: r = 0, n = +-inf; |t| >= 2^23: r = 0, n = t; NaN: NaN), then
// vscalef(exp2_poly<fast>(r), n), which overflows to +inf and underflows to
// correctly rounded subnormals / +0.  Without DQ: clamp to [-151, 129]
// ([-1076, 1025]), n = vrndscale(t), r = t - n.
template <bool fast, class V>
KOPS_INLINE V exp2(V t) noexcept {
#if defined(__AVX512DQ__)
  const V r = frac(t);
  const V n = t - r;
  return scalef(exp2_poly<fast>(r), n);
#else
  V tc;
  if constexpr (sizeof(typename vec_traits<V>::elem) == 4) {
    tc = clamp(t, -151.f, 129.f);
  } else {
    tc = clamp(t, -1076., 1025.);
  }
  const V n = rint(tc);
  return keep_nan(t, scalef(exp2_poly<fast>(tc - n), n));
#endif
}

}  // namespace avx512
#endif

}  // namespace kops::simd::detail
