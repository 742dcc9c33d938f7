#pragma once

#include <kops/ops/divide.hpp>
#include <kops/ops/sign.hpp>
namespace kops {

struct abs_op {
  static constexpr const char* name = "abs";
  static constexpr const char* keops_name = "Abs";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::abs(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return sign(f) * g; }
};

/// abs: abs(a)_k = |a_k|.
/// Simplifications: abs(0) = 0; abs(-a) = abs(a).
/// Derivative: [d_V |A|]^T g = [d_V A]^T (sign(A) g).
template <Formula F>
constexpr auto abs([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (detail::is_neg_v<F>) return abs(operand_t<F, 0>{});
  else return Unary<abs_op, F>{};
}

} // namespace kops
