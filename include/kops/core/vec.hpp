// vec<V, D>: the value of a formula at one (i, j) pair, D components of type V.
// V is a scalar (float, double) on the GPU and for reference evaluation, or a
// SIMD pack of several rows on the CPU backend. Plain aggregate so that it lives
// in registers in device code.
#pragma once

#include <kops/config.hpp>

namespace kops {

template <class V, int D>
struct vec {
  static_assert(D >= 1, "kops::vec: dimension must be at least 1");
  V v[D];
  KOPS_HD constexpr V& operator[](int k) { return v[k]; }
  KOPS_HD constexpr const V& operator[](int k) const { return v[k]; }
};

// Component k of an operand of dimension D broadcast against a wider one
// (the {1, D} broadcasting rule: a dim-1 operand repeats its only component).
template <class V, int E>
KOPS_HD KOPS_INLINE constexpr const V& bcast(const vec<V, E>& a, int k) {
  if constexpr (E == 1) {
    (void)k;
    return a.v[0];
  } else {
    return a.v[k];
  }
}

} // namespace kops
