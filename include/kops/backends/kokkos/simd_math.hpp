// Vectorisable exp / log / sin / cos (and floor, round, float pow) on GCC/Clang
// vector-extension packs.
//
// Every function takes a pack VT = E __attribute__((vector_size(S))) with E float or
// double and evaluates all lanes with vector operations only: integer masks are
// built arithmetically (sign of a difference), selects are bit blends, bit
// reinterpretation is __builtin_bit_cast and conversions are __builtin_convertvector
// (rounding to an integer uses the 1.5*2^p addition trick instead).  Vector comparisons and `m ? a : b` are avoided on
// purpose (except float clamps on packs that fit one register): g++ 12 lowers them
// lane by lane with scalar code when the pack is wider than the target's registers
// (e.g. 64-byte packs with AVX2), while arithmetic and bitwise operations are split
// into whole registers.  Result: straight SIMD code at -O2/-O3 for any width, no
// libm calls; vsin/vcos keep one whole-pack branch to a per-lane std::sin/std::cos
// fallback that is only taken when some lane has |x| > 2^20 (or is inf/NaN).
//
// Special values are decided on the integer bit patterns, never on floating-point
// comparisons with NaN, so they stay right under -ffast-math;
// integer arithmetic that can wrap on those patterns (inf/NaN/negative lanes, patched
// later) is done on unsigned packs (vec_traits::uvec), so there is no signed overflow
// (clean under -fsanitize=undefined; results and speed unchanged).  Under __FAST_MATH__
// the Cody-Waite reduction steps and the final sums are separated by an empty asm
// barrier (opaque) so that reassociation cannot merge the split constants back into
// one rounded constant.  Measured under -ffast-math (function compiled with it, test
// harness without): exp <= 1.3 ulp, log and sin/cos unchanged, except that the
// |x| > 2^20 sin/cos fallback loop may then be vectorised with libmvec (~4 ulp).
// Linking with -ffast-math also sets flush-to-zero/denormals-are-zero on x86, after
// which subnormal inputs and results are 0 whatever this code does.
//
// ISA fast paths: with AVX-512F (KOPS_SIMD_AVX512 = 1), packs of exactly one
// 64-byte register (16 floats, 8 doubles) take intrinsic versions of vexp, vexp2
// and vexp2_fast (namespace avx512 below): rounding by vreduce (AVX-512DQ; else
// vrndscale), p*2^n by vscalef (overflow, underflow and subnormal results in one
// correctly rounded instruction), special lanes without clamps where DQ allows
// (else vmin/vmax clamps).  Every other pack and target (AVX2, SSE2, aarch64, ...)
// uses the generic vector-extension code, also callable as vexp_generic /
// vexp2_generic / vexp2_fast_generic (the tests compare both).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <kops/config.hpp>

#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
#define KOPS_SIMD_X86 1
#include <immintrin.h>
#else
#define KOPS_SIMD_X86 0
#endif
#if KOPS_SIMD_X86 && defined(__AVX512F__)
#define KOPS_SIMD_AVX512 1
#else
#define KOPS_SIMD_AVX512 0
#endif

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

template <class VT>
struct vec_traits {
  using elem = std::remove_cvref_t<decltype(VT{}[0])>;
  static_assert(std::is_same_v<elem, float> || std::is_same_v<elem, double>,
                "kops simd math: pack element must be float or double");
  static constexpr int lanes = int(sizeof(VT) / sizeof(elem));
  using ielem = std::conditional_t<sizeof(elem) == 4, std::int32_t, std::int64_t>;
  using uelem = std::make_unsigned_t<ielem>;
  // same-width integer packs: signed for masks, arithmetic right shifts and
  // conversions; unsigned for wrapping + - << on bit patterns (no signed overflow)
  typedef ielem ivec __attribute__((vector_size(sizeof(VT))));
  typedef uelem uvec __attribute__((vector_size(sizeof(VT))));
  // double pack with the same number of lanes (float sin/cos are evaluated in double)
  typedef double f64vec __attribute__((vector_size(8 * sizeof(VT) / sizeof(elem))));
};

template <class To, class From>
KOPS_INLINE To vbits(From v) noexcept {
  static_assert(sizeof(To) == sizeof(From));
  return __builtin_bit_cast(To, v);
}

// Broadcast a scalar (c - 0 == c for every c, including -0 and NaN).
template <class V, class S>
KOPS_INLINE V vsplat(S c) noexcept {
  return c - V{};
}

#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
inline constexpr bool finite_math = true;  // NaN comparisons may be folded away
#else
inline constexpr bool finite_math = false;
#endif

// Bytes of one vector register of the target.
#if defined(__AVX512F__)
inline constexpr std::size_t native_bytes = 64;
#elif defined(__AVX2__)
inline constexpr std::size_t native_bytes = 32;
#else
inline constexpr std::size_t native_bytes = 16;
#endif

// Lane select m ? a : b for an all-ones/all-zeros integer mask m (any pack type).
template <class V, class IV>
KOPS_INLINE V vblend(IV m, V a, V b) noexcept {
  const IV ia = vbits<IV>(a), ib = vbits<IV>(b);
  return vbits<V>(ib ^ ((ia ^ ib) & m));
}

// All-ones where a < b, for signed integer packs whose exact difference a - b does not
// overflow (callers guarantee it); the subtraction itself wraps (no UB).
template <class IV>
KOPS_INLINE IV vlt_mask(IV a, IV b) noexcept {
  using I = std::remove_cvref_t<decltype(a[0])>;
  using U = std::make_unsigned_t<I>;
  typedef U UV __attribute__((vector_size(sizeof(IV))));
  return vbits<IV>(vbits<UV>(a) - vbits<UV>(b)) >> (8 * sizeof(I) - 1);
}

// Optimisation barrier, only where reassociation is allowed (-ffast-math, or
// -fassociative-math alone, e.g. -ffast-math -fno-finite-math-only, which drops
// __FAST_MATH__; see the file comment): an empty asm
// that claims to modify v in a vector register (packs wider than one register are
// passed through it register by register).
template <class V>
KOPS_INLINE V opaque(V v) noexcept {
#if (defined(__FAST_MATH__) || defined(__ASSOCIATIVE_MATH__)) && (defined(__GNUC__) || defined(__clang__))
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
  using E = std::remove_cvref_t<decltype(v[0])>;
  constexpr std::size_t W = native_bytes < sizeof(V) ? native_bytes : sizeof(V);
  typedef E chunk __attribute__((vector_size(W)));
  chunk c[sizeof(V) / sizeof(chunk)];
  std::memcpy(c, &v, sizeof(V));
  for (chunk& ci : c) {
#if defined(__aarch64__)
    __asm__("" : "+w"(ci));
#elif defined(__AVX512F__)
    __asm__("" : "+v"(ci));
#else
    __asm__("" : "+x"(ci));
#endif
  }
  std::memcpy(&v, c, sizeof(V));
#else
  __asm__("" : "+m"(v));
#endif
#endif
  return v;
}

// True when any lane of the integer mask is non-zero (one whole-pack test).
template <class IV>
KOPS_INLINE bool vany(IV m) noexcept {
  using W = std::conditional_t<sizeof(IV) % 8 == 0, std::uint64_t, std::uint32_t>;
  W w[sizeof(IV) / sizeof(W)];
  std::memcpy(w, &m, sizeof(IV));
  W acc = 0;
  for (W v : w) acc |= v;
  return acc != 0;
}

// Clamp x to [lo, hi] (lo < 0 < hi); NaN lanes end up at lo or hi.
template <class VT, class E>
KOPS_INLINE VT vclamp(VT x, E lo, E hi) noexcept {
  if constexpr (sizeof(VT) <= native_bytes) {
    const VT t = x >= lo ? x : vsplat<VT>(lo);  // NaN >= lo is false: NaN -> lo
    return t <= hi ? t : vsplat<VT>(hi);
  } else {  // on the magnitude bits, which order like the magnitudes
    using IV = typename vec_traits<VT>::ivec;
    using I = typename vec_traits<VT>::ielem;
    const IV ix = vbits<IV>(x);
    const IV a = ix & std::numeric_limits<I>::max();
    const IV lim = vblend(ix >> (8 * sizeof(I) - 1), vsplat<IV>(vbits<I>(E(-lo))),
                          vsplat<IV>(vbits<I>(hi)));
    return vbits<VT>(vblend(vlt_mask(lim, a), lim, a) | (ix & std::numeric_limits<I>::min()));
  }
}

// p * 2^n for n in [-151, 129] (float) / [-1077, 1025] (double) as (p*2^(n>>1))*2^(n-(n>>1)):
// both factors are normal numbers, so overflow gives +inf and subnormal results are
// rounded once, not flushed.  NaN lanes may carry any n (patched later): n1, n2 and
// n1 + bias, n2 + bias cannot overflow for any n (|n1|, |n2| <= 2^30 / 2^62), the
// shifts, which may push bits out, are done on the unsigned pack.
template <class VT, class IV>
KOPS_INLINE VT scale_pow2(VT p, IV n) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using UV = typename Tr::uvec;
  constexpr int mant = sizeof(E) == 4 ? 23 : 52, bias = sizeof(E) == 4 ? 127 : 1023;
  const IV n1 = n >> 1, n2 = n - n1;
  return opaque(p * vbits<VT>(vbits<UV>(n1 + bias) << mant)) *
         vbits<VT>(vbits<UV>(n2 + bias) << mant);
}

// x clamped to [lo, hi] keeping NaN (ternaries, which g++ turns into vmin/vmax on
// packs of one register) or, where NaN may be lost (finite-math, wider packs), on
// the bits; then nan_patch puts NaN lanes back from the bit pattern of x.
template <class VT>
inline constexpr bool nan_flows = sizeof(VT) <= native_bytes && !finite_math;

#if KOPS_SIMD_X86
// x86: vmaxp(lo, x) then vminp(hi, .), which return their second operand when either
// is NaN (g++ lowers the ternaries below to compare + blend, two instructions each).
template <class VT, class E>
KOPS_INLINE VT x86_clamp(VT x, E lo, E hi) noexcept {
  constexpr bool f32 = sizeof(E) == 4;
  if constexpr (sizeof(VT) == 16 && f32) {
    const __m128 v = x;
    return _mm_min_ps(_mm_set1_ps(hi), _mm_max_ps(_mm_set1_ps(lo), v));
  } else if constexpr (sizeof(VT) == 16) {
    const __m128d v = x;
    return _mm_min_pd(_mm_set1_pd(hi), _mm_max_pd(_mm_set1_pd(lo), v));
#if defined(__AVX__)
  } else if constexpr (sizeof(VT) == 32 && f32) {
    const __m256 v = x;
    return _mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), v));
  } else if constexpr (sizeof(VT) == 32) {
    const __m256d v = x;
    return _mm256_min_pd(_mm256_set1_pd(hi), _mm256_max_pd(_mm256_set1_pd(lo), v));
#endif
#if defined(__AVX512F__)  // full-mask forms: see avx512::max below
  } else if constexpr (sizeof(VT) == 64 && f32) {
    const __m512 v = x, l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
    return _mm512_mask_min_ps(v, 0xffff, h, _mm512_mask_max_ps(v, 0xffff, l, v));
  } else if constexpr (sizeof(VT) == 64) {
    const __m512d v = x, l = _mm512_set1_pd(lo), h = _mm512_set1_pd(hi);
    return _mm512_mask_min_pd(v, 0xff, h, _mm512_mask_max_pd(v, 0xff, l, v));
#endif
  } else {
    static_assert(sizeof(VT) == 0, "x86_clamp: pack wider than a register");
  }
}
#endif

template <class VT, class E>
KOPS_INLINE VT clamp_keep_nan(VT x, E lo, E hi) noexcept {
  if constexpr (nan_flows<VT>) {  // NaN compares false and stays
#if KOPS_SIMD_X86
    return x86_clamp(x, lo, hi);
#endif
    const VT t = x < lo ? vsplat<VT>(lo) : x;
    return t > hi ? vsplat<VT>(hi) : t;
  } else {
    return vclamp(x, lo, hi);
  }
}

template <class VT>
KOPS_INLINE VT nan_patch(VT x, VT res) noexcept {
  if constexpr (nan_flows<VT>) {
    return res;
  } else {
    using Tr = vec_traits<VT>;
    using E = typename Tr::elem;
    using I = typename Tr::ielem;
    using IV = typename Tr::ivec;
    const IV isnan = vlt_mask(vsplat<IV>(vbits<I>(std::numeric_limits<E>::infinity())),
                              vbits<IV>(x) & std::numeric_limits<I>::max());
    return vblend(isnan, x + x, res);
  }
}

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

#if KOPS_SIMD_AVX512
// One-register AVX-512 versions (see the file comment).
namespace avx512 {

// Register types as plain vector-extension types (__m512 carries may_alias, which
// template arguments drop with a warning); interchangeable with __m512 / __m512d.
typedef float v16sf __attribute__((vector_size(64)));
typedef double v8df __attribute__((vector_size(64)));

// The full-mask _mm512_mask_* forms (same instructions): the unmasked intrinsics of
// g++ 12 start from _mm512_undefined_*, which trips -Wuninitialized once inlined.
KOPS_INLINE v16sf max(v16sf a, v16sf b) noexcept { return _mm512_mask_max_ps(b, 0xffff, a, b); }
KOPS_INLINE v8df max(v8df a, v8df b) noexcept { return _mm512_mask_max_pd(b, 0xff, a, b); }
KOPS_INLINE v16sf min(v16sf a, v16sf b) noexcept { return _mm512_mask_min_ps(b, 0xffff, a, b); }
KOPS_INLINE v8df min(v8df a, v8df b) noexcept { return _mm512_mask_min_pd(b, 0xff, a, b); }
KOPS_INLINE v16sf scalef(v16sf a, v16sf b) noexcept { return _mm512_mask_scalef_ps(a, 0xffff, a, b); }
KOPS_INLINE v8df scalef(v8df a, v8df b) noexcept { return _mm512_mask_scalef_pd(a, 0xff, a, b); }
KOPS_INLINE v16sf rint(v16sf t) noexcept {
  return _mm512_mask_roundscale_ps(t, 0xffff, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
KOPS_INLINE v8df rint(v8df t) noexcept {
  return _mm512_mask_roundscale_pd(t, 0xff, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

#if defined(__AVX512DQ__)
// t - round-to-nearest(t), exactly (vreduce): +-inf -> 0, NaN -> NaN, |t| >= 2^23 -> 0.
KOPS_INLINE v16sf frac(v16sf t) noexcept {
  return _mm512_mask_reduce_ps(t, 0xffff, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
KOPS_INLINE v8df frac(v8df t) noexcept {
  return _mm512_mask_reduce_pd(t, 0xff, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
#endif

// x clamped to [lo, hi]: vmax(lo, x) / vmin(hi, .) return their second operand x when
// either is NaN, so NaN lanes stay NaN.
template <class V, class E>
KOPS_INLINE V clamp(V x, E lo, E hi) noexcept {
  return min(vsplat<V>(hi), max(vsplat<V>(lo), x));
}
// Under finite-math the compiler may commute vmin/vmax: NaN lanes of x are put back
// from the bit pattern (integer compare); without it this is the identity.
template <class V>
KOPS_INLINE V keep_nan(V x, V res) noexcept {
  if constexpr (finite_math) {
    return nan_patch<V>(x, res);
  }
  return res;
}

// Split u = round(u) + f, |f| <= 1/2, both exact: (n, f).
template <class V>
KOPS_INLINE void split_nearest(V u, V& n, V& f) noexcept {
#if defined(__AVX512DQ__)
  f = frac(u);  // vreduce: 1 uop; vrndscale is 2 (port 0 only on Intel cores)
  n = u - f;
#else
  n = rint(u);
  f = opaque(u - n);  // not reassociated with what is added to f (-ffast-math)
#endif
}

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

// The register type of a one-register AVX-512 pack, void for other packs.
template <class VT>
using avx512_reg = std::conditional_t<
    sizeof(VT) != 64, void,
    std::conditional_t<sizeof(typename vec_traits<VT>::elem) == 4, avx512::v16sf, avx512::v8df>>;
#else
template <class VT>
using avx512_reg = void;
#endif

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
// exp(a b), b invariant: backends/kokkos/scaled_exp.hpp).  AVX-512: x b is not
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

// Natural log.  Subnormal x are first scaled by 2^25 (float) / 2^54 (double).
// Then x = 2^k * m with m in [sqrt(2)/2, sqrt(2)) (integer arithmetic on the bits),
// f = m - 1 in [-0.293, 0.415], log x = k*ln2 + log1p(f), ln2 = ln2_hi + ln2_lo.
// float : log1p(f) = f - f^2/2 + f^3*P(f), P the degree-8 Cephes logf polynomial.
// double: s = f/(2+f), log1p(f) = f - hfsq + s*(hfsq + R(s^2)), hfsq = f^2/2,
//         R the degree-14 (7 in s^2) fdlibm/musl minimax polynomial, |s| <= 0.1716.
// Special lanes are patched on the bit pattern: log(+inf) = +inf, log(NaN) = NaN,
// log(x < 0) = NaN (also -inf), log(+-0) = -inf; log(1) = +0 falls out exactly.
template <class VT>
KOPS_INLINE VT vlog(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using IV = typename Tr::ivec;
  using U = typename Tr::uelem;
  using UV = typename Tr::uvec;
  const IV ix = vbits<IV>(x);
  VT res;
  if constexpr (sizeof(E) == 4) {
    const IV sub = vlt_mask(ix, vsplat<IV>(0x00800000));  // subnormal (or <= 0: patched)
    const VT xs = vblend(sub, x * E(0x1p25), x);
    // wraps for +inf / NaN / negative x (patched below): unsigned addition
    const IV iy = vbits<IV>(vbits<UV>(xs) + U(0x3f800000 - 0x3f3504f3));
    const IV k = (iy >> 23) - 0x7f - (sub & 25);
    const VT f = vbits<VT>((iy & 0x007fffff) + 0x3f3504f3) - E(1);
    const VT kf = __builtin_convertvector(k, VT);
    const VT z = f * f;
    VT p = vsplat<VT>(E(7.0376836292e-2));
    p = p * f + E(-1.1514610310e-1);
    p = p * f + E(1.1676998740e-1);
    p = p * f + E(-1.2420140846e-1);
    p = p * f + E(1.4249322787e-1);
    p = p * f + E(-1.6668057665e-1);
    p = p * f + E(2.0000714765e-1);
    p = p * f + E(-2.4999993993e-1);
    p = p * f + E(3.3333331174e-1);
    VT t = opaque((f * z) * p + kf * E(-2.12194440e-4));
    t = opaque(t - E(0.5) * z);
    res = opaque(f + t) + kf * E(0.693359375);
    // The masks may be wrong on lanes that a later line overrides (wrapping
    // differences for negative ix), never on the lanes they decide.
    IV ri = vbits<IV>(res);
    ri = vblend(~vlt_mask(ix, vsplat<IV>(0x7f800000)), vbits<IV>(x + x), ri);  // +inf, +NaN
    ri = vblend(ix >> 31, vsplat<IV>(0x7fc00000), ri);  // x < 0, -NaN: NaN
    ri = vblend(vlt_mask(ix & 0x7fffffff, vsplat<IV>(1)), vsplat<IV>(std::int32_t(0xff800000u)),
                ri);  // +-0: -inf
    return vbits<VT>(ri);
  } else {
    const IV sub = vlt_mask(ix, vsplat<IV>(0x0010000000000000));
    const VT xs = vblend(sub, x * E(0x1p54), x);
    const IV iy = vbits<IV>(vbits<UV>(xs) + U(0x3ff0000000000000 - 0x3fe6a09e667f3bcd));
    const IV k = (iy >> 52) - 0x3ff - (sub & 54);
    const VT f = vbits<VT>((iy & 0x000fffffffffffff) + 0x3fe6a09e667f3bcd) - E(1);
    // int64 -> double for |k| < 2^51 without needing AVX-512DQ
    const VT kf = vbits<VT>(k + 0x4338000000000000) - E(0x1.8p52);
    const VT hfsq = E(0.5) * f * f;
    const VT s = f / (E(2) + f);
    const VT z = s * s;
    const VT w = z * z;
    const VT t1 = w * (E(3.999999999940941908e-01) +
                       w * (E(2.222219843214978396e-01) + w * E(1.531383769920937332e-01)));
    const VT t2 = z * (E(6.666666666666735130e-01) +
                       w * (E(2.857142874366239149e-01) +
                            w * (E(1.818357216161805012e-01) + w * E(1.479819860511658591e-01))));
    const VT R = t2 + t1;
    VT t = opaque(s * (hfsq + R) + kf * E(1.90821492927058770002e-10));
    t = opaque(t - hfsq);
    res = opaque(t + f) + kf * E(6.93147180369123816490e-01);
    IV ri = vbits<IV>(res);
    ri = vblend(~vlt_mask(ix, vsplat<IV>(0x7ff0000000000000)), vbits<IV>(x + x), ri);
    ri = vblend(ix >> 63, vsplat<IV>(std::int64_t(0x7ff8000000000000)), ri);
    ri = vblend(vlt_mask(ix & 0x7fffffffffffffff, vsplat<IV>(1)),
                vsplat<IV>(std::int64_t(0xfff0000000000000u)), ri);
    return vbits<VT>(ri);
  }
}

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

// x rounded to the nearest integer by the copysign(2^p, x) addition (p = 23 / 52: the
// sum has no fraction bits left), for lanes with |x| < 2^p; the result is never -0.
// (The barriers keep (x + c) - c from being folded to x under -ffast-math.)
template <class VT>
KOPS_INLINE VT round_small(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  constexpr E two_p = sizeof(E) == 4 ? E(0x1p23) : E(0x1p52);
  const VT c = vbits<VT>(vsplat<IV>(vbits<I>(two_p)) | (vbits<IV>(x) & std::numeric_limits<I>::min()));
  return opaque(opaque(x + c) - c);
}

// All-ones in the lanes where |x| < 2^23 (2^52): lanes that may have a fraction
// (not inf, not NaN).
template <class VT>
KOPS_INLINE typename vec_traits<VT>::ivec may_have_fraction(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  constexpr E two_p = sizeof(E) == 4 ? E(0x1p23) : E(0x1p52);
  return vlt_mask(vbits<IV>(x) & std::numeric_limits<I>::max(), vsplat<IV>(vbits<I>(two_p)));
}

// floor x, exact, on the bits (no conversion to integers, so any magnitude works
// and no float compare is folded under -ffast-math): r = nearest integer, minus 1
// where r > x; lanes with |x| >= 2^23 (2^52), inf and NaN are returned as they are.
// The sign bit of x is put back, so floor(-0) = -0 (every other result already has
// the sign of x).
template <class VT>
KOPS_INLINE VT vfloor(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  const IV ix = vbits<IV>(x);
  const VT r = round_small(x);
  // r - x is exact (|r - x| <= 1/2) and never -0 (r is never -0): its bits, as a
  // signed integer, are > 0 exactly when r > x.
  const IV above = vlt_mask(IV{}, vbits<IV>(r - x));
  const VT f = r - vbits<VT>(above & vbits<I>(E(1)));
  const IV res = vblend(may_have_fraction(x), vbits<IV>(f), ix);
  return vbits<VT>(res | (ix & std::numeric_limits<I>::min()));
}

// Nearest integer with halfway cases away from zero (C round): on a = |x|,
// t = floor(a), plus 1 where a - t >= 1/2 (a - t is exact), with the sign of x.
// Lanes with |x| >= 2^23 (2^52), inf and NaN are returned as they are.
template <class VT>
KOPS_INLINE VT vround(VT x) noexcept {
  using Tr = vec_traits<VT>;
  using E = typename Tr::elem;
  using I = typename Tr::ielem;
  using IV = typename Tr::ivec;
  const IV ix = vbits<IV>(x);
  const VT a = vbits<VT>(ix & std::numeric_limits<I>::max());
  const VT r = round_small(a);
  const IV above = vlt_mask(IV{}, vbits<IV>(r - a));
  const VT t = r - vbits<VT>(above & vbits<I>(E(1)));
  // a - t in [0, 1): non-negative, so its bits order like its value.
  const IV half_up = ~vlt_mask(vbits<IV>(a - t), vsplat<IV>(vbits<I>(E(0.5))));
  const VT u = t + vbits<VT>(half_up & vbits<I>(E(1)));
  const IV res = vblend(may_have_fraction(x), vbits<IV>(u), ix);
  return vbits<VT>(res | (ix & std::numeric_limits<I>::min()));
}

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
