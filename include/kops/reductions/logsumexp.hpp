#pragma once

#include <utility>

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
#include <kops/reductions/sumsoftmaxweight.hpp>

namespace kops {

namespace detail {
// The gradient of a logsumexp (Op, weighted or not; g = 1 unweighted) w.r.t. a
// variable V of the reduced axis, in two passes (Chained): the forward result
// O of every output row first, then, with w_k = e_k exp(f - O_k), a sum over
// the other axis of [d_V f]^T (w . g) + [d_V g]^T w.
template <class Op, class Rq>
constexpr auto lse_gradient_reduced() {
  using F1 = typename expsum_parts<Op::weighted, typename Rq::formula>::f;
  using G = typename expsum_parts<Op::weighted, typename Rq::formula>::g;
  using V = typename Rq::var;
  using First = Reduction<Op, typename Rq::formula, typename Rq::axis, Rq::arity>;
  using O = Var<Rq::row_cat, Rq::arity, First::dim>;
  const auto w = typename Rq::input{} * exp(F1{} - O{});
  using H = decltype(grad(F1{}, V{}, sum(w * G{})) + grad(G{}, V{}, w));
  if constexpr (is_zero_v<H>) return zero_gradient_t<Rq>{};
  else return Chained<First, Reduction<sum_op, H, typename Rq::grad_axis, Rq::arity + 1>>{};
}
} // namespace detail

struct logsumexp_op : detail::expsum_op<detail::lse_fin> {
  static constexpr const char* name = "logsumexp_reduction";
  static constexpr const char* keops_name = "LogSumExp";
  static constexpr bool weighted = false;

  // Gradient (identities below): w.r.t. row variables and parameters, the
  // softmax-weighted sum of [d_V f]^T e; w.r.t. the reduced axis, two passes.
  template <class Rq>
  static constexpr auto gradient(Rq) {
    if constexpr (Rq::reduced) {
      return detail::lse_gradient_reduced<logsumexp_op, Rq>();
    } else {
      using F = typename Rq::formula;
      using H = decltype(grad(F{}, typename Rq::var{}, typename Rq::input{}));
      if constexpr (is_zero_v<H>) return zero_gradient_t<Rq>{};
      else return Reduction<sumsoftmaxweight_op, Concat<F, H>, typename Rq::axis, Rq::arity>{};
    }
  }
  // Forward mode (kops::diff): d log sum exp(f) = sum softmax(f) df, a
  // softmax-weighted sum of the derivative, for a variable of either axis.
  template <class Rq>
  static constexpr auto forward(Rq) {
    using F = typename Rq::formula;
    using H = decltype(diff(F{}, typename Rq::var{}, typename Rq::direction{}));
    if constexpr (is_zero_v<H>) return zero_forward_t<Rq>{};
    else return Reduction<sumsoftmaxweight_op, Concat<F, H>, typename Rq::axis, Rq::arity>{};
  }
};
struct logsumexp_weight_op : detail::expsum_op<detail::lse_fin> {
  static constexpr const char* name = "logsumexp_reduction";
  static constexpr const char* keops_name = "LogSumExp";
  static constexpr bool weighted = true;  // formula = concat(f, g): prints as (f, g)

  // Gradient: w.r.t. row variables and parameters, h = (g, n_0, ..., n_{Dg-1}),
  // n_c = [d_V g_c]^T e_c + [d_V f]^T (e_c g_c), reduced by
  // reductions/detail/expsum.hpp's logsumexp_grad_op; w.r.t. the reduced axis,
  // two passes.
  template <class Rq>
  static constexpr auto gradient(Rq) {
    if constexpr (Rq::reduced) {
      return detail::lse_gradient_reduced<logsumexp_weight_op, Rq>();
    } else {
      using F1 = operand_t<typename Rq::formula, 0>;
      using G = operand_t<typename Rq::formula, 1>;
      using V = typename Rq::var;
      using E = typename Rq::input;
      constexpr auto n = [](auto k) {
        constexpr int c = decltype(k)::value;
        return grad(elem<c>(G{}), V{}, elem<c>(E{})) + grad(F1{}, V{}, elem<c>(E{}) * elem<c>(G{}));
      };
      using H = decltype([&]<int... K>(std::integer_sequence<int, K...>) {
        return detail::concat_all(G{}, n(std::integral_constant<int, K>{})...);
      }(std::make_integer_sequence<int, G::dim>{}));
      return Reduction<detail::logsumexp_grad_op<G::dim, V::dim>, Concat<F1, H>, typename Rq::axis, Rq::arity>{};
    }
  }
  // Forward mode (kops::diff): d log sum exp(f) g_k = sum exp(f) (g_k df + dg_k) /
  // sum exp(f) g_k, one shifted-exponential sum with h = (g, g df + dg).
  template <class Rq>
  static constexpr auto forward(Rq) {
    using F1 = operand_t<typename Rq::formula, 0>;
    using G = operand_t<typename Rq::formula, 1>;
    using V = typename Rq::var;
    using U = typename Rq::direction;
    using H = decltype(G{} * diff(F1{}, V{}, U{}) + diff(G{}, V{}, U{}));
    if constexpr (is_zero_v<H>) return zero_forward_t<Rq>{};
    else return Reduction<detail::logsumexp_diff_op<G::dim>, Concat<F1, decltype(detail::concat_all(G{}, H{}))>,
                           typename Rq::axis, Rq::arity>{};
  }
};

/// logsumexp_reduction(f, axis):    out = log sum exp(f)        (dim f = 1, dim out = 1)
/// logsumexp_reduction(f, g, axis): out_k = log sum exp(f) g_k  (dim f = 1, dim out = dim g)
/// computed stably (running maximum and shifted sums: reductions/detail/expsum.hpp).
/// An empty range gives -inf. A weighted sum that is <= 0 gives NaN/-inf, as log does.
/// Gradient: w.r.t. row variables and parameters (logsumexp_op::gradient above):
/// ```text
///   d log sum exp(f) = sum softmax(f) df,  d log sum exp(f) g_k = sum exp(f) (g_k df + dg_k) / sum exp(f) g_k.
/// ```
template <class F, class A>
constexpr auto logsumexp_reduction(F, A) {
  static_assert(Formula<F>, "kops::logsumexp_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::logsumexp_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Axis<A>) {
    static_assert(F::dim == 1, "kops::logsumexp_reduction: the formula must have dim 1");
    static_assert(valid_reduction_formula_v<F>,
                  "kops::logsumexp_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<logsumexp_op, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

/// logsumexp_reduction(f, g, axis): out_k = log sum exp(f) g_k (dim f = 1, dim out = dim g),
/// the weighted form: see logsumexp_reduction(f, axis).
template <class F, class G, class A>
constexpr auto logsumexp_reduction(F, G, A) {
  static_assert(Formula<F> && Formula<G>, "kops::logsumexp_reduction: f and the weight g must be kops formulas");
  static_assert(Axis<A>, "kops::logsumexp_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Formula<G> && Axis<A>) {
    static_assert(F::dim == 1, "kops::logsumexp_reduction: the formula must have dim 1");
    static_assert(valid_reduction_formula_v<Concat<F, G>>,
                  "kops::logsumexp_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<logsumexp_weight_op, Concat<F, G>, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
