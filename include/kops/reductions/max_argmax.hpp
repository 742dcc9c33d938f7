#pragma once

#include <kops/reductions/detail/extremum.hpp>

namespace kops {

struct max_argmax_op : detail::extremum_op<true, detail::extremum_output::both> {
  static constexpr const char* name = "max_argmax_reduction";
  static constexpr const char* keops_name = "Max_ArgMax";
};

/// max_argmax_reduction(f, axis): the component-wise maximum over the axis and
/// the index where it is reached, together: dim f kops::value_index<T> per output
/// row (reductions/value_index.hpp). Same NaN, tie and empty-range rules as
/// max_reduction and argmax_reduction (reductions/detail/extremum.hpp).
/// Gradient: none (as KeOps); differentiate max_reduction instead.
template <class F, class A>
constexpr auto max_argmax_reduction(F, A) {
  static_assert(Formula<F>, "kops::max_argmax_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::max_argmax_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::max_argmax_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<max_argmax_op, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
