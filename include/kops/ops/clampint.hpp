#pragma once

#include <kops/ops/comparisons.hpp>
#include <kops/ops/ifelse.hpp>

namespace kops {

template <int A, int B>
struct clampint_op {
  static constexpr const char* name = "clampint";
  static constexpr const char* keops_name = "ClampInt";
  using print_params = int_params<A, B>;
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& x) {
    return Math::select(x < V(A), V(A), Math::select(x > V(B), V(B), x));
  }
  // The derivative selects [d_V F]^T g or 0 (see clampint below).
  template <class V, class G, class F> static constexpr auto vjp(V v, G g, F f) {
    const auto inside = less_or_equal(make_constant<A, 1>(), f) * less_or_equal(f, make_constant<B, 1>());
    return detail::grad_where(inside, f, v, g);
  }
};

/// clampint<a, b>: clampint<a, b>(f)_k = a if f_k < a, b if f_k > b, else f_k, for
/// integers a <= b fixed at compile time (KeOps' ClampInt(f, a, b); NaN stays NaN).
/// Derivative: [d_V clampint<a,b>(F)]^T g = [d_V F]^T g where a <= F <= b, else 0
/// (1 on the closed interval, as KeOps), selected: outside, the derivative of F
/// is not multiplied by 0 (it may be infinite there): select_where([a <= F] [F <= b],
/// [d_V F]^T g, 0) for F of dim 1 or componentwise in V (core/elementwise.hpp);
/// otherwise the selection goes as far down F as it can (ops/ifelse.hpp:
/// detail::grad_where).
/// Simplifications: constants fold.
template <int A, int B, Formula F>
constexpr auto clampint([[maybe_unused]] F f) {
  static_assert(A <= B, "kops::clampint: the bounds must satisfy a <= b");
  if constexpr (is_constant_v<F>) {
    if constexpr (F::num < A * F::den) return make_constant<A, 1>();
    else if constexpr (F::num > B * F::den) return make_constant<B, 1>();
    else return f;
  } else return Unary<clampint_op<A, B>, F>{};
}

} // namespace kops
