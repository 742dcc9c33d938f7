// Generic element-wise nodes. An op is a small tag struct:
//   struct exp_op {
//     static constexpr const char* name = "exp";        // kops::to_string
//     static constexpr const char* keops_name = "Exp";  // KeOps syntax
//     template <class Math, class V> static V apply(const V& a);   // Math: math provider
//     static constexpr auto backward(F f, G g);         // [d f Op]^T g, as a formula
//   };
// Unary<Op, F> applies it to every component of F; Binary<Op, A, B> pairs the
// components of A and B under the {1, D} broadcasting rule (dims equal, or one
// of them 1); Ternary<Op, A, B, C> does the same with three operands, each of
// dim 1 or of the result's dim (clamp, mod, ifelse: tags with a three-argument
// apply and backward_a / backward_b / backward_c). An op that selects between its
// operands (ifelse, clamp, relu, ...) states its whole rule instead, as
//     template <class V, class G> static constexpr auto vjp(V v, G g, operands...);
// so that it can select derivatives, ifelse(c, [d_V A]^T g, [d_V B]^T g), rather
// than multiply the derivative of the branch not taken by 0 (which is NaN when
// that derivative is infinite or NaN there: sqrt at 0, log at 0, 1/x at 0; see
// componentwise_v below for when selecting is exact). Dimension rules are checked
// once, in the builders (ops/*.hpp), which also simplify; these node types are
// what the builders return when no rule applies.
//
// The derivative rules (vjp) recurse through the autodiff entry points grad and
// grad_fit (autodiff/grad.hpp), found by argument-dependent lookup when a
// gradient is taken: core names nothing above it.
#pragma once

#include <kops/core/formula.hpp>

namespace kops {

template <class Op, Formula F>
struct Unary : formula_node {
  static constexpr int dim = F::dim;
  using op = Op;
  using children = type_list<F>;
  template <class C> using rebind = Unary<Op, C>;  // the same node over other operands

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    auto a = F::eval(ctx);
    for (int k = 0; k < dim; ++k) a[k] = Op::template apply<math_t<Ctx>>(a[k]);
    return a;
  }

  // Reverse mode: [d_V Op(F)]^T g = [d_V F]^T Op::backward(F, g), or the op's own rule.
  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    if constexpr (requires { Op::vjp(v, g, F{}); }) return Op::vjp(v, g, F{});
    else return grad(F{}, v, Op::backward(F{}, g));
  }
};

template <class Op, Formula A, Formula B>
struct Binary : formula_node {
  static constexpr int dim = A::dim > B::dim ? A::dim : B::dim;
  using op = Op;
  using children = type_list<A, B>;
  template <class C1, class C2> using rebind = Binary<Op, C1, C2>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim; ++k) r[k] = Op::template apply<math_t<Ctx>>(bcast(a, k), bcast(b, k));
    return r;
  }

  // Reverse mode: the two partial gradients, each summed over the components a
  // dim-1 operand was broadcast to (or the op's own rule).
  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    if constexpr (requires { Op::vjp(v, g, A{}, B{}); }) return Op::vjp(v, g, A{}, B{});
    else return grad_fit(A{}, v, Op::backward_a(A{}, B{}, g)) + grad_fit(B{}, v, Op::backward_b(A{}, B{}, g));
  }
};

template <class Op, Formula A, Formula B, Formula C>
struct Ternary : formula_node {
  static constexpr int dim_ab = A::dim > B::dim ? A::dim : B::dim;
  static constexpr int dim = dim_ab > C::dim ? dim_ab : C::dim;
  using op = Op;
  using children = type_list<A, B, C>;
  template <class C1, class C2, class C3> using rebind = Ternary<Op, C1, C2, C3>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    const auto c = C::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim; ++k)
      r[k] = Op::template apply<math_t<Ctx>>(bcast(a, k), bcast(b, k), bcast(c, k));
    return r;
  }

  // Reverse mode: the three partial gradients, each summed over the components a
  // dim-1 operand was broadcast to (or the op's own rule: ifelse, clamp).
  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    if constexpr (requires { Op::vjp(v, g, A{}, B{}, C{}); }) return Op::vjp(v, g, A{}, B{}, C{});
    else
      return grad_fit(A{}, v, Op::backward_a(A{}, B{}, C{}, g)) +
             grad_fit(B{}, v, Op::backward_b(A{}, B{}, C{}, g)) +
             grad_fit(C{}, v, Op::backward_c(A{}, B{}, C{}, g));
  }
};

// F is an element-wise node of the op Op.
template <class F, class Op> inline constexpr bool is_op_v = false;
template <class Op, class F> inline constexpr bool is_op_v<Unary<Op, F>, Op> = true;
template <class Op, class A, class B> inline constexpr bool is_op_v<Binary<Op, A, B>, Op> = true;
template <class Op, class A, class B, class C> inline constexpr bool is_op_v<Ternary<Op, A, B, C>, Op> = true;

namespace detail {
template <class F, class V> struct componentwise {
  static constexpr bool value = std::is_same_v<F, V> || !depends_on_v<F, V>;
};
// An operand X of an element-wise node of dim D: it does not read V, or it has
// dim D (no broadcast) and is componentwise in V itself.
template <class X, int D, class V>
inline constexpr bool componentwise_operand = !depends_on_v<X, V> || (X::dim == D && componentwise<X, V>::value);
template <class Op, class F, class V> struct componentwise<Unary<Op, F>, V> {
  static constexpr bool value = componentwise_operand<F, F::dim, V>;
};
template <class Op, class A, class B, class V> struct componentwise<Binary<Op, A, B>, V> {
  static constexpr int D = Binary<Op, A, B>::dim;
  static constexpr bool value = componentwise_operand<A, D, V> && componentwise_operand<B, D, V>;
};
template <class Op, class A, class B, class C, class V> struct componentwise<Ternary<Op, A, B, C>, V> {
  static constexpr int D = Ternary<Op, A, B, C>::dim;
  static constexpr bool value =
      componentwise_operand<A, D, V> && componentwise_operand<B, D, V> && componentwise_operand<C, D, V>;
};
} // namespace detail

/// componentwise_v<F, V>: component k of F reads the variable V through V's
/// component k alone: F does not read V, or is V, or is an element-wise node
/// (Unary, Binary, Ternary) whose operands that read V have F's dim (none is
/// broadcast) and are componentwise in V. The Jacobian d_V F is then diagonal
/// (F and V have the same dim), so component k of [d_V F]^T g is
/// (dF_k / dV_k) g_k: selecting components after the product,
/// ifelse(c, [d_V A]^T g, [d_V B]^T g), is the derivative of ifelse(c, A, B)
/// exactly, for a condition c of any dim. (A sum, an extract, a matrix product
/// ... on the way to V mixes components: not componentwise.)
template <class F, class V>
inline constexpr bool componentwise_v = detail::componentwise<F, V>::value;

// The K-th operand of a node.
template <class F, int K> using operand_t = typename F::children::template at<K>;

// True when two dims can be combined element-wise.
inline constexpr bool broadcastable(int a, int b) { return a == b || a == 1 || b == 1; }
// True when three dims can be combined element-wise: each is 1 or the largest.
inline constexpr bool broadcastable(int a, int b, int c) {
  const int d = a > b ? (a > c ? a : c) : (b > c ? b : c);
  return (a == 1 || a == d) && (b == 1 || b == d) && (c == 1 || c == d);
}

} // namespace kops
