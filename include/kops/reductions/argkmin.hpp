#pragma once

#include <kops/reductions/detail/ksmallest.hpp>
#include <kops/reductions/sum.hpp>

namespace kops {

template <int K>
struct argkmin_op : detail::ksmallest_op<K, detail::ksmallest_output::indices> {
  static constexpr const char* name = "argkmin_reduction";
  static constexpr const char* keops_name = "ArgKMin";
  // Piecewise constant: the gradient is zero.
  template <class Rq> static constexpr auto gradient(Rq) { return zero_gradient_t<Rq>{}; }
  template <class Rq> static constexpr auto forward(Rq) { return zero_forward_t<Rq>{}; }
};

/// argkmin_reduction<K>(f, axis): the indices (std::int64_t) of the K smallest values of each component over the axis, in the order of kmin_reduction: K * dim f indices per output row. Gradient: zero.
/// Order, ties (first index first), NaN (last) and the K <= range-size rule
/// (kops::error otherwise): reductions/detail/ksmallest.hpp.
template <int K, class F, class A>
constexpr auto argkmin_reduction(F, A) {
  static_assert(K >= 1, "kops::argkmin_reduction: K must be at least 1");
  static_assert(Formula<F>, "kops::argkmin_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::argkmin_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (K >= 1 && Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::argkmin_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<argkmin_op<K>, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
