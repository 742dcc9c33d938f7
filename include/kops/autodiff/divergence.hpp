#pragma once

#include <utility>

#include <kops/autodiff/grad.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/extract.hpp>

namespace kops {

namespace detail {
template <class F, class V, int... K>
constexpr auto jacobian_trace(std::integer_sequence<int, K...>) {
  return (Zero<1>{} + ... + elem<K>(grad(F{}, V{}, elem_t<F::dim, K>(cst<1>))));
}
} // namespace detail

/// divergence(f, v): the trace of the Jacobian of f with respect to v, for f
/// and v of the same dim D:
///
/// ```text
///   divergence(f, v) = sum_k d f_k / d v_k, dim 1   (KeOps: Divergence(f, v))
/// ```
///
/// Built as sum_k elem<k>(grad(f, v, e_k)), e_k the k-th standard basis
/// vector: component k of the k-th row of the Jacobian. D reverse passes; the
/// components each pass computes and the sum discards are dead code that the
/// compiler removes once the formula is inlined. A composition; its derivatives
/// follow.
template <class F, class V>
constexpr auto divergence(F, V) {
  static_assert(Formula<F>, "kops::divergence: the first argument must be a kops formula");
  static_assert(Variable<V>, "kops::divergence: the second argument must be a variable (vi, vj or pm)");
  if constexpr (Formula<F> && Variable<V>) {
    static_assert(F::dim == V::dim, "kops::divergence: the formula and the variable must have the same dim");
    if constexpr (F::dim == V::dim) return detail::jacobian_trace<F, V>(std::make_integer_sequence<int, F::dim>{});
    else return Zero<1>{};
  } else {
    return Zero<1>{};
  }
}

} // namespace kops
