// AVX-512 layer of the SIMD math (KOPS_SIMD_AVX512, config.hpp): one-register types
// v16sf / v8df, full-mask intrinsic wrappers, NaN-keeping clamp, round-to-nearest
// split, and avx512_reg, the register type of a one-register pack (void otherwise).
#pragma once

#include <type_traits>

#include <kops/backends/kokkos/simd/common.hpp>
#include <kops/backends/kokkos/simd/x86.hpp>
#include <kops/config.hpp>

namespace kops::simd::detail {

#if KOPS_SIMD_AVX512
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

}  // namespace kops::simd::detail
