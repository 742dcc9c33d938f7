#pragma once

#include <kops/ops/minus.hpp>
#include <kops/ops/square.hpp>

namespace kops {

struct atan_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "atan";
  static constexpr const char* keops_name = "Atan";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::atan(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return g / (cst<1> + square(f)); }
};

/// atan: atan(a)_k = arctan a_k, in [-pi/2, pi/2] (atan(+-inf) = +-pi/2).
/// Derivative: [d_V atan A]^T g = [d_V A]^T (g / (1 + A^2)).
/// Simplifications: atan(0) = 0; atan(-a) = -atan(a).
template <Formula F>
constexpr auto atan([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (detail::is_neg_v<F>) return -atan(operand_t<F, 0>{});
  else return Unary<atan_op, F>{};
}

} // namespace kops
