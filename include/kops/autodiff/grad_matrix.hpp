#pragma once

#include <utility>

#include <kops/autodiff/grad.hpp>
#include <kops/ops/concat.hpp>
#include <kops/ops/extract.hpp>

namespace kops {

namespace detail {
template <class A> constexpr auto concat_rows(A a) { return a; }
template <class A, class B, class... R> constexpr auto concat_rows(A a, B b, R... r) {
  return concat(a, concat_rows(b, r...));
}
template <class F, class V, int... K>
constexpr auto grad_rows(std::integer_sequence<int, K...>) {
  // e_k = elem_t<dim f, k>(1): the k-th standard basis vector, a constant.
  return concat_rows(grad(F{}, V{}, elem_t<F::dim, K>(cst<1>))...);
}
} // namespace detail

/// grad_matrix(f, v): the gradients of the components of f with respect to v,
/// stacked: dim f * dim v, row-major with one row per component of f,
///
/// ```text
///   grad_matrix(f, v)[k * dim v + l] = d f_k / d v_l
/// ```
///
/// i.e. the Jacobian of f, row-major (equivalently the gradient matrix
/// [d_v f]^T, column-major). This is KeOps' GradMatrix(f, v): the concatenation
/// of grad(f, v, e_k) over the standard basis e_0 .. e_{dim f - 1}.
/// A composition of grad, elem_t and concat; its derivatives follow.
template <class F, class V>
constexpr auto grad_matrix(F, V) {
  static_assert(Formula<F>, "kops::grad_matrix: the first argument must be a kops formula");
  static_assert(Variable<V>, "kops::grad_matrix: the second argument must be a variable (vi, vj or pm)");
  if constexpr (Formula<F> && Variable<V>)
    return detail::grad_rows<F, V>(std::make_integer_sequence<int, F::dim>{});
  else
    return Zero<1>{};
}

} // namespace kops
