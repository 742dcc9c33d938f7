#pragma once

#include <kops/ops/step.hpp>

namespace kops {

struct relu_op {
  static constexpr const char* name = "relu";
  static constexpr const char* keops_name = "ReLU";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
    return Math::select(a < V(0), V(0), a);
  }
  template <class F, class G> static constexpr auto backward(F f, G g) { return step(f) * g; }
};

/// relu: relu(a)_k = max(a_k, 0), written a_k < 0 ? 0 : a_k (relu(NaN) = NaN).
/// Derivative: [d_V relu A]^T g = [d_V A]^T (step(A) g) (1 at A = 0, as KeOps).
/// Simplifications: relu(0) = 0; constants fold.
template <Formula F>
constexpr auto relu([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (is_constant_v<F>) {
    if constexpr (F::num < 0) return Zero<1>{};
    else return f;
  } else return Unary<relu_op, F>{};
}

} // namespace kops
