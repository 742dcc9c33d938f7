#pragma once

#include <kops/ops/concat.hpp>
#include <kops/reductions/detail/expsum.hpp>

namespace kops {

struct sumsoftmaxweight_op : detail::expsum_op<detail::softmax_fin> {
  static constexpr const char* name = "sumsoftmaxweight_reduction";
  static constexpr const char* keops_name = "SumSoftMaxWeight";
  static constexpr bool weighted = true;
};

/// sumsoftmaxweight_reduction(f, g, axis): out = sum softmax(f) g = sum exp(f) g / sum exp(f)
/// (dim f = 1, dim out = dim g): attention. Computed stably (running maximum and
/// shifted sums: reductions/detail/expsum.hpp); an empty range gives NaN (0/0).
/// Gradient w.r.t. row variables and parameters (autodiff/reduction_grad.hpp), with p = softmax(f):
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
  }
}

} // namespace kops
