// TiedSum<RI, RJ>: the sum of two reductions over one cloud of points that a
// formula reads on both axes, as x_i and as y_j. RI has one output row per i
// (it reduces over j), RJ one per j (it reduces over i); both have the same
// dim and take the same arguments. With the cloud on both axes (M = N) row k
// of each is about point k, and the result is their sum:
//
//   out_k = RI_k + RJ_k,   k = 0 .. N-1,   out:(N, dim)
//
// It is what the gradient with respect to a tied variable is
// (autodiff/tied.hpp: kops::grad(red, kops::tied(x, y), e)): the x_i part of
// the gradient is a sum over j, the y_j part a sum over i. Backends evaluate it
// as two evals and a sum, owning the temporary (backends/*/tied.hpp):
//   eval(tied, N, N, out, args...)  ==  eval(RI, N, N, out, args...);
//                                       eval(RJ, N, N, tmp, args...); out += tmp
#pragma once

#include <concepts>
#include <type_traits>

#include <kops/reductions/reduction.hpp>

namespace kops {

struct tied_sum_node {};

template <ReductionType RI, ReductionType RJ>
struct TiedSum : tied_sum_node {
  using row_i = RI;  // one output row per i: reduces over j
  using row_j = RJ;  // one output row per j: reduces over i
  static constexpr int dim = RI::dim;
  static constexpr int nargs = RI::nargs;
  static_assert(RI::row_cat == category::i && RJ::row_cat == category::j,
                "kops: internal error, a tied sum's parts must have rows i and rows j");
  static_assert(RI::dim == RJ::dim && RI::nargs == RJ::nargs,
                "kops: internal error, a tied sum's parts disagree on the dim or the arguments");
};

/// A sum of two reductions over one cloud on both axes: a kops::TiedSum (what
/// the gradient w.r.t. a kops::tied variable returns).
template <class R>
concept TiedReduction = std::derived_from<R, tied_sum_node> && requires {
  typename R::row_i;
  typename R::row_j;
};

} // namespace kops
