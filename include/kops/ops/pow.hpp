#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

template <int N>
struct pow_op {
  static constexpr const char* name = "pow";
  static constexpr const char* keops_name = "Pow";
  static constexpr int exponent = N;
  using print_params = int_params<N>;

  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
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
  template <class F, class G> static constexpr auto backward(F f, G g) {
    return cst<N> * (pow<N - 1>(f) * g);
  }
};

struct square_op;
struct inv_op;

/// pow<n>: pow<n>(a)_k = a_k^n for an integer n (negative n gives 1 / a_k^|n|),
/// computed by repeated squaring, exactly as many multiplies as the bits of n.
/// Derivative: [d_V A^n]^T g = [d_V A]^T (n A^{n-1} g).
/// Simplifications: pow<0> = 1 (dim 1), pow<1>(a) = a, pow<2> = square,
/// pow<-1> = inv, constants fold.
template <int N, Formula F>
constexpr auto pow([[maybe_unused]] F f) {
  if constexpr (N == 0 && F::dim == 1) return cst<1>;
  else if constexpr (N == 1) return f;
  else if constexpr (N == 2) return f * f;
  else if constexpr (N == -1) return Unary<inv_op, F>{};
  else if constexpr (is_constant_v<F> && N > 0 && N < 8) return f * pow<N - 1>(f);
  else return Unary<pow_op<N>, F>{};
}

} // namespace kops
