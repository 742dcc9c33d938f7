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
    return detail::grad_where(step(f), f, v, g);
  }
};

/// relu: relu(a)_k = max(a_k, 0), written a_k < 0 ? 0 : a_k (relu(NaN) = NaN).
/// Derivative: [d_V relu A]^T g = [d_V A]^T (step(A) g) (1 at A = 0 and at NaN, as
/// KeOps), as a selection: where A < 0 the derivative of A is not multiplied by 0
/// (it may be infinite there: relu(log x) at x = 0 has the derivative 0, not 0 / 0).
/// For A of dim 1 or componentwise in V (core/elementwise.hpp) it is
/// ifelse(-step(A), 0, [d_V A]^T g); otherwise the selection goes as far down A as
/// it can (ops/ifelse.hpp: detail::grad_where).
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
