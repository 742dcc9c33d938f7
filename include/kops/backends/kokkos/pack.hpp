// pack<T, L>: L values of type T evaluated together (one SIMD lane per output
// row), and pack_math, the math provider over packs. Built on GCC/Clang vector
// extensions, so + - * / and comparisons compile to SIMD instructions at any
// optimisation level and on any target width (the compiler splits a 64-byte
// pack into two AVX2 registers, or one AVX-512 register). Host code only.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <kops/config.hpp>
#include <kops/backends/kokkos/simd_math.hpp>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include <kops/core/scalar_math.hpp>

namespace kops::simd {

// Width of one SIMD register of the target, in bytes. Packs are exactly one
// register wide: wider vector-extension types are split by the compiler through
// memory (spills), narrower ones waste lanes.
#if defined(__AVX512F__)
inline constexpr int native_bytes = 64;
#elif defined(__AVX__)
inline constexpr int native_bytes = 32;
#else
inline constexpr int native_bytes = 16;
#endif

template <class T> struct same_width_int;
template <> struct same_width_int<float> { using type = std::int32_t; };
template <> struct same_width_int<double> { using type = std::int64_t; };

template <class T, int L>
struct pack {
  static_assert(std::is_floating_point_v<T> && (L & (L - 1)) == 0, "kops::simd::pack: T float/double, L a power of 2");
  using scalar = T;
  static constexpr int lanes = L;
  // typedef, not using: GCC drops vector_size from alias declarations of dependent types.
  typedef T vt __attribute__((vector_size(sizeof(T) * L)));
  // Result of a comparison: all bits set in true lanes.
  typedef typename same_width_int<T>::type mask __attribute__((vector_size(sizeof(T) * L)));

  vt v;

  pack() = default;
  KOPS_INLINE constexpr pack(vt x) : v(x) {}
  // Broadcast of a scalar (kops writes V(1), V(N) for constants).
  // (s - 0 is s for every s, -0 included, so the compiler emits a bare broadcast.)
  template <class U>
    requires std::is_arithmetic_v<U>
  KOPS_INLINE constexpr pack(U s) : v(static_cast<T>(s) - vt{}) {}

  KOPS_INLINE static pack load(const T* p) {
    pack r;
    std::memcpy(&r.v, p, sizeof(vt));
    return r;
  }
  KOPS_INLINE T operator[](int l) const { return v[l]; }

  friend KOPS_INLINE pack operator+(const pack& a, const pack& b) { return a.v + b.v; }
  friend KOPS_INLINE pack operator-(const pack& a, const pack& b) { return a.v - b.v; }
  friend KOPS_INLINE pack operator*(const pack& a, const pack& b) { return a.v * b.v; }
  friend KOPS_INLINE pack operator/(const pack& a, const pack& b) { return a.v / b.v; }
  friend KOPS_INLINE pack operator-(const pack& a) { return -a.v; }
  friend KOPS_INLINE mask operator<(const pack& a, const pack& b) { return a.v < b.v; }
  friend KOPS_INLINE mask operator>(const pack& a, const pack& b) { return a.v > b.v; }
  friend KOPS_INLINE mask operator<=(const pack& a, const pack& b) { return a.v <= b.v; }
  friend KOPS_INLINE mask operator>=(const pack& a, const pack& b) { return a.v >= b.v; }
  friend KOPS_INLINE mask operator==(const pack& a, const pack& b) { return a.v == b.v; }
  friend KOPS_INLINE mask operator!=(const pack& a, const pack& b) { return a.v != b.v; }
};

// L int64 indices, one per lane of a pack<T, L>.
template <int L>
struct index_pack_of {
  typedef std::int64_t type __attribute__((vector_size(8 * L)));
};
template <int L> using index_pack = typename index_pack_of<L>::type;

struct pack_math {
  template <class P> using index_t = index_pack<P::lanes>;

  template <class P> KOPS_INLINE static P exp(const P& a) { return detail::vexp(a.v); }
  template <class P> KOPS_INLINE static P exp2(const P& a) { return detail::vexp2(a.v); }
  // e^(a b), b the same for every pair (exp_op::scaled_form, ops/exp.hpp; lowering/lower.hpp).
  template <class P> KOPS_INLINE static P exp_scaled(const P& a, const P& b) { return detail::vexp_scaled(a.v, b.v); }
  template <class P> KOPS_INLINE static P log(const P& a) { return detail::vlog(a.v); }
  template <class P> KOPS_INLINE static P sin(const P& a) { return detail::vsin(a.v); }
  template <class P> KOPS_INLINE static P cos(const P& a) { return detail::vcos(a.v); }
  template <class P> KOPS_INLINE static P sqrt(const P& a) {
    typename P::vt r;
    for (int l = 0; l < P::lanes; ++l) r[l] = __builtin_sqrt(a.v[l]);
    return r;
  }
  // rsqrt(0) = 0, as the scalar version.
  template <class P> KOPS_INLINE static P rsqrt(const P& a) {
    const typename P::vt z{};
    return a.v == z ? z : typename P::scalar(1) / sqrt(a).v;
  }
  template <class P> KOPS_INLINE static P abs(const P& a) {
    const typename P::vt z{};
    return a.v < z ? -a.v : a.v;
  }
  template <class P> KOPS_INLINE static P floor(const P& a) { return detail::vfloor(a.v); }
  template <class P> KOPS_INLINE static P round(const P& a) { return detail::vround(a.v); }
  // The inverse trigonometric functions run lane by lane through scalar_math (the
  // float functions for float packs): rarer in kernels, and each lane is then
  // exactly the scalar result.
  template <class P> KOPS_INLINE static P asin(const P& a) {
    return lanewise(a, [](auto x) { return scalar_math::asin(x); });
  }
  template <class P> KOPS_INLINE static P acos(const P& a) {
    return lanewise(a, [](auto x) { return scalar_math::acos(x); });
  }
  template <class P> KOPS_INLINE static P atan(const P& a) {
    return lanewise(a, [](auto x) { return scalar_math::atan(x); });
  }
  template <class P> KOPS_INLINE static P atan2(const P& y, const P& x) {
    typename P::vt r;
    for (int l = 0; l < P::lanes; ++l) r[l] = scalar_math::atan2(y.v[l], x.v[l]);
    return r;
  }
  // a^b (C pow rules): float packs vectorised (simd_math.hpp vpow: exp(b log|a|) in
  // double, rounded once); double packs lane by lane through libm's pow, since the
  // same identity in double would lose up to |b log a| ulps.
  template <class P> KOPS_INLINE static P pow(const P& a, const P& b) {
    if constexpr (sizeof(typename P::scalar) == 4) {
      return detail::vpow(a.v, b.v);
    } else {
      typename P::vt r;
      for (int l = 0; l < P::lanes; ++l) r[l] = scalar_math::pow(a.v[l], b.v[l]);
      return r;
    }
  }

  template <class P> KOPS_INLINE static P select(typename P::mask m, const P& a, const P& b) {
    return m ? a.v : b.v;
  }
  template <class IV, class Mask> KOPS_INLINE static IV select_index(Mask m, const IV& a, const IV& b) {
    return __builtin_convertvector(m, IV) ? a : b;
  }
  // Whether some lane of the comparison mask m is true: one mask test
  // (AVX-512) or movemask (AVX, SSE) for a mask one native register wide, the
  // lanes one by one otherwise.
  template <class M> KOPS_INLINE static bool any(const M& m) {
    [[maybe_unused]] constexpr bool wide = sizeof(m[0]) == 8;
#if defined(__AVX512F__)
    if constexpr (sizeof(M) == 64) {
      const __m512i r = (__m512i)m;
      if constexpr (wide) return _mm512_test_epi64_mask(r, r) != 0;
      else return _mm512_test_epi32_mask(r, r) != 0;
    } else
#endif
#if defined(__AVX__)
    if constexpr (sizeof(M) == 32) {
      const __m256 r = (__m256)m;
      return _mm256_movemask_ps(r) != 0;
    } else
#endif
#if defined(__SSE2__)
    if constexpr (sizeof(M) == 16) {
      const __m128 r = (__m128)m;
      return _mm_movemask_ps(r) != 0;
    } else
#endif
    {
      bool r = false;
      for (int l = 0; l < int(sizeof(M) / sizeof(m[0])); ++l) r |= m[l] != 0;
      return r;
    }
  }
  template <class P> KOPS_INLINE static index_t<P> index(std::int64_t j) { return index_t<P>{} + j; }
  template <class P> KOPS_INLINE static typename P::scalar lane(const P& a, int l) { return a.v[l]; }
  template <class IV> KOPS_INLINE static std::int64_t lane_index(const IV& a, int l) { return a[l]; }

 private:
  template <class P, class Fn> KOPS_INLINE static P lanewise(const P& a, Fn fn) {
    typename P::vt r;
    for (int l = 0; l < P::lanes; ++l) r[l] = fn(a.v[l]);
    return r;
  }
};


// The math provider of the fast policy: pack_math with the fast exp / exp2
// (simd_math.hpp: vexp2_fast, 2^t by a degree-5 polynomial for float, max relative
// error 1.9e-7; exp(x) = vexp2_fast(x log2 e) adds about |x| * 6e-8).
struct pack_math_fast : pack_math {
  template <class P> KOPS_INLINE static P exp(const P& a) { return detail::vexp_fast(a.v); }
  template <class P> KOPS_INLINE static P exp2(const P& a) { return detail::vexp2_fast(a.v); }
  template <class P> KOPS_INLINE static P exp_scaled(const P& a, const P& b) { return detail::vexp_fast(a.v * b.v); }
};

} // namespace kops::simd
