// What every backend's kops::solve checks before it runs: the formula and the
// unknown at compile time, the call's pointers at compile time, the sizes,
// pointers and options at run time; solve_call.hpp makes them, in order. (The
// split of a call's trailing options from its pointers is the eval front
// end's, detail/dispatch.hpp.)
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <kops/core/error.hpp>
#include <kops/core/variable.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/reductions/reduction.hpp>
#include <kops/reductions/sum.hpp>
#include <kops/solve/linear.hpp>
#include <kops/solve/options.hpp>

namespace kops::detail {

// The rules on the reduction and the unknown; true when all hold. The backends
// compile the solve only then, so that the broken rule is the only error.
template <class Red, class V>
constexpr bool check_solve_formula() {
  constexpr bool var = Variable<V>;
  static_assert(var, "kops::solve: the second argument (the unknown) must be a variable, vi<I, D> or vj<I, D>");
  if constexpr (var) {
    // A two-pass (chained) gradient reduction is not one sum: it has passes.
    constexpr bool sum = std::is_same_v<typename Red::op, sum_op> && !requires { typename Red::first; };
    static_assert(sum, "kops::solve: the reduction must be a sum_reduction (K a is a sum over the reduced axis)");
    constexpr bool cat = V::cat == Red::red_cat;
    static_assert(cat, "kops::solve: the unknown must be indexed by the reduced axis (a vj for an axis_j "
                       "reduction, a vi for axis_i), so that K maps it to the output rows");
    constexpr bool dim = V::dim == Red::dim;
    static_assert(dim, "kops::solve: the unknown must have the dim of the reduction's output");
    if constexpr (sum && cat && dim) {
      constexpr bool reads = depends_on_v<typename Red::formula, V>;
      static_assert(reads, "kops::solve: the formula does not read the unknown variable "
                           "(it must be linear in it)");
      if constexpr (reads) {
        constexpr bool linear = is_linear_in_v<typename Red::formula, V>;
        static_assert(linear, "kops::solve: the formula must be linear in the unknown variable");
        return linear;
      }
    }
  }
  return false;
}

// The pointers after the solution array `a` (element T): one per argument
// index, of T, b in the unknown's slot.
template <class Red, class T, class... Args>
constexpr bool check_solve_pointers() {
  constexpr bool count = sizeof...(Args) == Red::nargs;
  static_assert(arguments_expected<Red::nargs>::template given<int(sizeof...(Args))>,
                "kops::solve: pass exactly one pointer per argument index of the formula (0 .. max index), in "
                "index order, the right-hand side b in the unknown's slot (the note below says how many were "
                "expected and how many given)");
  using E = std::remove_cv_t<T>;
  constexpr bool real = std::is_same_v<E, float> || std::is_same_v<E, double>;
  static_assert(real, "kops::solve: the arrays must be float or double arrays");
  constexpr bool writable = !std::is_const_v<T>;
  static_assert(writable, "kops::solve: the solution array must be writable (not a pointer to const)");
  constexpr bool same = (std::is_same_v<E, std::remove_cv_t<Args>> && ...);
  static_assert(same, "kops::solve: every argument must have the element type of the solution array");
  return count && real && writable && same;
}

// The solve's settings once the options are resolved.
struct solve_plan {
  std::int64_t n = 0;          // unknowns: N * D (or M * D for axis_i)
  double tolerance = 0;        // relative
  double absolute_tolerance = 0;
  std::int64_t max_iterations = 0;
  bool initial_guess = false;
};

// Run-time checks of a solve call; `args` holds Red::nargs pointers, b in the
// unknown's slot. True when the call may run, with its settings in `p`; else
// throws kops::error naming `where` and the argument, or, without exceptions,
// calls the error handler and returns false (`p` then means nothing).
template <class Red, class V, class T>
[[nodiscard]] bool check_solve_arguments(const char* where, std::int64_t M, std::int64_t N, const T* a,
                                         const T* const* args, const solve_options& o, solve_plan& p) {
  if (M < 0) return fail("%s: M (the number of i rows) must be >= 0, got %lld", where, (long long)M);
  if (N < 0) return fail("%s: N (the number of j rows) must be >= 0, got %lld", where, (long long)N);
  if (M != N)
    return fail("%s: K must be square, M (the number of i rows, %lld) must equal N (the number of j rows, %lld)",
                where, (long long)M, (long long)N);
  if (N > 0 && args[V::index] == nullptr)
    return fail("%s: argument %d (%s<%d,%d>), the right-hand side b, is a null pointer", where, V::index,
                variable_prefix(V::cat), V::index, V::dim);
  if (N > 0 && a == nullptr) return fail("%s: the solution pointer is null", where);
  if (!check_arguments<Red>(where, M, N, a, args)) return false;

  p = solve_plan{};
  p.n = N * V::dim;
  p.tolerance = o.tolerance.value_or(std::is_same_v<T, float> ? 1e-5 : 1e-10);
  p.absolute_tolerance = o.absolute_tolerance;
  p.max_iterations = o.max_iterations.value_or(10 * p.n);
  p.initial_guess = o.initial_guess;
  // Written as !(x >= 0) so that NaN fails too. (%f: std::to_string's format.)
  if (!(p.tolerance >= 0)) return fail("%s: the tolerance must be >= 0, got %f", where, p.tolerance);
  if (!(p.absolute_tolerance >= 0))
    return fail("%s: the absolute tolerance must be >= 0, got %f", where, p.absolute_tolerance);
  if (p.max_iterations < 0)
    return fail("%s: max_iterations must be >= 0, got %lld", where, (long long)p.max_iterations);
  return true;
}

} // namespace kops::detail
