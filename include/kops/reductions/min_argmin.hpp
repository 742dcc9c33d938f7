#pragma once

#include <kops/reductions/detail/extremum.hpp>

namespace kops {

struct min_argmin_op : detail::extremum_op<false, detail::extremum_output::both> {
  static constexpr const char* name = "min_argmin_reduction";
  static constexpr const char* keops_name = "Min_ArgMin";
};

/// min_argmin_reduction(f, axis): the component-wise minimum over the axis and
/// the index where it is reached, together: dim f kops::value_index<T> per output
/// row (reductions/value_index.hpp). Same NaN, tie and empty-range rules as
/// min_reduction and argmin_reduction (reductions/detail/extremum.hpp).
/// Gradient: none (as KeOps); differentiate min_reduction instead.
template <class F, class A>
constexpr auto min_argmin_reduction(F, A) {
  static_assert(Formula<F>, "kops::min_argmin_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::min_argmin_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::min_argmin_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<min_argmin_op, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
