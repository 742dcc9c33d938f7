#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct sqrt_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "sqrt";
  static constexpr const char* keops_name = "Sqrt";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::sqrt(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return g / (cst<2> * sqrt(f)); }
};

/// sqrt: sqrt(a)_k = a_k^{1/2}.
/// Simplifications: sqrt(0) = 0; sqrt(1) = 1; sqrt(square a) is kept (it is |a|).
/// Derivative: [d_V sqrt A]^T g = [d_V A]^T (g / (2 sqrt A)).
template <Formula F>
constexpr auto sqrt([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> || is_one_v<F>) return f;
  else return Unary<sqrt_op, F>{};
}

} // namespace kops
