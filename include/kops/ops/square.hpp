#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct square_op {
  static constexpr const char* name = "square";
  static constexpr const char* keops_name = "Square";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return a * a; }
  template <class F, class G> static constexpr auto backward(F f, G g) { return cst<2> * (f * g); }
};

/// square: square(a)_k = a_k^2.
/// Simplifications: square(0) = 0; constants fold; square(-a) = square(a).
/// Derivative: [d_V A^2]^T g = [d_V A]^T (2 A g).
template <Formula F>
constexpr auto square([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (is_constant_v<F>) return make_constant<F::num * F::num, F::den * F::den>();
  else if constexpr (detail::is_neg_v<F>) return square(operand_t<F, 0>{});
  else return Unary<square_op, F>{};
}

} // namespace kops
