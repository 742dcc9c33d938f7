#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct step_op {
  static constexpr const char* name = "step";
  static constexpr const char* keops_name = "Step";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
    return Math::select(a < V(0), V(0), V(1));
  }
  template <class F, class G> static constexpr auto backward(F, G) { return Zero<F::dim>{}; }
};

/// step: step(a)_k = 0 if a_k < 0, else 1; so step(0) = 1 and, as in KeOps,
/// step(NaN) = 1 (the test a_k < 0 fails).
/// Derivative: zero (piecewise constant).
/// Simplifications: constants fold (step(c) = 0 or 1).
template <Formula F>
constexpr auto step(F) {
  if constexpr (is_constant_v<F>) return make_constant<(F::num < 0 ? 0 : 1), 1>();
  else return Unary<step_op, F>{};
}

} // namespace kops
