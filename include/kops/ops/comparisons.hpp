#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

namespace detail {
// A comparison op: Rel gives the relation on values and on exact constants p/q.
template <class Rel>
struct compare_op : Rel {
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) {
    return Math::select(Rel::holds(a, b), V(1), V(0));
  }
  template <class A, class B, class G> static constexpr auto backward_a(A, B, G) { return Zero<A::dim>{}; }
  template <class A, class B, class G> static constexpr auto backward_b(A, B, G) { return Zero<B::dim>{}; }
};

// The node Rel(a, b), or the folded constant when both operands are constants.
template <class Rel, class A, class B>
constexpr auto make_comparison() {
  if constexpr (is_constant_v<A> && is_constant_v<B>)
    return make_constant<Rel::holds(A::num * B::den, B::num * A::den) ? 1 : 0, 1>();
  else
    return Binary<compare_op<Rel>, A, B>{};
}

struct equal_rel {
  static constexpr const char* name = "equal";
  static constexpr const char* keops_name = "Equal";
  template <class V> KOPS_HD KOPS_INLINE static constexpr auto holds(const V& a, const V& b) { return a == b; }
};
struct not_equal_rel {
  static constexpr const char* name = "not_equal";
  static constexpr const char* keops_name = "NotEqual";
  template <class V> KOPS_HD KOPS_INLINE static constexpr auto holds(const V& a, const V& b) { return a != b; }
};
struct less_than_rel {
  static constexpr const char* name = "less_than";
  static constexpr const char* keops_name = "LessThan";
  template <class V> KOPS_HD KOPS_INLINE static constexpr auto holds(const V& a, const V& b) { return a < b; }
};
struct less_or_equal_rel {
  static constexpr const char* name = "less_or_equal";
  static constexpr const char* keops_name = "LessOrEqual";
  template <class V> KOPS_HD KOPS_INLINE static constexpr auto holds(const V& a, const V& b) { return a <= b; }
};
} // namespace detail

using equal_op = detail::compare_op<detail::equal_rel>;
using not_equal_op = detail::compare_op<detail::not_equal_rel>;
using less_than_op = detail::compare_op<detail::less_than_rel>;
using less_or_equal_op = detail::compare_op<detail::less_or_equal_rel>;

/// Comparisons, 1 where the relation holds and 0 elsewhere, with {1, D} broadcasting:
/// ```text
///   equal(a, b)_k         = [a_k == b_k]      not_equal(a, b)_k = [a_k != b_k]
///   less_than(a, b)_k     = [a_k <  b_k]      less_or_equal(a, b)_k = [a_k <= b_k]
/// ```
/// IEEE comparisons: a NaN operand gives 0, except not_equal, which gives 1.
/// (KeOps has no "greater" forms: swap the operands.)
/// Derivative: zero (piecewise constant).
/// Simplifications: comparisons of two constants fold to 0 or 1.
template <Formula A, Formula B>
constexpr auto equal(A, B) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::equal: operand dims must be equal or one of them 1 (broadcasting)");
  return detail::make_comparison<detail::equal_rel, A, B>();
}

/// not_equal(a, b)_k = [a_k != b_k] (1 for a NaN operand), with {1, D} broadcasting: see equal().
template <Formula A, Formula B>
constexpr auto not_equal(A, B) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::not_equal: operand dims must be equal or one of them 1 (broadcasting)");
  return detail::make_comparison<detail::not_equal_rel, A, B>();
}

/// less_than(a, b)_k = [a_k < b_k], with {1, D} broadcasting: see equal().
template <Formula A, Formula B>
constexpr auto less_than(A, B) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::less_than: operand dims must be equal or one of them 1 (broadcasting)");
  return detail::make_comparison<detail::less_than_rel, A, B>();
}

/// less_or_equal(a, b)_k = [a_k <= b_k], with {1, D} broadcasting: see equal().
template <Formula A, Formula B>
constexpr auto less_or_equal(A, B) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::less_or_equal: operand dims must be equal or one of them 1 (broadcasting)");
  return detail::make_comparison<detail::less_or_equal_rel, A, B>();
}

} // namespace kops
