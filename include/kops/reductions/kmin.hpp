#pragma once

#include <kops/reductions/detail/ksmallest.hpp>

namespace kops {

template <int K>
struct kmin_op : detail::ksmallest_op<K, detail::ksmallest_output::values> {
  static constexpr const char* name = "kmin_reduction";
  static constexpr const char* keops_name = "KMin";
};

/// kmin_reduction<K>(f, axis): the K smallest values of each component over the axis, sorted ascending: K * dim f values per output row, out[row, k * dim f + d].
/// Order, ties (first index first), NaN (last) and the K <= range-size rule
/// (kops::error otherwise): reductions/detail/ksmallest.hpp.
template <int K, class F, class A>
constexpr auto kmin_reduction(F, A) {
  static_assert(K >= 1, "kops::kmin_reduction: K must be at least 1");
  static_assert(Formula<F>, "kops::kmin_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::kmin_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (K >= 1 && Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::kmin_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<kmin_op<K>, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
