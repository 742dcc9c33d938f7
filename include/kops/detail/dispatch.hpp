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
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <kops/core/block_sparsity.hpp>
#include <kops/core/policy.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/detail/sparsity.hpp>
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
// `cols` terms (0 for a sum of the zero formula, whatever the sizes); with a
// block-sparsity structure (checked) for these rows, or none (dense).
struct pass_extent {
  std::int64_t M, N, rows, cols;
  const block_sparsity* sparsity = nullptr;
};

// The structures of a ranged call for the passes whose output rows are i and
// those whose output rows are j (null: dense, or no pass of that kind).
struct call_sparsity {
  const block_sparsity* by_i = nullptr;
  const block_sparsity* by_j = nullptr;
  const block_sparsity* of(category rows) const { return rows == category::i ? by_i : by_j; }
};

template <class Red>
constexpr pass_extent extent_of(std::int64_t M, std::int64_t N, const call_sparsity& sp = {}) {
  return {M, N, output_rows<Red>(M, N), Red::no_work ? 0 : Red::row_cat == category::i ? N : M, sp.of(Red::row_cat)};
}

// Whether some pass of Red has output rows of the other category than Red's own.
template <class Red, category Rows = Red::row_cat>
constexpr bool has_other_rows() {
  if constexpr (is_chained_v<Red>)
    return has_other_rows<typename Red::first, Rows>() || has_other_rows<typename Red::second, Rows>();
  else
    return Red::row_cat != Rows;
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
// Ranged: every pass has a block-sparsity structure (sp) and runs with
// be.launch_ranged instead of be.launch (a separate kernel, compiled only by
// the calls that take a structure).
template <class Pol, class Red, bool Ranged = false, class B, class T, class Out>
[[nodiscard]] bool run_passes(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                              const call_sparsity& sp = {}) {
  if constexpr (is_chained_v<Red>) {
    using First = typename Red::first;
    const std::size_t n = std::size_t(output_rows<First>(M, N)) * First::dim;
    return be.template with_temporary<T>(n, [&](auto& inner, T* buffer) {
      if (!run_passes<Pol, First, Ranged>(inner, M, N, buffer, ptrs, sp)) return false;
      const T* second[Red::nargs + 1];
      for (int k = 0; k < Red::nargs; ++k) second[k] = ptrs[k];
      second[Red::nargs] = buffer;
      return run_passes<Pol, typename Red::second, Ranged>(inner, M, N, out, second, sp);
    });
  } else {
    const pass_extent e = extent_of<Red>(M, N, sp);
    if (e.rows == 0) return true;
    if constexpr (Ranged)
      return be.template launch_ranged<Pol, Red>(e, out, ptrs);
    else
      return be.template launch<Pol, Red>(e, out, ptrs);
  }
}

// Whether a backend reads a structure from memory the host cannot read (the
// GPU's): be.host_sparsity(s, storage, view) then copies it to the host.
template <class B, class = void> inline constexpr bool has_host_sparsity_v = false;
template <class B>
inline constexpr bool has_host_sparsity_v<
    B, std::void_t<decltype(std::declval<B&>().host_sparsity(std::declval<const block_sparsity&>(),
                                                             std::declval<sparsity_copy&>(),
                                                             std::declval<block_sparsity&>()))>> = true;

// The rows a structure describes, passed with a reduction whose rows are `rows`.
constexpr category sparsity_rows(const block_sparsity& s, category rows) {
  return s.axis == sparsity_axis::i ? category::i : s.axis == sparsity_axis::j ? category::j : rows;
}

// check_sparsity of s passed with Red (M i rows, N j rows), against the axis it describes.
template <class Red>
[[nodiscard]] bool check_sparsity_for(const char* where, const block_sparsity& s, std::int64_t M, std::int64_t N,
                                      std::string* keep = nullptr) {
  const bool rows_i = sparsity_rows(s, Red::row_cat) == category::i;
  return check_sparsity(where, s, rows_i ? M : N, rows_i ? N : M, rows_i ? "i" : "j", keep);
}

// The passes of a call with the block-sparsity structure s (checked, in host
// memory), transposed for the passes whose rows are of the other axis than
// the ones s describes.
template <class Pol, class Red, class B, class T, class Out>
[[nodiscard]] bool run_checked_sparse_passes(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                                             const block_sparsity& s) {
  const category own = sparsity_rows(s, Red::row_cat);
  call_sparsity sp;
  (own == category::i ? sp.by_i : sp.by_j) = &s;
  if (own == Red::row_cat && !has_other_rows<Red>()) return run_passes<Pol, Red, true>(be, M, N, out, ptrs, sp);
  const sparsity_copy other = transpose_sparsity(s);
  const block_sparsity view = other.view();
  (own == category::i ? sp.by_j : sp.by_i) = &view;
  return run_passes<Pol, Red, true>(be, M, N, out, ptrs, sp);
}

// The passes of a call with the block-sparsity structure s for Red's output
// rows (or the axis it is tagged with): s (copied to the host first where the
// backend needs it) checked, and transposed for the passes on the other axis
// (a two-pass gradient's first pass, say). Every pass gets a structure in host
// memory. False after a reported failure.
template <class Pol, class Red, class B, class T, class Out>
[[nodiscard]] bool run_sparse_passes(B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                                     const block_sparsity& s) {
  sparsity_copy copy;
  block_sparsity host = s;
  if constexpr (has_host_sparsity_v<B>) {
    if (!be.host_sparsity(s, copy, host)) return false;
  }
  if (!check_sparsity_for<Red>(be.where, host, M, N)) return false;
  return run_checked_sparse_passes<Pol, Red>(be, M, N, out, ptrs, host);
}

// The whole of an eval entry: compile-time rules, the options split off, the
// run-time checks, the passes. Be::option_types lists the trailing options it
// takes; Be(where, options tuple) makes the backend for a call. A backend
// whose call is more than its passes (kops::cuda::eval_host copies the
// arguments in and the output out around them) defines be.call<Pol, Red>(M, N,
// out, ptrs) and `static constexpr bool own_call = true`; call then runs
// instead of run_passes (with a block_sparsity: call<Pol, Red>(M, N, out,
// ptrs, &s), s as the user passed it).
template <class Be, class = void> inline constexpr bool has_own_call_v = false;
template <class Be> inline constexpr bool has_own_call_v<Be, std::void_t<decltype(Be::own_call)>> = Be::own_call;

template <class T, class... Opts>
constexpr bool takes_option(type_list<Opts...>) {
  return (std::is_same_v<T, Opts> || ...);
}

template <class Be, auto... Policy, class Red, class Out, class... Rest>
void eval_call(const char* where, Red, std::int64_t M, std::int64_t N, Out* out, const Rest&... rest) {
  constexpr bool policies = check_policies<Policy...>();
  constexpr bool ranged = (std::is_same_v<Rest, block_sparsity> || ...);
  constexpr bool ranges_ok = !ranged || takes_option<block_sparsity>(typename Be::option_types{});
  static_assert(ranges_ok, "kops::eval: this backend does not take a kops::block_sparsity yet "
                           "(kops::kokkos::eval does)");
  constexpr bool tail = ranges_ok && check_eval_tail(typename Be::option_types{}, type_list<Rest...>{});
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
            if constexpr (has_own_call_v<Be> && ranged)
              (void)be.template call<Pol, Red>(M, N, out, ptrs, &std::get<block_sparsity>(opts));
            else if constexpr (has_own_call_v<Be>)
              (void)be.template call<Pol, Red>(M, N, out, ptrs);
            else if constexpr (ranged)
              (void)run_sparse_passes<Pol, Red>(be, M, N, out, ptrs, std::get<block_sparsity>(opts));
            else
              (void)run_passes<Pol, Red>(be, M, N, out, ptrs);
          }
        },
        rest...);
  }
}

} // namespace kops::detail
