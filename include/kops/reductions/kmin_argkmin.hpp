#pragma once

#include <kops/reductions/detail/ksmallest.hpp>

namespace kops {

template <int K>
struct kmin_argkmin_op : detail::ksmallest_op<K, detail::ksmallest_output::both> {
  static constexpr const char* name = "kmin_argkmin_reduction";
  static constexpr const char* keops_name = "KMin_ArgKMin";
};

/// kmin_argkmin_reduction<K>(f, axis): kmin and argkmin together: K * dim f kops::value_index<T> per output row.
/// Order, ties (first index first), NaN (last) and the K <= range-size rule
/// (kops::error otherwise): reductions/detail/ksmallest.hpp.
template <int K, class F, class A>
constexpr auto kmin_argkmin_reduction(F, A) {
  static_assert(K >= 1, "kops::kmin_argkmin_reduction: K must be at least 1");
  static_assert(Formula<F>, "kops::kmin_argkmin_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::kmin_argkmin_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (K >= 1 && Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::kmin_argkmin_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<kmin_argkmin_op<K>, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
