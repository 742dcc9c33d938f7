// grad(red, v, e): the gradient of a reduction, as a new reduction.
//
// For red = sum_reduction(f, axis_j) (out_i = sum_j f(x_i, y_j)), a gradient
// input e = vi<k, red.dim> (one row per output row) and a variable v:
//   v an i-variable:  (d out . e)/d v_i = sum_j [d_v f]^T e_i   -> sum over j, M rows of dim v
//   v a j-variable:   (d out . e)/d v_j = sum_i [d_v f]^T e_i   -> sum over i, N rows of dim v
//   v a parameter:    per-row contributions sum_j [d_v f]^T e_i -> M rows of dim v; the
//                     gradient is their sum over rows (kops::sum_rows)
// and symmetrically for axis_i. argmin and argmax are piecewise constant: their
// gradient is the zero reduction (which does no work). The result takes the
// same arguments as red, plus e at its index. min and max (which KeOps does not
// differentiate) have the one-hot gradient: [d_v f]^T e at the arg of each
// component, w.r.t. row variables and parameters (per-row contributions).
#pragma once

#include <cstdint>

#include <kops/autodiff/grad.hpp>
#include <kops/reductions/reduction.hpp>
#include <kops/ops/concat.hpp>
#include <kops/ops/extract.hpp>
#include <kops/reductions/detail/payload.hpp>
#include <kops/reductions/sum.hpp>

namespace kops {

namespace detail {
template <class Op> inline constexpr bool is_index_reduction_v =
    std::is_same_v<typename Op::template out_t<float>, std::int64_t>;
template <class Op> inline constexpr bool is_value_extremum_v = requires { Op::extremum_writes_values; };

template <class A> constexpr auto concat_all(A a) { return a; }
template <class A, class B, class... R> constexpr auto concat_all(A a, B b, R... r) {
  return concat(a, concat_all(b, r...));
}
// concat(f, p_0, ..., p_{D-1}), p_k = [d_v f_k]^T e_k: the payload formula of
// the gradient of a min or max.
template <class F, class V, class E, int... K>
constexpr auto payload_formula(std::integer_sequence<int, K...>) {
  return concat_all(F{}, grad(elem<K>(F{}), V{}, elem<K>(E{}))...);
}
} // namespace detail

template <class Op, class F, class A, int Arity, class V, class E>
constexpr auto grad(Reduction<Op, F, A, Arity> red, V, E) {
  using R = decltype(red);
  static_assert(Variable<V>, "kops::grad: the second argument must be a variable (vi, vj or pm)");
  static_assert(Variable<E>, "kops::grad: the gradient input of a reduction must be a variable");
  if constexpr (Variable<V> && Variable<E>) {
    static_assert(E::cat == R::row_cat,
                  "kops::grad: the gradient input must be indexed like the output rows "
                  "(an i-variable for an axis_j reduction, a j-variable for axis_i)");
    static_assert(E::dim == R::dim, "kops::grad: the gradient input must have the dim of the reduction");
    static_assert(consistent_v<decltype(F{} + sum(E{}) + sum(V{}))>,
                  "kops::grad: the gradient input's index is already used by another variable");
    constexpr int arity = R::nargs > E::index + 1 ? R::nargs : E::index + 1;
    // A gradient w.r.t. a variable of the reduced axis has one row per value of
    // that axis: it is a reduction over the other axis.
    using GA = std::conditional_t<V::cat == R::red_cat, axis_tag<1 - A::value>, A>;
    if constexpr (detail::is_index_reduction_v<Op>) {
      return Reduction<sum_op, Zero<V::dim>, GA, arity>{};
    } else if constexpr (detail::is_value_extremum_v<Op>) {
      // One-hot at the arg: [d_v f]^T e taken at the j where each component is best.
      static_assert(V::cat != R::red_cat,
                    "kops::grad: the gradient of min/max w.r.t. a variable of the reduced axis is not "
                    "supported (it needs every row's arg first); use argmin/argmax, then a sum");
      using P = decltype(detail::payload_formula<F, V, E>(std::make_integer_sequence<int, F::dim>{}));
      return Reduction<detail::extremum_payload_op<Op::extremum_is_max, F::dim>, P, A, arity>{};
    } else {
      static_assert(std::is_same_v<Op, sum_op>,
                    "kops::grad: this reduction has no gradient yet (sum, min, max, argmin, argmax do)");
      return Reduction<sum_op, decltype(grad(F{}, V{}, E{})), GA, arity>{};
    }
  }
}

// out[k] = sum over rows r of contrib[r * dim + k]: the gradient w.r.t. a
// parameter from the per-row contributions that grad(red, pm<...>, e) returns.
template <class T>
void sum_rows(const T* contrib, std::int64_t rows, int dim, T* out) {
  for (int k = 0; k < dim; ++k) out[k] = T(0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (int k = 0; k < dim; ++k) out[k] += contrib[r * dim + k];
}

} // namespace kops
