// pow<n>: pow<n>(a)_k = a_k^n for an integer n (negative n gives 1 / a_k^|n|),
// computed by repeated squaring, exactly as many multiplies as the bits of n.
// Derivative: [d_V A^n]^T g = [d_V A]^T (n A^{n-1} g).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

template <int N>
struct pow_op {
  static constexpr const char* name = "pow";
  static constexpr const char* keops_name = "Pow";
  static constexpr int exponent = N;

  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
    constexpr int n = N < 0 ? -N : N;
    V result = V(1);
    V base = a;
    for (int e = n; e > 0; e >>= 1) {
      if (e & 1) result = result * base;
      if (e > 1) base = base * base;
    }
    if constexpr (N < 0) return V(1) / result;
    else return result;
  }
};

template <int N, Formula F>
constexpr Unary<pow_op<N>, F> pow(F) { return {}; }

} // namespace kops
