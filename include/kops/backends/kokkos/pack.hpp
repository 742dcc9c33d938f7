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

  template <class P> KOPS_INLINE static P select(typename P::mask m, const P& a, const P& b) {
    return m ? a.v : b.v;
  }
  template <class IV, class Mask> KOPS_INLINE static IV select_index(Mask m, const IV& a, const IV& b) {
    return __builtin_convertvector(m, IV) ? a : b;
  }
  template <class P> KOPS_INLINE static index_t<P> index(std::int64_t j) { return index_t<P>{} + j; }
  template <class P> KOPS_INLINE static typename P::scalar lane(const P& a, int l) { return a.v[l]; }
  template <class IV> KOPS_INLINE static std::int64_t lane_index(const IV& a, int l) { return a[l]; }
};

// exp(x) = 2^t, t = x log2(e) clamped to [-127, 128]: t = n + r with n the
// nearest integer (read from the mantissa of t + 1.5 * 2^23 / 1.5 * 2^52, no
// conversion instruction), |r| <= 1/2, 2^r by a polynomial with p(0) = 1
// exactly, and 2^n added to the exponent bits. t = 128 gives +inf, t = -127
// gives +0; NaN stays NaN. The rounding of t costs about 1.2|x| ulp.
template <class VT>
KOPS_INLINE VT vexp_fast(VT x) {
  using E = std::remove_cvref_t<decltype(x[0])>;
  if constexpr (sizeof(E) == 4) {
    typedef std::int32_t IV __attribute__((vector_size(sizeof(VT))));
    VT t = x * E(1.44269504088896341);
    t = t < E(-127) ? E(-127) - VT{} : t;
    t = t > E(128) ? E(128) - VT{} : t;
    const VT tm = t + E(12582912.0f);
    const VT r = t - (tm - E(12582912.0f));
    // 2^r on [-1/2, 1/2], degree 6 Taylor in r ln 2 (coefficients ln2^k / k!):
    // truncation below 1.2e-7 relative.
    VT p = E(1.5403530393381609e-4) - VT{};
    p = p * r + E(1.3333558146428443e-3);
    p = p * r + E(9.6181291076284772e-3);
    p = p * r + E(5.5504108664821580e-2);
    p = p * r + E(2.4022650695910071e-1);
    p = p * r + E(6.9314718055994531e-1);
    p = p * r + E(1);
    return __builtin_bit_cast(VT, __builtin_bit_cast(IV, p) + (__builtin_bit_cast(IV, tm) << 23));
  } else {
    typedef std::int64_t IV __attribute__((vector_size(sizeof(VT))));
    VT t = x * E(1.4426950408889634074);
    t = t < E(-1023) ? E(-1023) - VT{} : t;
    t = t > E(1024) ? E(1024) - VT{} : t;
    const VT tm = t + E(6755399441055744.0);
    const VT r = t - (tm - E(6755399441055744.0));
    // 2^r on [-1/2, 1/2], degree 13 Taylor in r ln 2 (coefficients ln2^k / k!):
    // truncation below 5e-18 relative.
    constexpr E coef[14] = {1.0,
                            0.69314718055994530942,
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
    VT p = coef[13] - VT{};
    for (int k = 12; k >= 0; --k) p = p * r + coef[k];
    return __builtin_bit_cast(VT, __builtin_bit_cast(IV, p) + (__builtin_bit_cast(IV, tm) << 52));
  }
}

// The math provider of the fast policy: pack_math with the fast exp.
struct pack_math_fast : pack_math {
  template <class P> KOPS_INLINE static P exp(const P& a) { return vexp_fast(a.v); }
};

} // namespace kops::simd
