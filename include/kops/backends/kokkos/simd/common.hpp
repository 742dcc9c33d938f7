// Shared helpers of the SIMD math (backends/kokkos/simd/): pack traits, bit casts,
// masks and blends, the reassociation barrier, clamps and NaN patching.
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
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <kops/backends/kokkos/simd/x86.hpp>
#include <kops/config.hpp>

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

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
