#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct sin_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "sin";
  static constexpr const char* keops_name = "Sin";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::sin(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return cos(f) * g; }
};

/// sin: sin(a)_k = sin a_k.
/// Simplifications: sin(0) = 0; sin(-a) = -sin(a).
/// Derivative: [d_V sin A]^T g = [d_V A]^T (cos(A) g).
template <Formula F>
constexpr auto sin([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (detail::is_neg_v<F>) return -sin(operand_t<F, 0>{});
  else return Unary<sin_op, F>{};
}

} // namespace kops
