// kops::tied(x, y): one cloud of points read on both axes, and the gradient of
// a reduction with respect to it.
//
// A formula such as the Gaussian kernel K(x, x) reads the same points twice:
// as x_i (argument x, a vi) and as y_j (argument y, a vj), both given the same
// array. The gradient of e . red with respect to the cloud is the sum of the
// two partial gradients, each a reduction of its own (autodiff/reduction_grad.hpp):
//
//   red = sum_j f(x_i, y_j):
//   d(e . red)/d p_k = sum_j [d_x f(p_k, p_j)]^T e_k      grad(red, x, e): rows i, a sum over j
//                    + sum_i [d_y f(p_i, p_k)]^T e_i      grad(red, y, e): rows j, a sum over i
//
// (the second term is the one that is easy to forget: point k also appears as
// the column of every row i). The two parts reduce over different axes, so
// they are two passes; grad(red, tied(x, y), e) returns both as a
// kops::TiedSum (reductions/tied.hpp), which eval runs and sums.
#pragma once

#include <type_traits>

#include <kops/autodiff/reduction_grad.hpp>
#include <kops/core/variable.hpp>
#include <kops/reductions/reduction.hpp>
#include <kops/reductions/tied.hpp>

namespace kops {

/// Tied<XI, YJ>: the variables XI (a vi) and YJ (a vj) of the same dim, which
/// read one cloud of points (the same array at both indices). What
/// kops::tied builds; an argument of kops::grad and kops::solve_grad.
template <class XI, class YJ>
struct Tied {
  using var_i = XI;
  using var_j = YJ;
  static constexpr int dim = XI::dim;
};

template <class T> inline constexpr bool is_tied_v = false;
template <class XI, class YJ> inline constexpr bool is_tied_v<Tied<XI, YJ>> = true;

/// tied(x, y): the variables x and y read one cloud, x as rows i and y as
/// columns j (in either order: tied(y, x) is the same). For kops::grad(red,
/// tied(x, y), e): the gradient with respect to the cloud, the sum of the
/// gradients with respect to x and to y.
///
/// ```text
///   x : vi<I, D>,  y : vj<J, D>  (I != J, the same dim; the two arguments hold the same (N, D) array)
/// ```
template <class X, class Y>
constexpr auto tied(X, Y) {
  static_assert(Variable<X> && Variable<Y>, "kops::tied: both arguments must be variables (a vi and a vj)");
  if constexpr (Variable<X> && Variable<Y>) {
    constexpr bool one_each = (X::cat == category::i && Y::cat == category::j) ||
                              (X::cat == category::j && Y::cat == category::i);
    static_assert(one_each, "kops::tied: the cloud must be read once as rows i and once as columns j: "
                            "pass one vi and one vj (not a parameter)");
    static_assert(X::dim == Y::dim, "kops::tied: the two variables must have the same dim (they read one cloud)");
    if constexpr (one_each && X::dim == Y::dim) {
      if constexpr (X::cat == category::i) return Tied<X, Y>{};
      else return Tied<Y, X>{};
    } else {
      return Tied<X, Y>{};
    }
  } else {
    return Tied<X, Y>{};
  }
}

/// grad(red, tied(x, y), e): the gradient of e . red with respect to the one
/// cloud that x (rows i) and y (columns j) both read,
///
/// ```text
///   out_k = grad(red, x, e)_k + grad(red, y, e)_k,   k = 0 .. N-1,   out:(N, D)
/// ```
///
/// a kops::TiedSum of the two gradient reductions, which the backends'
/// eval(..., M, N, out, args..., e) computes with M = N (the cloud on both
/// axes) and sums: two passes and one temporary of N * D values. e: as for
/// grad(red, v, e), indexed like red's output rows. The arguments are red's
/// plus e, the same array at x's and at y's index.
template <class Op, class F, class A, int Arity, class XI, class YJ, class E>
constexpr auto grad(Reduction<Op, F, A, Arity> red, Tied<XI, YJ>, E e) {
  using RI = decltype(grad(red, XI{}, e));
  using RJ = decltype(grad(red, YJ{}, e));
  if constexpr (ReductionType<RI> && ReductionType<RJ>) return TiedSum<RI, RJ>{};
}

} // namespace kops
