// The front end of every backend's solve: what a solve call is, checked once,
// beside eval's (detail/dispatch.hpp, eval_call), with eval's helpers.
//
//   kops::kokkos::solve / kops::cuda::solve / kops::cuda::solve_host
//     1. compile time: the policies (eval's: each product with K is an eval),
//        the reduction and the unknown (check_solve_formula), no batches, the
//        trailing options (split_call), one pointer per argument index of the
//        solution's element type (check_solve_pointers)
//     2. run time: sizes, null pointers, the options (check_solve_arguments);
//        a block-sparse K's structure, copied to the host first where the
//        backend reads it from elsewhere (be.host_sparsity, as for eval), then
//        checked against the axis it describes -- all before `a` is written
//     3. the solve, on the backend made for the call: be.solve
//
// A backend (a Solver) supplies what differs:
//   Be::option_types                   the trailing options it takes, kops::solve_options
//                                      among them (kops::block_sparsity where K may be sparse)
//   Be(where, option_set)              the backend for one call
//   be.host_sparsity(s, copy, view)    optional, as for eval (dispatch.hpp)
//   be.solve<Red, V, Ranged, Policy...>(plan, alpha, M, N, a, ptrs, s) -> solve_result
//                                      the checked solve; plan.n may be 0 (nothing
//                                      to solve: nothing_to_solve, after whatever
//                                      the backend checks first); ptrs: Red::nargs
//                                      pointers, b in the unknown's slot, rebindable;
//                                      s: K's structure (host memory, checked) when
//                                      Ranged, else null. A default solve_result
//                                      (converged false) after a reported failure.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include <kops/core/batch.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/detail/sized.hpp>
#include <kops/detail/sparsity.hpp>
#include <kops/solve/checks.hpp>
#include <kops/solve/options.hpp>

namespace kops::detail {

// What a solve with no unknowns (M = N = 0) reports: converged at once.
inline solve_result nothing_to_solve(const solve_plan& plan) {
  return solve_result{0, 0, 0, plan.absolute_tolerance, true};
}

// What solve_call asks of a backend besides be.solve (a member template,
// instantiated per call): its name for messages, and trailing options among
// which kops::solve_options. (Checked on each backend in tests/static/concepts.cpp
// and tests/cuda/errors_test.cu.)
template <class B>
concept Solver = requires(const B& be) {
  { be.where } -> std::convertible_to<const char*>;
  typename B::option_types;
} && takes_option<solve_options>(typename B::option_types{});

// eval's rule on the policies (check_policies), in solve's words.
template <auto... Policy>
constexpr bool check_solve_policies() {
  constexpr bool ok = valid_policies_v<Policy...>;
  static_assert(ok, "kops::solve: the template arguments are policies, at most one of each kind: "
                    "a kops::precision, a kops::sum_scheme, a kops::dtype_acc, a kops::tensor_cores (as for kops::eval)");
  return ok;
}

// The whole of a solve entry: see the header comment. Policy...: eval's
// policies, in any order, each at most once (core/policy.hpp); they are the
// products' with K.
template <Solver Be, auto... Policy, class Red, class V, class T, class... Rest>
solve_result solve_call(const char* where, Red, V, double alpha, std::int64_t M, std::int64_t N, T* a,
                        const Rest&... rest) {
  constexpr bool policies = check_solve_policies<Policy...>();
  constexpr bool formula = check_solve_formula<Red, V>();
  constexpr bool unbatched = !((std::is_same_v<Rest, batch> || is_per_batch_v<Rest>) || ...);
  static_assert(unbatched, "kops::solve takes no batches (kops::batch, kops::per_batch): solve each problem "
                           "on its own");
  constexpr bool tail = unbatched && valid_option_tail(typename Be::option_types{}, type_list<Rest...>{});
  static_assert(tail || !unbatched,
                "kops::solve: after the solution array, pass one pointer per argument index, optionally followed "
                "by the backend's options, each at most once, last: a kops::solve_options, a kops::block_sparsity, "
                "and on the GPU a kops::cuda::options");
  constexpr bool ranged = (std::is_same_v<Rest, block_sparsity> || ...);
  if constexpr (policies && formula && tail) {
    return split_call(
        typename Be::option_types{},
        [&]<class... Args>(const auto& opts, const Args*... args) -> solve_result {
          if constexpr (check_solve_pointers<Red, T, Args...>()) {
            const T* ptrs[sizeof...(Args) + 1] = {args..., nullptr};  // + 1: no empty array
            solve_plan plan;
            if (!check_solve_arguments<Red, V>(where, M, N, a, ptrs, get_option<solve_options>(opts), plan))
              return solve_result{};
            Be be(where, opts);
            if constexpr (ranged) {
              // K's structure where the host reads it, checked once, before `a`
              // is first written (also when there is nothing to solve).
              sparsity_copy copy;
              block_sparsity host;
              if (!host_checked_sparsity<Red>(be, where, get_option<block_sparsity>(opts), copy, host, M, N))
                return solve_result{};
              return be.template solve<Red, V, true, Policy...>(plan, alpha, M, N, a, ptrs, &host);
            } else {
              return be.template solve<Red, V, false, Policy...>(plan, alpha, M, N, a, ptrs, nullptr);
            }
          } else {
            return solve_result{};
          }
        },
        rest...);
  } else {
    return solve_result{};
  }
}

} // namespace kops::detail
