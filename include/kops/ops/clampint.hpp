#pragma once

#include <kops/ops/comparisons.hpp>

namespace kops {

template <int A, int B>
struct clampint_op {
  static constexpr const char* name = "clampint";
  static constexpr const char* keops_name = "ClampInt";
  using print_params = int_params<A, B>;
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& x) {
    return Math::select(x < V(A), V(A), Math::select(x > V(B), V(B), x));
  }
  template <class F, class G> static constexpr auto backward(F f, G g) {
    return (less_or_equal(cst<A>, f) * less_or_equal(f, cst<B>)) * g;
  }
};

/// clampint<a, b>: clampint<a, b>(f)_k = a if f_k < a, b if f_k > b, else f_k, for
/// integers a <= b fixed at compile time (KeOps' ClampInt(f, a, b); NaN stays NaN).
/// Derivative: [d_V clampint<a,b>(F)]^T g = [d_V F]^T ([a <= F] [F <= b] g)
/// (1 on the closed interval, as KeOps).
/// Simplifications: constants fold.
template <int A, int B, Formula F>
constexpr auto clampint([[maybe_unused]] F f) {
  static_assert(A <= B, "kops::clampint: the bounds must satisfy a <= b");
  if constexpr (is_constant_v<F>) {
    if constexpr (F::num < A * F::den) return cst<A>;
    else if constexpr (F::num > B * F::den) return cst<B>;
    else return f;
  } else return Unary<clampint_op<A, B>, F>{};
}

} // namespace kops
