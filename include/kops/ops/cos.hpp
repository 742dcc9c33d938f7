#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct cos_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "cos";
  static constexpr const char* keops_name = "Cos";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::cos(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return -(sin(f) * g); }
};

/// cos: cos(a)_k = cos a_k.
/// Simplifications: cos(-a) = cos(a).
/// Derivative: [d_V cos A]^T g = [d_V A]^T (-sin(A) g).
template <Formula F>
constexpr auto cos([[maybe_unused]] F f) {
  if constexpr (detail::is_neg_v<F>) return cos(operand_t<F, 0>{});
  else return Unary<cos_op, F>{};
}

} // namespace kops
