#pragma once

#include <kops/ops/clampint.hpp>
#include <kops/ops/comparisons.hpp>

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
  template <class F, class A, class B, class G> static constexpr auto backward_a(F f, A a, B b, G g) {
    return (less_or_equal(a, f) * less_or_equal(f, b)) * g;
  }
  template <class F, class A, class B, class G> static constexpr auto backward_b(F f, A a, B, G g) {
    return less_than(f, a) * g;
  }
  template <class F, class A, class B, class G> static constexpr auto backward_c(F f, A a, B b, G g) {
    return (less_or_equal(a, f) * less_than(b, f)) * g;
  }
};

/// clamp: clamp(f, a, b)_k = a_k if f_k < a_k, b_k if f_k > b_k, else f_k (KeOps'
/// Clamp(f, a, b); the tests in that order, so a > b gives a below a and b above it;
/// NaN f stays NaN). Dims: each of f, a, b is 1 or the result's dim.
/// Derivative (of the expression as written, so the three terms add up to g):
/// ```text
///   [d_V clamp(F, A, B)]^T g = [d_V F]^T ([A <= F] [F <= B] g)
///                            + [d_V A]^T ([F < A] g) + [d_V B]^T ([A <= F] [B < F] g)
/// ```
/// (KeOps' derivative, from clamp(f, a, b) = clampint<0,1>((f - a)/(b - a)) (b - a) + a).
/// Simplifications: integer constant bounds a <= b give clampint<a, b>(f).
template <Formula F, Formula A, Formula B>
constexpr auto clamp([[maybe_unused]] F f, A, B) {
  static_assert(broadcastable(F::dim, A::dim, B::dim),
                "kops::clamp: operand dims must each be 1 or the largest of the three (broadcasting)");
  if constexpr (detail::integer_bounds<A, B>()) return clampint<int(A::num), int(B::num)>(f);
  else return Ternary<clamp_op, F, A, B>{};
}

} // namespace kops
