// x86 layer of the SIMD math: the intrinsics headers where KOPS_SIMD_X86 (config.hpp), and
// x86_clamp, the NaN-keeping clamp of one register that clamp_keep_nan uses.
#pragma once

#include <kops/config.hpp>

#if KOPS_SIMD_X86
#if defined(__AVX__)
#include <immintrin.h>  // AVX, AVX2, AVX-512 intrinsics
#else
// SSE2 alone (the baseline x86-64 target): <emmintrin.h> holds all this file
// uses and parses in a tenth of a percent of the time <immintrin.h> takes, which
// is 0.3 s of every translation unit's compile (docs/performance.md).
#include <emmintrin.h>
#endif
#endif

// Packs passed by value warn "changes the ABI" when wider than the target registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace kops::simd::detail {

#if KOPS_SIMD_X86
// x86: vmaxp(lo, x) then vminp(hi, .), which return their second operand when either
// is NaN (g++ lowers the ternaries of clamp_keep_nan, common.hpp, to compare + blend,
// two instructions each).
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
#if defined(__AVX512F__)  // full-mask forms: see avx512::max (avx512.hpp)
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

}  // namespace kops::simd::detail

#pragma GCC diagnostic pop
