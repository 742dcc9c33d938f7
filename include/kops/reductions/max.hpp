#pragma once

#include <kops/reductions/detail/extremum.hpp>
#include <kops/reductions/detail/payload.hpp>

namespace kops {

struct max_op : detail::extremum_op<true, detail::extremum_output::value> {
  static constexpr const char* name = "max_reduction";
  static constexpr const char* keops_name = "Max";
  // One-hot at the arg (KeOps has none): reductions/detail/payload.hpp.
  template <class Rq> static constexpr auto gradient(Rq) { return detail::extremum_gradient<true>(Rq{}); }
  template <class Rq> static constexpr auto forward(Rq) { return detail::extremum_forward<true>(Rq{}); }
};

/// max_reduction(f, axis): component-wise maximum over the axis (dim f values).
/// See reductions/detail/extremum.hpp for NaN, ties and empty ranges.
template <class F, class A>
constexpr auto max_reduction(F, A) {
  static_assert(Formula<F>, "kops::max_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::max_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::max_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<max_op, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
