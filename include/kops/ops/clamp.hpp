#pragma once

#include <kops/ops/clampint.hpp>
#include <kops/ops/comparisons.hpp>
#include <kops/ops/ifelse.hpp>

namespace kops {

namespace detail {
// A and B are integer constants with A <= B.
template <class A, class B> constexpr bool integer_bounds() {
  if constexpr (is_constant_v<A> && is_constant_v<B>) return A::den == 1 && B::den == 1 && A::num <= B::num;
  else return false;
}
} // namespace detail

struct clamp_op {
  static constexpr const char* name = "clamp";
  static constexpr const char* keops_name = "Clamp";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& x, const V& a, const V& b) {
    return Math::select(x < a, a, Math::select(x > b, b, x));
  }
  // The derivative selects that of the operand taken (see clamp below).
  template <class V, class G, class F, class A, class B> static constexpr auto vjp(V v, G g, F f, A a, B b) {
    constexpr int D = Ternary<clamp_op, F, A, B>::dim;
    const auto on_f = less_or_equal(a, f) * less_or_equal(f, b);
    const auto on_a = less_than(f, a);
    const auto on_b = less_or_equal(a, f) * less_than(b, f);
    if constexpr (D == 1 || (detail::componentwise_operand<F, D, V> && detail::componentwise_operand<A, D, V> &&
                             detail::componentwise_operand<B, D, V>))
      return detail::select_where(
          on_f, grad_fit(F{}, v, g),
          detail::select_where(on_a, grad_fit(A{}, v, g), detail::select_where(on_b, grad_fit(B{}, v, g), Zero<1>{})));
    else
      return detail::grad_where_operand<D>(on_f, F{}, v, g) + detail::grad_where_operand<D>(on_a, A{}, v, g) +
             detail::grad_where_operand<D>(on_b, B{}, v, g);
  }
};

/// clamp: clamp(f, a, b)_k = a_k if f_k < a_k, b_k if f_k > b_k, else f_k (KeOps'
/// Clamp(f, a, b); the tests in that order, so a > b gives a below a and b above it;
/// NaN f stays NaN). Dims: each of f, a, b is 1 or the result's dim.
/// Derivative (of the expression as written, so the three indicators add up to 1
/// but for a NaN operand): the derivative of the operand taken, selected, so that
/// the derivatives of the other two never enter the arithmetic (they may be
/// infinite there: clamp(x, log x, 1) at x = 0):
/// ```text
///   [d_V clamp(F, A, B)]^T g = [d_V F]^T g  where [A <= F] [F <= B],
///                              [d_V A]^T g  where [F < A],
///                              [d_V B]^T g  where [A <= F] [B < F],   0 elsewhere
/// ```
/// (KeOps' derivative, from clamp(f, a, b) = clampint<0,1>((f - a)/(b - a)) (b - a) + a,
/// whose terms are the three indicators times g): one selection of derivatives when
/// the result has dim 1 or each operand that reads V is componentwise in V
/// (core/elementwise.hpp); otherwise the sum of the three terms, each selection
/// moved as far down its operand as it goes (ops/ifelse.hpp: detail::grad_where).
/// Simplifications: integer constant bounds a <= b give clampint<a, b>(f).
template <Formula F, Formula A, Formula B>
constexpr auto clamp([[maybe_unused]] F f, A, B) {
  static_assert(broadcastable(F::dim, A::dim, B::dim),
                "kops::clamp: operand dims must each be 1 or the largest of the three (broadcasting)");
  if constexpr (detail::integer_bounds<A, B>()) return clampint<int(A::num), int(B::num)>(f);
  else return Ternary<clamp_op, F, A, B>{};
}

} // namespace kops
