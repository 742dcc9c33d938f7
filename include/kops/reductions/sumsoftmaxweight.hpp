#pragma once

#include <kops/ops/add.hpp>
#include <kops/ops/concat.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/extract.hpp>
#include <kops/ops/mult.hpp>
#include <kops/ops/subtract.hpp>
#include <kops/ops/sum.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/detail/expsum.hpp>
#include <kops/reductions/sum.hpp>

namespace kops {

struct sumsoftmaxweight_op : detail::expsum_op<detail::softmax_fin> {
  static constexpr const char* name = "sumsoftmaxweight_reduction";
  static constexpr const char* keops_name = "SumSoftMaxWeight";
  static constexpr bool weighted = true;

  // Gradient (identities below): w.r.t. row variables and parameters, another
  // shifted-exponential sum; w.r.t. a variable of the reduced axis, two passes
  // (Chained): O = (log sum exp f, out) of every output row first, then, with
  // p = exp(f - O_0) the softmax weights, a sum over the other axis of
  //   [d_V f]^T p (g . e - out . e) + [d_V g]^T (p e).
  template <class Rq>
  static constexpr auto gradient(Rq) {
    using F = typename Rq::formula;
    using V = typename Rq::var;
    using E = typename Rq::input;
    using F1 = operand_t<F, 0>;  // the exponent f
    using G = operand_t<F, 1>;   // the weight g
    if constexpr (Rq::reduced) {
      using First = Reduction<detail::lse_softmax_op, F, typename Rq::axis, Rq::arity>;
      using O = Var<Rq::row_cat, Rq::arity, First::dim>;
      const auto p = exp(F1{} - elem<0>(O{}));
      const auto o = extract<1, G::dim>(O{});
      using H = decltype(grad(F1{}, V{}, p * (sum(G{} * E{}) - sum(o * E{}))) + grad(G{}, V{}, p * E{}));
      if constexpr (is_zero_v<H>) return zero_gradient_t<Rq>{};
      else return Chained<First, Reduction<sum_op, H, typename Rq::grad_axis, Rq::arity + 1>>{};
    } else {
      const auto ge = sum(G{} * E{});
      using H = decltype(detail::concat_all(ge, grad(F1{}, V{}, ge) + grad(G{}, V{}, E{}), grad(F1{}, V{}, IntConst<1>{})));
      return Reduction<detail::sumsoftmaxweight_grad_op<V::dim>, Concat<F1, H>, typename Rq::axis, Rq::arity>{};
    }
  }
  // Forward mode (kops::diff), with <.> the softmax average:
  //   d out = <df g + dg> - <df> <g>,
  // the layout of the gradient's reduction (sumsoftmaxweight_grad_op) with
  // h = (df, df g + dg, g): one pass, for a variable of either axis.
  template <class Rq>
  static constexpr auto forward(Rq) {
    using F1 = operand_t<typename Rq::formula, 0>;
    using G = operand_t<typename Rq::formula, 1>;
    using V = typename Rq::var;
    using U = typename Rq::direction;
    using DF = decltype(diff(F1{}, V{}, U{}));
    using DG = decltype(diff(G{}, V{}, U{}));
    if constexpr (is_zero_v<DF> && is_zero_v<DG>) {
      return zero_forward_t<Rq>{};
    } else if constexpr (is_zero_v<DF>) {
      return Reduction<sumsoftmaxweight_op, Concat<F1, DG>, typename Rq::axis, Rq::arity>{};
    } else {
      using H = decltype(detail::concat_all(DF{}, DF{} * G{} + DG{}, G{}));
      return Reduction<detail::sumsoftmaxweight_grad_op<G::dim>, Concat<F1, H>, typename Rq::axis, Rq::arity>{};
    }
  }
};

/// sumsoftmaxweight_reduction(f, g, axis): out = sum softmax(f) g = sum exp(f) g / sum exp(f)
/// (dim f = 1, dim out = dim g): attention. Computed stably (running maximum and
/// shifted sums: reductions/detail/expsum.hpp); an empty range gives 0.
/// Gradient w.r.t. row variables and parameters (sumsoftmaxweight_op::gradient above), with p = softmax(f):
/// ```text
///   d(out . e) = sum p [(g . e) df + dg^T e] - (sum p (g . e)) (sum p df).
/// ```
template <class F, class G, class A>
constexpr auto sumsoftmaxweight_reduction(F, G, A) {
  static_assert(Formula<F> && Formula<G>, "kops::sumsoftmaxweight_reduction: f and g must be kops formulas");
  static_assert(Axis<A>, "kops::sumsoftmaxweight_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Formula<G> && Axis<A>) {
    static_assert(F::dim == 1, "kops::sumsoftmaxweight_reduction: the formula f must have dim 1");
    static_assert(valid_reduction_formula_v<Concat<F, G>>,
                  "kops::sumsoftmaxweight_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<sumsoftmaxweight_op, Concat<F, G>, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
