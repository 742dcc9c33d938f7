#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct sign_op {
  static constexpr const char* name = "sign";
  static constexpr const char* keops_name = "Sign";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::select(a > V(0), V(1), Math::select(a < V(0), V(-1), V(0))); }
  template <class F, class G> static constexpr auto backward(F, G) { return Zero<F::dim>{}; }
};

/// sign: sign(a)_k = 1, 0 or -1 as a_k > 0, = 0, < 0 (sign(0) = 0; NaN gives 0).
/// Derivative: zero (piecewise constant).
template <Formula F>
constexpr auto sign([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else return Unary<sign_op, F>{};
}

} // namespace kops
