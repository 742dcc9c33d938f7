// Generic element-wise nodes. An op is a small tag struct:
//   struct exp_op {
//     static constexpr const char* name = "exp";        // kops::to_string
//     static constexpr const char* keops_name = "Exp";  // KeOps syntax
//     template <class M, class V> static V apply(const V& a);   // M: math provider
//   };
// Unary<Op, F> applies it to every component of F; Binary<Op, A, B> pairs the
// components of A and B under the {1, D} broadcasting rule (dims equal, or one
// of them 1). Dimension rules are checked once, in the builders (ops/*.hpp).
#pragma once

#include <kops/core/formula.hpp>

namespace kops {

template <class Op, Formula F>
struct Unary : formula_node {
  static constexpr int dim = F::dim;
  using op = Op;
  using children = type_list<F>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    auto a = F::eval(ctx);
    for (int k = 0; k < dim; ++k) a[k] = Op::template apply<math_t<Ctx>>(a[k]);
    return a;
  }
};

template <class Op, Formula A, Formula B>
struct Binary : formula_node {
  static constexpr int dim = A::dim > B::dim ? A::dim : B::dim;
  using op = Op;
  using children = type_list<A, B>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim; ++k) r[k] = Op::template apply<math_t<Ctx>>(bcast(a, k), bcast(b, k));
    return r;
  }
};

// True when two dims can be combined element-wise.
inline constexpr bool broadcastable(int a, int b) { return a == b || a == 1 || b == 1; }

} // namespace kops
