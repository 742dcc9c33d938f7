// kops::kokkos::eval of a kops::TiedSum (reductions/tied.hpp), the gradient
// w.r.t. a kops::tied cloud: its two parts, each a kops::kokkos::eval with the
// call's policies and options, the second into a host temporary, then summed.
//
//   eval(tied, N, N, out, args...)  ==  eval(row_i, N, N, out, args...);
//                                       eval(row_j, N, N, tmp, args...); out += tmp
#pragma once

#include <cstdint>

#include <kops/backends/kokkos/eval.hpp>
#include <kops/detail/tied_call.hpp>
#include <kops/reductions/tied.hpp>

namespace kops::kokkos {

/// kops::kokkos::eval of a kops::TiedSum: the gradient of a reduction w.r.t. a
/// cloud read on both axes (kops::grad(red, kops::tied(x, y), e)).
///
/// ```text
///   eval<Policy...>(tied, N, N, out, args...[, s])   args:(N, D) clouds, the same array at x's and y's index
///     -> out:(N, tied.dim) = the gradient w.r.t. x (rows i) + the gradient w.r.t. y (rows j)
/// ```
///
/// Two evals (Policy... and a kops::block_sparsity are passed to both) and a
/// temporary of N * dim values; M = N is required (the cloud is on both axes).
/// float or double arrays, no batches. Bad input throws kops::error as eval does.
template <auto... Policy, TiedReduction R, class Out, class... Args>
void eval(R, std::int64_t M, std::int64_t N, Out* out, Args... args) {
  if constexpr (kops::detail::check_tied_call<Out, Args...>())
    kops::detail::eval_tied_on_host<R>("kops::kokkos::eval", M, N, out, [&](auto part, Out* o) {
      kops::kokkos::eval<Policy...>(part, M, N, o, args...);
    });
}

/// The range form of eval of a kops::TiedSum (detail/sized.hpp): ranges in place
/// of (M, N, out, pointers); N deduced from the cloud's range, every size checked
/// as for the first part (the gradient w.r.t. x, rows i), then the pointer form.
template <auto... Policy, TiedReduction R, kops::detail::SizedArgument O, class... Rest>
void eval(R tied, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<typename R::row_i, false>(
      "kops::kokkos::eval", -1, -1, nullptr, [&](auto... a) { eval<Policy...>(tied, a...); }, out, rest...);
}

} // namespace kops::kokkos
