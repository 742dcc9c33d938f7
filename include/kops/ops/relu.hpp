#pragma once

#include <kops/ops/ifelse.hpp>
#include <kops/ops/step.hpp>

namespace kops {

struct relu_op {
  static constexpr const char* name = "relu";
  static constexpr const char* keops_name = "ReLU";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
    return Math::select(a < V(0), V(0), a);
  }
  // relu(a) selects a or 0: its derivative selects [d_V A]^T g or 0 (see relu below).
  template <class V, class G, class F> static constexpr auto vjp(V v, G g, F f) {
    if constexpr (F::dim == 1 || componentwise_v<F, V>) return ifelse(f, grad(F{}, v, g), Zero<1>{});
    else return grad(F{}, v, step(f) * g);
  }
};

/// relu: relu(a)_k = max(a_k, 0), written a_k < 0 ? 0 : a_k (relu(NaN) = NaN).
/// Derivative: [d_V relu A]^T g = ifelse(A, [d_V A]^T g, 0) (1 at A = 0, as KeOps):
/// the derivative of A is selected, never multiplied by 0 where A < 0 (where it may
/// be infinite: relu(log x) at x = 0 has the derivative 0, not 0 / 0). Exact when
/// A has dim 1 or is componentwise in V (core/elementwise.hpp); otherwise
/// [d_V A]^T (step(A) g), equal but for that 0 * inf.
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
