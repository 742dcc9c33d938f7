#pragma once

#include <kops/reductions/detail/extremum.hpp>
#include <kops/reductions/sum.hpp>

namespace kops {

struct argmax_op : detail::extremum_op<true, detail::extremum_output::index> {
  static constexpr const char* name = "argmax_reduction";
  static constexpr const char* keops_name = "ArgMax";
  // Piecewise constant: the gradient is zero.
  template <class Rq> static constexpr auto gradient(Rq) { return zero_gradient_t<Rq>{}; }
  template <class Rq> static constexpr auto forward(Rq) { return zero_forward_t<Rq>{}; }
};

/// argmax_reduction(f, axis): index of the component-wise maximum over the axis, as std::int64_t (dim f indices). Gradient: zero.
/// See reductions/detail/extremum.hpp for NaN, ties and empty ranges.
template <class F, class A>
constexpr auto argmax_reduction(F, A) {
  static_assert(Formula<F>, "kops::argmax_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::argmax_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::argmax_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<argmax_op, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
