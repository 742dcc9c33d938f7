#pragma once

#include <cstdint>

#include <kops/autodiff/grad.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops {

/// grad(red, v, e): the gradient of a reduction, as a new reduction.
///
/// For red = sum_reduction(f, axis_j) (out_i = sum_j f(x_i, y_j)), a gradient
/// input e = vi<k, red.dim> (one row per output row) and a variable v:
/// ```text
///   v an i-variable:  (d out . e)/d v_i = sum_j [d_v f]^T e_i   -> sum over j, M rows of dim v
///   v a j-variable:   (d out . e)/d v_j = sum_i [d_v f]^T e_i   -> sum over i, N rows of dim v
///   v a parameter:    per-row contributions sum_j [d_v f]^T e_i -> M rows of dim v; the
///                     gradient is their sum over rows (kops::sum_rows)
/// ```
/// and symmetrically for axis_i. argmin and argmax are piecewise constant: their
/// gradient is the zero reduction (which does no work). The result takes the
/// same arguments as red, plus e at its index. min and max (which KeOps does not
/// differentiate) have the one-hot gradient: [d_v f]^T e at the arg of each
/// component, w.r.t. row variables and parameters (per-row contributions).
/// logsumexp and sumsoftmaxweight: see their headers (w.r.t. a variable of the
/// reduced axis, two passes: reductions/chained.hpp).
///
/// A gradient with respect to a variable of the reduced axis (and any gradient
/// of one) is marked so (Reduction's ReducedAxisGradient): its rows are the
/// axis red reduced over, and eval then takes a block_sparsity only tagged
/// with the axis it describes (core/block_sparsity.hpp).
template <class Op, class F, class A, int Arity, bool G, class V, class E>
constexpr auto grad(Reduction<Op, F, A, Arity, G> red, V, E) {
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
    // Each reduction op states its own rule (reductions/*.hpp: Op::gradient),
    // as formula nodes state vjp; this is only the dispatch.
    using Rq = gradient_request<F, A, arity, V, E>;
    constexpr bool differentiable = requires { Op::gradient(Rq{}); };
    static_assert(differentiable,
                  "kops::grad: this reduction has no gradient (sum, min, max, argmin, argmax, "
                  "argkmin, logsumexp and sumsoftmaxweight do)");
    if constexpr (differentiable) return detail::mark_reduced_axis_gradient<G || Rq::reduced>(Op::gradient(Rq{}));
  }
}

/// out[k] = sum over rows r of contrib[r * dim + k]: the gradient with respect to a
/// parameter from the per-row contributions that grad(red, pm<...>, e) returns.
template <class T>
void sum_rows(const T* contrib, std::int64_t rows, int dim, T* out) {
  for (int k = 0; k < dim; ++k) out[k] = T(0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (int k = 0; k < dim; ++k) out[k] += contrib[r * dim + k];
}

} // namespace kops
