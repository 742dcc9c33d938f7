#pragma once

#include <kops/reductions/detail/extremum.hpp>
#include <kops/reductions/sum.hpp>

namespace kops {

struct argmin_op : detail::extremum_op<false, detail::extremum_output::index> {
  static constexpr const char* name = "argmin_reduction";
  static constexpr const char* keops_name = "ArgMin";
  // Piecewise constant: the gradient is zero.
  template <class Rq> static constexpr auto gradient(Rq) { return zero_gradient_t<Rq>{}; }
  template <class Rq> static constexpr auto forward(Rq) { return zero_forward_t<Rq>{}; }
};

/// argmin_reduction(f, axis): index of the component-wise minimum over the axis, as std::int64_t (dim f indices). Gradient: zero.
/// See reductions/detail/extremum.hpp for NaN, ties and empty ranges.
template <class F, class A>
constexpr auto argmin_reduction(F, A) {
  static_assert(Formula<F>, "kops::argmin_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::argmin_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::argmin_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<argmin_op, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
