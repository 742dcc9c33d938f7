#pragma once

#include <kops/ops/divide.hpp>
#include <kops/ops/minus.hpp>

namespace kops {

namespace detail {
// For a constant c: 1 if c >= 0, -1 if c < 0; 0 for anything else.
template <class C> constexpr int constant_sign() {
  if constexpr (is_constant_v<C>) return C::num >= 0 ? 1 : -1;
  else return 0;
}
} // namespace detail

struct ifelse_op {
  static constexpr const char* name = "ifelse";
  static constexpr const char* keops_name = "IfElse";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& c, const V& a, const V& b) {
    return Math::select(c >= V(0), a, b);
  }
  // The derivative selects the derivatives of the branches (see ifelse below).
  template <class V, class G, class C, class A, class B> static constexpr auto vjp(V v, G g, C c, A, B) {
    constexpr int D = Ternary<ifelse_op, C, A, B>::dim;
    if constexpr (!depends_on_v<A, V> && !depends_on_v<B, V>) return Zero<V::dim>{};
    else if constexpr (C::dim == 1 || (detail::componentwise_operand<A, D, V> && detail::componentwise_operand<B, D, V>))
      return ifelse(c, grad_fit(A{}, v, g), grad_fit(B{}, v, g));
    else return grad_fit(A{}, v, ifelse(c, g, Zero<1>{})) + grad_fit(B{}, v, ifelse(c, Zero<1>{}, g));
  }
};

/// ifelse: ifelse(c, a, b)_k = a_k if c_k >= 0, else b_k (KeOps' IfElse; so
/// ifelse(0, a, b) = a, and a NaN c picks b). Dims: each of c, a, b is 1 or the
/// result's dim.
/// Derivative: c contributes nothing; it is the derivative of the branch taken,
/// selected (KeOps' rule), so that the derivative of the branch not taken never
/// enters the arithmetic (the gradient of ifelse(f, sqrt(f), f^3) at f < 0 is
/// 3 f^2 g, not 3 f^2 g + 0 / sqrt(f) = NaN):
/// ```text
///   [d_V ifelse(C, A, B)]^T g = ifelse(C, [d_V A]^T g, [d_V B]^T g)
/// ```
/// (a dim-1 branch's gradient summed over its broadcast, as grad_fit does). It is
/// exact when C has dim 1 (every component comes from the same branch) or when
/// each branch that reads V is componentwise in V (core/elementwise.hpp:
/// componentwise_v; e.g. any element-wise formula of V). Otherwise (a condition of
/// dim > 1 and a branch that mixes V's components: a sum, a dot, a dim-1 operand
/// that reads V broadcast) the gradient is routed to the branch taken instead,
/// [d_V A]^T ifelse(C, g, 0) + [d_V B]^T ifelse(C, 0, g): exact as well, but there
/// a NaN or infinite derivative of the branch not taken still gives 0 * inf = NaN.
/// Simplifications: ifelse(c, a, a) = a; ifelse(c, 0, 0) = 0; a constant c picks
/// its branch (when that branch has the result's dim).
template <Formula C, Formula A, Formula B>
constexpr auto ifelse(C, [[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(broadcastable(C::dim, A::dim, B::dim),
                "kops::ifelse: operand dims must each be 1 or the largest of the three (broadcasting)");
  constexpr int D = Ternary<ifelse_op, C, A, B>::dim;
  if constexpr (std::is_same_v<A, B> && A::dim == D) return a;
  else if constexpr (is_zero_v<A> && is_zero_v<B>) return Zero<D>{};
  else if constexpr (detail::constant_sign<C>() > 0 && A::dim == D) return a;
  else if constexpr (detail::constant_sign<C>() < 0 && B::dim == D) return b;
  else return Ternary<ifelse_op, C, A, B>{};
}

namespace detail {
// select_where(p, a, b): a where the 1/0 predicate p (a comparison, or a product
// of comparisons) is 1, else b; as ifelse(-p, b, a): -p is -1 or 0, and ifelse
// picks its first branch where the condition is >= 0. What the derivatives of the
// piecewise ops (clamp, clampint, relu, max, min, sinxdivx) select with.
template <class P, class A, class B> constexpr auto select_where(P p, A a, B b) { return ifelse(-p, b, a); }
} // namespace detail

} // namespace kops
