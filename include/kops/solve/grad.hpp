// kops::solve_grad: the gradient of a solve's solution with respect to the
// variables and parameters of its kernel, as a reduction any backend evaluates.
//
// The solve (solve_call.hpp) gives a = (alpha Id + K)^-1 b, K the linear map
// u -> red with u in the unknown's slot v. For a loss L(a) with upstream
// gradient g = dL/da, differentiating (alpha Id + K) a = b:
//
//   (alpha Id + K) da = db - (dK) a
//   dL = g . da = b_bar . db - b_bar . (dK) a,   b_bar = (alpha Id + K)^-T g
//
// so (K symmetric, which CG needs anyway: the transpose solve is the solve)
//
//   dL/db     = b_bar = (alpha Id + K)^-1 g       the adjoint: a solve, g in v's slot
//   dL/dtheta = -[d_theta (K a)]^T b_bar          theta a variable or parameter of K
//             = -grad(red, theta, e)  evaluated with a in v's slot and b_bar in e's
//
// since K a is red with a in v's slot, and grad(red, theta, e) is
// [d_theta red]^T e (autodiff/reduction_grad.hpp). solve_grad returns that
// reduction, the sign included. This is KeOps' KernelSolve backward.
#pragma once

#include <type_traits>

#include <kops/autodiff/reduction_grad.hpp>
#include <kops/autodiff/tied.hpp>
#include <kops/core/variable.hpp>
#include <kops/ops/minus.hpp>
#include <kops/reductions/reduction.hpp>
#include <kops/reductions/sum.hpp>
#include <kops/reductions/tied.hpp>
#include <kops/solve/checks.hpp>

namespace kops {

namespace detail {
// R (a sum reduction) with its formula negated: -R, the same rows and arguments.
template <class R>
using negated_sum_t = Reduction<sum_op, decltype(-typename R::formula{}), typename R::axis, R::nargs>;

// -grad(red, w, e): a reduction, or, for a tied w, the TiedSum of the negated parts.
template <class Red, class W, class E>
constexpr auto negated_grad(Red red, W w, E e) {
  using G = decltype(grad(red, w, e));
  if constexpr (TiedReduction<G>)
    return TiedSum<negated_sum_t<typename G::row_i>, negated_sum_t<typename G::row_j>>{};
  else if constexpr (ReductionType<G>)
    return negated_sum_t<G>{};
}
} // namespace detail

/// solve_grad(red, v, w, e): the gradient of a solve's solution with respect to
/// w, a variable or parameter of K (or a kops::tied cloud), as a reduction.
///
/// ```text
///   a = (alpha Id + K)^-1 b   solved by kops::<backend>::solve(red, v, alpha, N, N, a, args...)
///   g = dL/da                 the upstream gradient, (N, D)
///   b_bar = dL/db             the adjoint: solve(red, v, alpha, N, N, b_bar, args with g in v's slot)
///   dL/dw = eval(solve_grad(red, v, w, e), N, N, out, args with a in v's slot, b_bar in e's slot)
///         = -[d_w (K a)]^T b_bar
/// ```
///
/// ```text
///   red, v  the solve's reduction and unknown (the same rules as kops::solve)
///   w       a variable or parameter that red reads, not v; or kops::tied(x, y) when x_i and
///           y_j read one cloud (the gradient w.r.t. the cloud: a kops::TiedSum)
///   e       the adjoint's slot: a variable indexed like red's output rows (a vi for
///           axis_j), of dim red.dim, at an index red does not use
///   result  rows of w: N rows of dim w for a vi or vj (or a tied cloud); for a
///           parameter, per-row contributions to add with kops::sum_rows
/// ```
///
/// Needs K symmetric (the adjoint is then the same solve, as kops::solve
/// requires anyway); the accuracy of the gradient is the solves'.
template <ReductionType Red, class V, class W, class E>
constexpr auto solve_grad(Red red, V, W w, E e) {
  if constexpr (detail::check_solve_formula<Red, V>()) {
    constexpr bool variable = Variable<W> || is_tied_v<W>;
    static_assert(variable, "kops::solve_grad: the third argument must be a variable or parameter of K, "
                            "or kops::tied(x, y)");
    if constexpr (variable) {
      constexpr bool not_b = [] {
        if constexpr (is_tied_v<W>) return !std::is_same_v<typename W::var_i, V> && !std::is_same_v<typename W::var_j, V>;
        else return !std::is_same_v<W, V>;
      }();
      static_assert(not_b, "kops::solve_grad: the gradient with respect to the unknown's slot (b) is the adjoint "
                           "solve, not a reduction: solve again with dL/da in the unknown's slot");
      if constexpr (not_b) return detail::negated_grad(red, w, e);
    }
  }
}

} // namespace kops
