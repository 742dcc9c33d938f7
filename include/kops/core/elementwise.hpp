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
// apply and backward_a / backward_b / backward_c). Dimension rules are checked
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

  // Reverse mode: [d_V Op(F)]^T g = [d_V F]^T Op::backward(F, g).
  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, Op::backward(F{}, g));
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
  // dim-1 operand was broadcast to.
  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad_fit(A{}, v, Op::backward_a(A{}, B{}, g)) +
           grad_fit(B{}, v, Op::backward_b(A{}, B{}, g));
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
  // dim-1 operand was broadcast to.
  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
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
