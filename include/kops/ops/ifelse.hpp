#pragma once

#include <kops/ops/comparisons.hpp>
#include <kops/ops/divide.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/sum.hpp>

namespace kops {

namespace detail {
// For a constant c: 1 if c >= 0, -1 if c < 0; 0 for anything else.
template <class C> constexpr int constant_sign() {
  if constexpr (is_constant_v<C>) return C::num >= 0 ? 1 : -1;
  else return 0;
}
// The gradient of a selection's operand for the cotangent kept where a predicate
// holds (defined below, after ifelse).
template <int D, class P, class X, class V, class H> constexpr auto grad_where_operand(P p, X x, V v, H h);
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
    else {
      const auto first = less_or_equal(Zero<1>{}, c);  // 1 where c >= 0, 0 elsewhere (NaN included)
      return detail::grad_where_operand<D>(first, A{}, v, g) + detail::grad_where_operand<D>(cst<1> - first, B{}, v, g);
    }
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
/// that reads V broadcast) the gradient is the same sum routed to the branch taken,
/// [d_V A]^T ([C >= 0] g) + [d_V B]^T ([C < 0] g), with the selection moved as far
/// down each branch as it goes (detail::grad_where below): through its element-wise
/// nodes, after their local factors, and around what mixes components (a whole
/// operand whose derivative no component takes is 0, never evaluated).
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

// any_of(p): 1 where some component of the 1/0 predicate p is 1 (dim 1).
template <class P> constexpr auto any_of(P p) {
  if constexpr (P::dim == 1) return p;
  else return less_than(Zero<1>{}, sum(p));
}

// grad_where(p, f, v, g) = [d_V F]^T (p g): the gradient of F for the cotangent g
// kept where the 1/0 predicate p is 1 (p of dim 1 or F's; a selection took F's
// components there), built so that the derivative of what is not taken never
// enters the arithmetic, as far as the formula allows:
//  - p of dim 1 (the whole row taken or not), or F componentwise in V (diagonal
//    Jacobian): select_where(p, [d_V F]^T g, 0), a selection of derivatives;
//  - an element-wise node (no rule of its own): through it, g times the op's local
//    factors, the predicate applied below them (0 * inf never formed there); an
//    operand broadcast from dim 1 takes sum(p g), and only if some component takes
//    it: select_where(any_of(p), [d_V X]^T sum(select_where(p, g', 0)), 0);
//  - anything else (a sum, a dot, a matrix product, a node that selects itself):
//    select_where(any_of(p), [d_V F]^T select_where(p, g, 0), 0), which mixes the
//    components' cotangents as F's derivative does.
template <class P, class F, class V, class G> constexpr auto grad_where(P p, F f, V v, G g);

template <class P, class F, class V, class G> constexpr auto grad_where_mixed(P p, F f, V v, G g) {
  return select_where(any_of(p), grad(f, v, select_where(p, g, Zero<1>{})), Zero<1>{});
}

// An operand X of an element-wise node of dim D, for the cotangent h (dim D).
template <int D, class P, class X, class V, class H> constexpr auto grad_where_operand(P p, X x, V v, H h) {
  if constexpr (!depends_on_v<X, V> || is_zero_v<H>) return Zero<V::dim>{};
  else if constexpr (X::dim == D) return grad_where(p, x, v, h);
  else return select_where(any_of(p), grad_fit(x, v, select_where(p, h, Zero<1>{})), Zero<1>{});
}

template <class P, class F, class V, class G> constexpr auto grad_where_node(P p, F f, V v, G g) {
  return grad_where_mixed(p, f, v, g);
}
template <class P, class Op, class X, class V, class G>
constexpr auto grad_where_node(P p, Unary<Op, X> f, V v, G g) {
  if constexpr (requires { Op::vjp(v, g, X{}); }) return grad_where_mixed(p, f, v, g);
  else return grad_where_operand<Unary<Op, X>::dim>(p, X{}, v, Op::backward(X{}, g));
}
template <class P, class Op, class A, class B, class V, class G>
constexpr auto grad_where_node(P p, Binary<Op, A, B> f, V v, G g) {
  constexpr int D = Binary<Op, A, B>::dim;
  if constexpr (requires { Op::vjp(v, g, A{}, B{}); }) return grad_where_mixed(p, f, v, g);
  else
    return grad_where_operand<D>(p, A{}, v, Op::backward_a(A{}, B{}, g)) +
           grad_where_operand<D>(p, B{}, v, Op::backward_b(A{}, B{}, g));
}
template <class P, class Op, class A, class B, class C, class V, class G>
constexpr auto grad_where_node(P p, Ternary<Op, A, B, C> f, V v, G g) {
  constexpr int D = Ternary<Op, A, B, C>::dim;
  if constexpr (requires { Op::vjp(v, g, A{}, B{}, C{}); }) return grad_where_mixed(p, f, v, g);
  else
    return grad_where_operand<D>(p, A{}, v, Op::backward_a(A{}, B{}, C{}, g)) +
           grad_where_operand<D>(p, B{}, v, Op::backward_b(A{}, B{}, C{}, g)) +
           grad_where_operand<D>(p, C{}, v, Op::backward_c(A{}, B{}, C{}, g));
}

template <class P, class F, class V, class G> constexpr auto grad_where(P p, F f, V v, G g) {
  if constexpr (!depends_on_v<F, V> || is_zero_v<G>) return Zero<V::dim>{};
  else if constexpr (P::dim == 1 || componentwise_v<F, V>) return select_where(p, grad(f, v, g), Zero<1>{});
  else return grad_where_node(p, f, v, g);
}
} // namespace detail

} // namespace kops
