#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct inv_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "inv";
  static constexpr const char* keops_name = "Inv";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return V(1) / a; }
  template <class F, class G> static constexpr auto backward(F f, G g) { return -(g * square(inv(f))); }
};

/// inv: inv(a)_k = 1 / a_k.
/// Simplifications: constants fold to exact rationals; inv(inv a) = a.
/// Derivative: [d_V (1/A)]^T g = [d_V A]^T (-g / A^2).
template <Formula F>
constexpr auto inv([[maybe_unused]] F f) {
  if constexpr (is_constant_v<F> && !is_zero_v<F>) return make_constant<F::den, F::num>();
  else if constexpr (is_op_v<F, inv_op>) return operand_t<F, 0>{};
  else return Unary<inv_op, F>{};
}

} // namespace kops
