// kops::kokkos::solve: conjugate gradient for (alpha Id + K) a = b on the CPU
// backend, through the solve front end (solve/solve_call.hpp). host_solver
// gives the CG driver of solve/cg.hpp its vector space on host arrays
// (host_solve_ops): each product with K is a kops::kokkos::eval with the
// call's policies (dense or block-sparse), the true residual's product an
// eval in double (a float call's arguments widened once per solve), the
// vector updates and dot products plain loops on the host.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <kops/backends/kokkos/eval.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/solve/solve_call.hpp>
#include <kops/solve/cg.hpp>
#include <kops/solve/checks.hpp>
#include <kops/solve/options.hpp>
#include <kops/solve/widen.hpp>

/// The Kokkos CPU backend, on host pointers: eval and solve.
namespace kops::kokkos {
namespace detail {

// A float solve's arguments widened to double, for the true residual's
// product (solve/widen.hpp); for a double solve, the arguments themselves.
// ptrs: Red::nargs pointers, the unknown's slot left for the caller to bind.
template <class Red, int Var, class T>
struct host_wide_arguments {
  std::vector<double> storage;
  const double* ptrs[Red::nargs + 1] = {};  // + 1: no empty array

  host_wide_arguments(std::int64_t M, std::int64_t N, const T* const* args) {
    if constexpr (std::is_same_v<T, double>) {
      for (int k = 0; k < Red::nargs; ++k) ptrs[k] = args[k];
    } else {
      std::int64_t total = 0;
      kops::detail::for_each_solve_argument<Red, Var>(M, N, [&](int, std::int64_t count) { total += count; });
      storage.resize(std::size_t(total));
      double* next = storage.data();
      kops::detail::for_each_solve_argument<Red, Var>(M, N, [&](int k, std::int64_t count) {
        for (std::int64_t e = 0; e < count; ++e) next[e] = double(args[k][e]);
        ptrs[k] = next;
        next += count;
      });
    }
  }
};

// The vector space of kops/solve/cg.hpp on host arrays of n elements.
// Ranged: K is block-sparse, its products take *sparsity. Policy...: the
// solve's, passed on to each product in T; the true residual's product is an
// eval in double with the default policies (accurate, whatever the products').
template <class Red, int Var, class T, bool Ranged, auto... Policy>
struct host_solve_ops {
  std::int64_t M, N, n;
  const T** args;  // Red::nargs pointers; args[Var] is rebound to each vector K is applied to
  const block_sparsity* sparsity;
  host_wide_arguments<Red, Var, T> wide;
  std::vector<double> wide_x, product;  // x widened (float only), K x in double

  host_solve_ops(std::int64_t M_, std::int64_t N_, std::int64_t n_, const T** args_, const block_sparsity* s)
      : M(M_), N(N_), n(n_), args(args_), sparsity(s), wide(M_, N_, args_),
        wide_x(std::is_same_v<T, double> ? 0 : std::size_t(n_)), product(std::size_t(n_)) {}

  // out = K v, the products in U with the policies P...; a: Red::nargs pointers.
  template <auto... P, class U>
  void reduce(const U* const* a, U* out) const {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (Ranged)
        kops::kokkos::eval<P...>(Red{}, M, N, out, a[I]..., *sparsity);
      else
        kops::kokkos::eval<P...>(Red{}, M, N, out, a[I]...);
    }(std::make_index_sequence<Red::nargs>{});
  }
  void apply(const T* v, T* out) {
    args[Var] = v;
    reduce<Policy...>(args, out);
  }
  double residual(double alpha, const T* b, const T* x, T* r) {
    const double* xd;
    if constexpr (std::is_same_v<T, double>) {
      xd = x;
    } else {
      for (std::int64_t k = 0; k < n; ++k) wide_x[k] = double(x[k]);
      xd = wide_x.data();
    }
    wide.ptrs[Var] = xd;
    reduce(wide.ptrs, product.data());
    double rr = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const double e = double(b[k]) - (alpha * xd[k] + product[k]);
      r[k] = T(e);
      rr += e * e;
    }
    return std::sqrt(rr);
  }
  double dot(const T* u, const T* v) const {
    double s = 0;
    for (std::int64_t k = 0; k < n; ++k) s += double(u[k]) * double(v[k]);
    return s;
  }
  void axpy(double s, const T* u, T* v) const {
    const T c = T(s);
    for (std::int64_t k = 0; k < n; ++k) v[k] += c * u[k];
  }
  void xpay(const T* u, double s, T* v) const {
    const T c = T(s);
    for (std::int64_t k = 0; k < n; ++k) v[k] = u[k] + c * v[k];
  }
  void copy(const T* u, T* v) const {
    for (std::int64_t k = 0; k < n; ++k) v[k] = u[k];
  }
  void zero(T* v) const {
    for (std::int64_t k = 0; k < n; ++k) v[k] = T(0);
  }
};

// kops::kokkos::solve for the solve front end (solve/solve_call.hpp): CG on
// host arrays, each product with K a kops::kokkos::eval.
struct host_solver {
  using option_types = type_list<solve_options, block_sparsity>;
  const char* where;

  host_solver(const char* w, const kops::detail::option_set<solve_options, block_sparsity>&) : where(w) {}

  template <class Red, class V, bool Ranged, auto... Policy, class T>
  solve_result solve(const kops::detail::solve_plan& plan, double alpha, std::int64_t M, std::int64_t N, T* a,
                     const T** ptrs, const block_sparsity* s) {
    if (plan.n == 0) return kops::detail::nothing_to_solve(plan);
    // Checked here too (eval checks it), before the solution array is first written.
    if (!Kokkos::is_initialized()) {
      kops::detail::fail("%s: Kokkos is not initialized (create a Kokkos::ScopeGuard "
                         "or call Kokkos::initialize first)",
                         where);
      return solve_result{};
    }
    const T* b = ptrs[V::index];
    std::vector<T> work(5 * std::size_t(plan.n));
    host_solve_ops<Red, V::index, T, Ranged, Policy...> ops(M, N, plan.n, ptrs, s);
    return kops::detail::conjugate_gradient<T>(ops, alpha, b, a, work.data(), plan);
  }
};

} // namespace detail

/// kops::kokkos::solve: conjugate-gradient solve of (alpha Id + K) a = b on the CPU.
///
/// ```text
///   solve<Policy...>(red, v, alpha, M, N, a, args...[, opts][, s])  ->  kops::solve_result
/// ```
///
/// ```text
///   red   sum_reduction(F, axis_j) (or axis_i), F linear in the variable v
///   v     the unknown: a vj (axis_j) or vi (axis_i) of dim red.dim
///   K     the linear map u -> red evaluated with u in v's slot: (K u)_i = sum_j F(x_i, y_j, u_j)
///   args  host pointers in variable-index order, as for eval; v's slot holds b:(N, D)
///   a     the solution:(N, D) (M = N is required: K is square); may be b itself
///   opts  kops::solve_options (tolerance, max_iterations, initial guess)
///   s     a kops::block_sparsity: K block-sparse (its kept pairs only); CG needs
///         K symmetric, so s should keep (i, j) exactly when it keeps (j, i)
///         (from_matrix of a symmetric mask over the same clusters does)
/// ```
///
/// Policy...: eval's compile-time policies, in any order, each at most once
/// (core/policy.hpp), e.g. solve<kops::precision::fast>(...) or
/// solve<kops::sum_scheme::kahan, kops::dtype_acc::float64>(...); they are the
/// products'. The products with K run through kops::kokkos::eval<Policy...> (parallel on
/// Kokkos::DefaultHostExecutionSpace); the O(N D) vector updates of CG run
/// serially in the calling thread, with dot products accumulated in double.
/// The stop is decided on the true residual, its product with K evaluated in
/// double (see kops::solve_options and docs/solve.md).
/// Non-convergence is reported in the result, not thrown; bad input throws
/// kops::error (without exceptions: calls the kops::set_error_handler handler
/// and returns a default solve_result, converged false, `a` untouched).
/// The algorithm: kops/solve/cg.hpp.
///
/// Returns after the solve; `a` holds the last iterate.
template <auto... Policy, ReductionType Red, class V, class T, class... Rest>
solve_result solve(Red red, V v, double alpha, std::int64_t M, std::int64_t N, T* a, Rest... rest) {
  return kops::detail::solve_call<detail::host_solver, Policy...>("kops::kokkos::solve", red, v, alpha, M, N, a,
                                                                   rest...);
}

/// The range form (detail/sized.hpp): solve(red, v, alpha, a, x, y, b, ...[, options])
/// with contiguous ranges (std::span, std::vector, std::array, Kokkos::View) in place of
/// (M, N, a, pointers): M = N deduced, every range's size checked (a kops::error
/// naming the argument, the size expected and the size given), then the pointer form.
template <auto... Policy, ReductionType Red, class V, kops::detail::SizedArgument A, class... Rest>
solve_result solve(Red red, V v, double alpha, A&& a, const Rest&... rest) {
  return kops::detail::solve_range_call<Red, V, solve_result>(
      "kops::kokkos::solve", -1, -1, [&](auto... x) { return solve<Policy...>(red, v, alpha, x...); }, a, rest...);
}
/// The range form with M and N given: checked likewise.
template <auto... Policy, ReductionType Red, class V, kops::detail::SizedArgument A, class... Rest>
solve_result solve(Red red, V v, double alpha, std::int64_t M, std::int64_t N, A&& a, const Rest&... rest) {
  return kops::detail::solve_range_call<Red, V, solve_result>(
      "kops::kokkos::solve", M, N, [&](auto... x) { return solve<Policy...>(red, v, alpha, x...); }, a, rest...);
}

/// Anything but a reduction first: one error in kops's words (a formula needs
/// a reduction around it; detail/dispatch.hpp, check_is_reduction).
template <auto... Policy, class F, class... Rest>
  requires(!ReductionType<F>)
solve_result solve(F, const Rest&...) {
  (void)kops::detail::check_is_reduction<F>();
  return solve_result{};
}

} // namespace kops::kokkos
