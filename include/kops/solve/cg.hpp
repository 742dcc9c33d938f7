// The conjugate-gradient iteration shared by the backends' kops::solve.
//
// Solves (alpha Id + K) a = b for a in R^n, n = N * D: the D columns of the
// unknown are one vector, as in KeOps (a formula may mix them, e.g. a
// matrix-valued kernel, so they cannot be solved column by column). K is
// applied by the backend's reduction; CG needs alpha Id + K symmetric and
// definite in the Euclidean inner product of R^n.
//
// Ops is the backend's vector space over arrays of n elements T:
//   void apply(const T* v, T* out)         out = K v   (the reduction in T, v in the unknown's slot)
//   double residual(double alpha, const T* b, const T* x, T* r)
//                                          r = b - (alpha x + K x) with K x and the difference in
//                                          double (the arguments widened from T); returns ||r||
//                                          of that double residual, accumulated in double
//   double dot(const T* u, const T* v)     sum_k u_k v_k, accumulated in double
//   void axpy(double s, const T* u, T* v)  v += s u
//   void xpay(const T* u, double s, T* v)  v = u + s v
//   void copy(const T* u, T* v)            v = u
//   void zero(T* v)                        v = 0
// work: scratch of 5 n elements (b's copy, d, r, p, q). x may be the same
// array as b (an in-place solve): b is copied before x is first written.
//
// With q_k = (alpha Id + K) p_k the iteration is the classic one, on the
// correction d to x (x + d solves the system):
//   s_k = (r_k . r_k) / (p_k . q_k),   d += s_k p_k,   r -= s_k q_k,
//   p_{k+1} = r_{k+1} + (r_{k+1} . r_{k+1}) / (r_k . r_k) p_k.
// r is updated, not recomputed, and in T it drifts from the true residual
// b - (alpha (x + d) + K (x + d)): each product's rounding (about
// eps_T sum_j |K_ij p_j|) accumulates into r but not into d. In float with
// alpha = 1e-4 the updated residual reached 1e-5 ||b|| while the true one was
// 3e-2 ||b|| (issue 35). So the updated residual only proposes a stop; the
// decision is the true residual's, computed in double (Ops::residual):
//
//   when ||r|| <= threshold: x += d, d = 0, r = the true residual of x
//     ||r|| <= threshold                     -> converged
//     ||r|| > stall * (the last check's)     -> stalled: T's rounding floor, not converged
//     else restart CG on the correction, p = r
//
// That is iterative refinement with the residual in double: each round solves
// (alpha Id + K) d = r in T, and d is added to x once per round, not once per
// step (x, large when alpha is small, would take the rounding of every step).
// The restart sets p = r: keeping p with beta = ||r_true||^2 / ||r||^2, a
// large ratio here, would point the next step back along the old direction.
// The iteration also ends after max_iterations products in T, or when p . q
// is 0 or not finite (no step can be taken: K singular or indefinite on p, or
// NaN input). What is reported is always the true residual of the returned x
// (one more product in double, unless x was just checked or is 0): converged
// means ||b - (alpha x + K x)|| <= threshold.
#pragma once

#include <cmath>
#include <cstdint>

#include <kops/solve/checks.hpp>
#include <kops/solve/options.hpp>

namespace kops::detail {

// A check of the true residual that does not at least halve it since the last
// one ends the solve: the refinement has reached what T can represent.
inline constexpr double cg_stall_factor = 0.5;

template <class T, class Ops>
solve_result conjugate_gradient(Ops& ops, double alpha, const T* b_in, T* x, T* work, const solve_plan& plan) {
  const std::int64_t n = plan.n;
  T* const b = work;  // b's copy: x may be b_in
  T* const d = work + n;
  T* const r = work + 2 * n;
  T* const p = work + 3 * n;
  T* const q = work + 4 * n;
  solve_result res;
  ops.copy(b_in, b);
  const double b_norm = std::sqrt(ops.dot(b, b));
  res.threshold = std::fmax(plan.tolerance * b_norm, plan.absolute_tolerance);

  // x += d, then the true residual of x into r; its norm.
  const auto check = [&] {
    ops.axpy(1.0, d, x);
    ops.zero(d);
    ++res.residual_checks;
    return ops.residual(alpha, b, x, r);
  };
  const auto finish = [&](double norm) {
    res.residual_norm = norm;
    res.relative_residual = b_norm > 0 ? norm / b_norm : norm;
    res.converged = norm <= res.threshold;
    return res;
  };

  ops.zero(d);
  double checked;  // ||r|| at the last check (or ||b|| for x = 0)
  if (plan.initial_guess) {
    checked = check();
  } else {
    ops.zero(x);
    ops.copy(b, r);
    checked = b_norm;
  }
  if (!(checked > res.threshold)) return finish(checked);  // NaN too: nothing to iterate on
  double rr = ops.dot(r, r);
  bool current = true;  // d = 0 and r is the true residual of x
  ops.copy(r, p);
  for (std::int64_t k = 0; k < plan.max_iterations; ++k) {
    ops.apply(p, q);
    ops.axpy(alpha, p, q);
    const double pq = ops.dot(p, q);
    if (pq == 0 || !std::isfinite(pq)) break;
    const double step = rr / pq;
    ops.axpy(step, p, d);
    ops.axpy(-step, q, r);
    current = false;
    const double rr_next = ops.dot(r, r);
    res.iterations = k + 1;
    if (!std::isfinite(rr_next)) break;
    if (std::sqrt(rr_next) <= res.threshold) {
      const double now = check();
      current = true;
      if (now <= res.threshold || !(now <= cg_stall_factor * checked)) return finish(now);
      checked = now;
      ++res.restarts;
      rr = ops.dot(r, r);
      ops.copy(r, p);
      continue;
    }
    ops.xpay(r, rr_next / rr, p);
    rr = rr_next;
  }
  return finish(current ? checked : check());
}

} // namespace kops::detail
