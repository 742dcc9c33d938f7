// The front end of every backend's eval: what a call is, checked once.
//
//   kops::kokkos::eval / kops::cuda::eval / kops::cuda::eval_host / kops::mpi::eval
//     1. compile time: policies, the trailing options, one pointer per argument
//        index, the element type, the output pointer type  (check_eval_call)
//     2. run time: sizes, null pointers, an output overlapping an input
//        (check_call_arguments; kops::mpi agrees on them across ranks instead)
//     3. the passes: a two-pass (Chained) reduction is its first pass into a
//        temporary, then its second reading it; a pass with no output row does
//        nothing; every other pass is one launch                   (run_passes)
//
// A backend supplies only what differs (the Backend concept below): how one
// pass runs on `rows` output rows over `cols` terms, and how a temporary of n
// elements is held for the length of a callback. Everything a call takes
// beyond its pointers (today kops::cuda::options and kops::solve_options) is a
// trailing option, split off here (split_call), so that a new kind of option
// (a block-sparsity structure, a batch) is parsed in one place for every backend.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <kops/core/policy.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::detail {

// Number of leading pointers among a call's trailing arguments.
template <class... Rest>
constexpr std::size_t leading_pointers() {
  constexpr bool is_pointer[] = {std::is_pointer_v<Rest>..., false};
  std::size_t k = 0;
  while (k < sizeof...(Rest) && is_pointer[k]) ++k;
  return k;
}

// How many of the arguments P + I of All have type O (a function, not a nested
// lambda over the pack I: nvcc rejects that).
template <class O, class All, std::size_t P, std::size_t... I>
constexpr int count_type(std::index_sequence<I...>) {
  return (0 + ... + (std::is_same_v<std::tuple_element_t<P + I, All>, O> ? 1 : 0));
}

// Whether what follows the pointers is a list of distinct types among Opts.
template <class... Opts, class... Rest>
constexpr bool valid_option_tail(type_list<Opts...>, type_list<Rest...>) {
  constexpr std::size_t P = leading_pointers<Rest...>();
  if constexpr (P == sizeof...(Rest)) {
    return true;
  } else {
    using All = std::tuple<std::remove_cvref_t<Rest>..., void>;
    constexpr auto tail = std::make_index_sequence<sizeof...(Rest) - P>{};
    return (0 + ... + count_type<Opts, All, P>(tail)) == int(sizeof...(Rest) - P) &&
           ((count_type<Opts, All, P>(tail) <= 1) && ...);
  }
}

// Calls f(std::tuple<Opts...>{the options given, the others default}, pointers...).
// The tail must be valid (valid_option_tail).
template <class... Opts, class Fn, class... Rest>
decltype(auto) split_call(type_list<Opts...>, Fn&& f, const Rest&... rest) {
  constexpr std::size_t P = leading_pointers<Rest...>();
  if constexpr (P == sizeof...(Rest)) {
    return f(std::tuple<Opts...>{}, rest...);  // no option: no tuple of references
  } else {
    const auto all = std::forward_as_tuple(rest...);
    std::tuple<Opts...> opts{};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((std::get<std::remove_cvref_t<std::tuple_element_t<P + I, std::tuple<Rest...>>>>(opts) =
            std::get<P + I>(all)),
       ...);
    }(std::make_index_sequence<sizeof...(Rest) - P>{});
    return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
      return f(std::as_const(opts), std::get<I>(all)...);
    }(std::make_index_sequence<P>{});
  }
}

template <auto... Policy>
constexpr bool check_policies() {
  constexpr bool ok = valid_policies_v<Policy...>;
  static_assert(ok, "kops::eval: the template arguments are policies, at most one of each kind: "
                    "a kops::precision, a kops::sum_scheme, a kops::dtype_acc");
  return ok;
}

// The arguments after the output pointer: pointers, then options of the
// backend's kinds (Opts), each at most once.
template <class... Opts, class... Rest>
constexpr bool check_eval_tail(type_list<Opts...> opts, type_list<Rest...> rest) {
  constexpr bool ok = valid_option_tail(type_list<Opts...>{}, type_list<Rest...>{});
  static_assert(ok, "kops::eval: after the output pointer, pass one pointer per argument index, optionally "
                    "followed by the backend's options (kops::cuda::options on the GPU), last");
  (void)opts;
  (void)rest;
  return ok;
}

// The pointers: one per argument index, one element type, the output pointer
// the reduction writes. True when all hold; the backends compile the call only
// then, so that a broken rule is the only error reported.
template <class Red, class Out, class... Args>
constexpr bool check_eval_call() {
  using T = call_element_t<Out, Args...>;
  constexpr bool same = (std::is_same_v<T, std::remove_cv_t<Args>> && ...);
  constexpr bool count = sizeof...(Args) == Red::nargs;
  static_assert(count, "kops::eval: pass exactly one pointer per argument index of the formula "
                       "(0 .. max index), in index order");
  constexpr bool output = std::is_same_v<Out, typename Red::op::template out_t<T>>;
  static_assert(output, "kops::eval: wrong output pointer type (value reductions write T*, "
                        "index reductions such as argmin write std::int64_t*, value-and-index reductions such "
                        "as min_argmin write kops::value_index<T>*)");
  return same && count && output;
}

// The run-time checks of every backend (arguments.hpp): true when the call
// may run; else reported (kops::error, or the error handler) and false.
template <class Red, class T, class Out>
[[nodiscard]] bool check_call_arguments(const char* where, std::int64_t M, std::int64_t N, const Out* out,
                                        const T* const* args) {
  return check_arguments<Red>(where, M, N, out, args) && check_no_overlap<Red>(where, M, N, out, args);
}

// Output rows of a reduction (or pass) with M i-rows and N j-rows.
template <class Red>
constexpr std::int64_t output_rows(std::int64_t M, std::int64_t N) {
  return Red::row_cat == category::i ? M : N;
}

// One pass of a call, as a backend runs it: `rows` output rows, each reducing
// `cols` terms (0 for a sum of the zero formula, whatever the sizes).
struct pass_extent {
  std::int64_t M, N, rows, cols;
};
template <class Red>
constexpr pass_extent extent_of(std::int64_t M, std::int64_t N) {
  return {M, N, output_rows<Red>(M, N), Red::no_work ? 0 : Red::row_cat == category::i ? N : M};
}

// What a backend supplies to run_passes:
//   be.launch<Pol, Red>(extent, out, ptrs)   one (unchained) pass with rows > 0
//   be.with_temporary<T>(n, f)                 f(inner, buffer) with n elements of
//                                              T held for f's length; `inner` is
//                                              the backend to run f's passes on
//                                              (e.g. with the device already set)
// Both return false after a reported failure (only without exceptions).
// (Checked on each backend in tests/static/concepts.cpp; run_passes itself is
// unconstrained, which costs nothing to compile.)
struct temporary_probe {
  template <class B, class T>
  bool operator()(B&, T*) const { return true; }
};
template <class B>
concept Backend = requires(B& be, std::size_t n) {
  { be.where } -> std::convertible_to<const char*>;
  { be.template with_temporary<float>(n, temporary_probe{}) } -> std::same_as<bool>;
};

// The passes of Red, arguments already checked: see the header comment.
template <class Pol, class Red, class B, class T, class Out>
[[nodiscard]] bool run_passes(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs) {
  if constexpr (is_chained_v<Red>) {
    using First = typename Red::first;
    const std::size_t n = std::size_t(output_rows<First>(M, N)) * First::dim;
    return be.template with_temporary<T>(n, [&](auto& inner, T* buffer) {
      if (!run_passes<Pol, First>(inner, M, N, buffer, ptrs)) return false;
      const T* second[Red::nargs + 1];
      for (int k = 0; k < Red::nargs; ++k) second[k] = ptrs[k];
      second[Red::nargs] = buffer;
      return run_passes<Pol, typename Red::second>(inner, M, N, out, second);
    });
  } else {
    const pass_extent e = extent_of<Red>(M, N);
    if (e.rows == 0) return true;
    return be.template launch<Pol, Red>(e, out, ptrs);
  }
}

// The whole of an eval entry: compile-time rules, the options split off, the
// run-time checks, the passes. Be::option_types lists the trailing options it
// takes; Be(where, options tuple) makes the backend for a call. A backend
// whose call is more than its passes (kops::cuda::eval_host copies the
// arguments in and the output out around them) defines be.call<Pol, Red>(M, N,
// out, ptrs) and `static constexpr bool own_call = true`; call then runs
// instead of run_passes.
template <class Be, class = void> inline constexpr bool has_own_call_v = false;
template <class Be> inline constexpr bool has_own_call_v<Be, std::void_t<decltype(Be::own_call)>> = Be::own_call;

template <class Be, auto... Policy, class Red, class Out, class... Rest>
void eval_call(const char* where, Red, std::int64_t M, std::int64_t N, Out* out, const Rest&... rest) {
  constexpr bool policies = check_policies<Policy...>();
  constexpr bool tail = check_eval_tail(typename Be::option_types{}, type_list<Rest...>{});
  if constexpr (policies && tail) {
    split_call(
        typename Be::option_types{},
        [&]<class... Args>(const auto& opts, const Args*... args) {
          if constexpr (check_eval_call<Red, Out, Args...>()) {
            using T = call_element_t<Out, Args...>;
            const T* const ptrs[sizeof...(Args) + 1] = {args..., nullptr};  // + 1: no empty array
            if (!check_call_arguments<Red>(where, M, N, out, ptrs)) return;
            using Pol = policy_of_t<Policy...>;
            Be be(where, opts);
            if constexpr (has_own_call_v<Be>)
              (void)be.template call<Pol, Red>(M, N, out, ptrs);
            else
              (void)run_passes<Pol, Red>(be, M, N, out, ptrs);
          }
        },
        rest...);
  }
}

} // namespace kops::detail
