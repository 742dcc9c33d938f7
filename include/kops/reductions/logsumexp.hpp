#pragma once

#include <kops/ops/concat.hpp>
#include <kops/reductions/detail/expsum.hpp>

namespace kops {

struct logsumexp_op : detail::expsum_op<detail::lse_fin> {
  static constexpr const char* name = "logsumexp_reduction";
  static constexpr const char* keops_name = "LogSumExp";
  static constexpr bool weighted = false;
};
struct logsumexp_weight_op : detail::expsum_op<detail::lse_fin> {
  static constexpr const char* name = "logsumexp_reduction";
  static constexpr const char* keops_name = "LogSumExp";
  static constexpr bool weighted = true;  // formula = concat(f, g): prints as (f, g)
};

/// logsumexp_reduction(f, axis):    out = log sum exp(f)        (dim f = 1, dim out = 1)
/// logsumexp_reduction(f, g, axis): out_k = log sum exp(f) g_k  (dim f = 1, dim out = dim g)
/// computed stably (running maximum and shifted sums: reductions/detail/expsum.hpp).
/// An empty range gives -inf. A weighted sum that is <= 0 gives NaN/-inf, as log does.
/// Gradient: w.r.t. row variables and parameters (autodiff/reduction_grad.hpp):
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
  }
}

} // namespace kops
