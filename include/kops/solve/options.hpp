#pragma once

#include <cstdint>
#include <optional>

namespace kops {

/// kops::solve_options and kops::solve_result: how a conjugate-gradient solve
/// (kops::kokkos::solve, kops::cuda::solve) stops, and what it reports.
///
/// The solve stops as soon as the residual r = b - (alpha a + K a) satisfies
///
/// ```text
///   ||r|| <= max(tolerance * ||b||, absolute_tolerance)          (Euclidean norms
///                                                                 over all N * D entries)
/// ```
///
/// or after max_iterations products with K. CG updates a residual at every step
/// (r -= step * (alpha p + K p)), as in KeOps and SciPy; in floating point it
/// drifts from the true residual (in float with a small alpha by orders of
/// magnitude: docs/solve.md). It only proposes the stop: the true residual is
/// then computed, with the product K a and the norms in double, and decides;
/// when it misses the threshold CG restarts from a with it. residual_norm and
/// converged are always the true residual's.
struct solve_options {
  /// Relative tolerance on ||r|| / ||b||; empty: 1e-10 for double data, 1e-5 for float.
  std::optional<double> tolerance;
  /// Absolute floor of the stopping threshold (KeOps' atol); 0: purely relative.
  double absolute_tolerance = 0;
  /// Most products with K; empty: 10 * N * D (ten times the number of unknowns).
  std::optional<std::int64_t> max_iterations;
  /// false: start from a = 0 (the output array's contents are ignored);
  /// true: start from the values the output array holds on entry.
  bool initial_guess = false;
};

/// What a solve reports (kops::kokkos::solve, kops::cuda::solve): see solve_options for the stopping test.
struct solve_result {
  std::int64_t iterations = 0;   ///< products with K in the CG loop (the initial guess's excluded)
  double residual_norm = 0;      ///< ||b - (alpha a + K a)|| of the returned a, computed in double
  double relative_residual = 0;  ///< residual_norm / ||b|| (residual_norm itself when b = 0)
  double threshold = 0;          ///< max(tolerance * ||b||, absolute_tolerance): the stopping test
  bool converged = false;        ///< residual_norm <= threshold
  std::int64_t residual_checks = 0;  ///< true residuals computed (each one more product with K, in double)
  std::int64_t restarts = 0;         ///< restarts of CG from a true residual that missed the threshold
};

} // namespace kops
