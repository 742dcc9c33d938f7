// Chained<First, Second>: a result computed in two passes. First (a reduction
// over the call's arguments) is evaluated into a temporary buffer, one row of
// First::dim values per First output row; Second then runs with that buffer
// appended as its last argument (a row variable of First's row category), and
// writes the output. Gradients that need every output row of the forward
// reduction (logsumexp, sumsoftmaxweight w.r.t. a variable of the reduced axis)
// are Chained. Backends evaluate it as two evals and own the buffer:
//   eval(chained, M, N, out, args...)  ==  eval(First, M, N, buf, args...);
//                                          eval(Second, M, N, out, args..., buf)
#pragma once

#include <kops/reductions/reduction.hpp>

namespace kops {

namespace detail {
template <class S, class F> struct used_slot { using type = S; };
template <int I, class F> struct used_slot<Unused<I>, F> { using type = F; };
template <class First, class Second, int... K>
auto merged_signature(std::integer_sequence<int, K...>)
    -> type_list<typename used_slot<typename Second::signature::template at<K>,
                                    typename First::signature::template at<K>>::type...>;
} // namespace detail

template <ReductionType First, ReductionType Second>
struct Chained : reduction_node {
  using first = First;
  using second = Second;
  using op = typename Second::op;
  using formula = typename Second::formula;
  using axis = typename Second::axis;
  static constexpr category row_cat = Second::row_cat;
  static constexpr category red_cat = Second::red_cat;
  static constexpr int formula_dim = Second::formula_dim;
  static constexpr int dim = Second::dim;
  // The call's arguments: Second's without the buffer, which is its last;
  // each slot is the variable either pass reads there.
  static constexpr int nargs = Second::nargs - 1;
  using signature = decltype(detail::merged_signature<First, Second>(std::make_integer_sequence<int, nargs>{}));
  static constexpr bool no_work = false;
  // Its rows are Second's: so is what an untagged block_sparsity would mean.
  static constexpr bool reduced_axis_gradient = reduced_axis_gradient_v<Second>;
  static_assert(First::nargs == nargs, "kops: internal error, a chained reduction's passes disagree on the arguments");
};

template <class R> inline constexpr bool is_chained_v = false;
template <class F, class S> inline constexpr bool is_chained_v<Chained<F, S>> = true;

namespace detail {
// R (a Reduction or a Chained pair) marked a gradient with respect to a
// variable of a reduced axis when Marked (Reduction's ReducedAxisGradient).
template <bool Marked, class Op, class F, class A, int Arity, bool G>
constexpr auto mark_reduced_axis_gradient(Reduction<Op, F, A, Arity, G>) {
  return Reduction<Op, F, A, Arity, G || Marked>{};
}
template <bool Marked, class First, class Second>
constexpr auto mark_reduced_axis_gradient(Chained<First, Second>) {
  return Chained<First, decltype(mark_reduced_axis_gradient<Marked>(Second{}))>{};
}
} // namespace detail

} // namespace kops
