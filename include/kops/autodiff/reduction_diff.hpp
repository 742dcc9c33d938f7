// kops::diff on a reduction: the forward-mode (directional) derivative of its
// output, as a new reduction over the same axis with the same output rows.
// Each reduction op states its own rule (reductions/*.hpp: Op::forward, given a
// forward_request), as it states its gradient; this file only checks the call
// and dispatches. KeOps 2.3 accepts Diff on Sum, ArgMin, ArgMax, ArgKMin and its
// LogSumExp / SumSoftMaxWeight reduction (Max_SumShiftExpWeight); kops has the
// same and min / max besides.
#pragma once

#include <kops/autodiff/diff.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops {

/// diff(red, v, u): the forward-mode derivative of a reduction's output with
/// respect to the variable v along the direction u (a formula of v's dim),
/// a reduction over the same axis with the same output rows and dim:
/// ```text
///   red = sum_reduction(f, axis_j):   diff(red, v, u) = sum_reduction(diff(f, v, u), axis_j)
///   out_i = sum_j f(x_i, y_j)         out'_i = sum_j [d_v f(x_i, y_j)] u
/// ```
/// for v of either axis or a parameter (u is read per pair, like f). Rules:
/// sum: the sum of the derivatives; logsumexp: the softmax-weighted sum of df
/// (weighted: sum exp(f) (g df + dg) / sum exp(f) g); sumsoftmaxweight:
/// the softmax average of (df g + dg) minus that of df times that of g; min and max: the derivative
/// where each component is best (ties: the first index, as argmin); argmin,
/// argmax, argkmin: zero (piecewise constant). kmin and the fused value-and-
/// index reductions have none (nor in KeOps). The result takes red's arguments
/// plus those u reads. KeOps: `Diff(Sum_Reduction(f,0),v,u)`.
template <class Op, class F, class A, int Arity, bool G, class V, class U>
constexpr auto diff(Reduction<Op, F, A, Arity, G> red, V, U) {
  using R = decltype(red);
  static_assert(Variable<V>, "kops::diff: the second argument must be a variable (vi, vj or pm)");
  static_assert(Formula<U>, "kops::diff: the third argument (the direction) must be a kops formula");
  if constexpr (Variable<V> && Formula<U>) {
    static_assert(U::dim == V::dim, "kops::diff: the direction u must have the dim of the variable");
    static_assert(consistent_v<decltype(F{} + sum(U{}) + sum(V{}))>,
                  "kops::diff: the direction reads an argument index already used by another variable");
    constexpr int used = max_index<U>() + 1;
    constexpr int arity = R::nargs > used ? R::nargs : used;
    using Rq = forward_request<F, A, arity, R::dim, V, U>;
    constexpr bool differentiable = requires { Op::forward(Rq{}); };
    static_assert(differentiable,
                  "kops::diff: this reduction has no forward derivative (sum, min, max, argmin, argmax, "
                  "argkmin, logsumexp and sumsoftmaxweight do)");
    if constexpr (U::dim == V::dim && differentiable) return detail::mark_reduced_axis_gradient<G>(Op::forward(Rq{}));
    else return detail::invalid_reduction{};  // the rule broken is reported above
  } else {
    return detail::invalid_reduction{};
  }
}

/// diff of a two-pass reduction (a gradient w.r.t. a variable of the reduced
/// axis): not supported; differentiate the one-pass forward reduction instead.
template <class First, class Second, class V, class U>
constexpr auto diff(Chained<First, Second>, V, U) {
  static_assert(sizeof(V) == 0,
                "kops::diff: a two-pass gradient reduction has no forward derivative in kops; "
                "differentiate the forward reduction (or its formula) instead");
}

} // namespace kops
