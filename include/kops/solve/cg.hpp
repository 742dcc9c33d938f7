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
//
// The steps between two checks are a "steps" object's (host_cg_steps: the
// loop above, reading p . q and r . r on the host at each step), or, when
// the backend offers it (CapturedStepsOps), its own that run them on the
// device with the same arithmetic (the CUDA backend's captured graph:
// backends/cuda/solve.hpp); the checks, restarts and stops stay here.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>

#include <kops/solve/checks.hpp>
#include <kops/solve/options.hpp>

namespace kops::detail {

// A check of the true residual that does not at least halve it since the last
// one ends the solve: the refinement has reached what T can represent.
inline constexpr double cg_stall_factor = 0.5;

// The vectors CG steps on (work's d, r, p, q: see conjugate_gradient).
template <class T>
struct cg_vectors {
  T *d, *r, *p, *q;
};

// Why a run of CG steps ended.
enum class cg_stop {
  running,     // no reason yet (the budget of the run was spent on plain steps)
  proposed,    // ||r|| <= threshold after the last step: the true residual decides
  breakdown,   // p . q is 0 or not finite: no step taken
  not_finite,  // r . r not finite after the last step
};

// A run of steps: how many were taken (products with K that moved d), and why it ended.
struct cg_advance {
  std::int64_t taken = 0;
  cg_stop stop = cg_stop::running;
};

// CG's steps on the host: each step reads p . q and r . r (Ops::dot) to
// choose the next. Steps (this, or a backend's own that runs them on the
// device: Ops::captured_steps) provide
//   restart()         rr = r . r, p = r (after the start and each true residual)
//   advance(budget)   at most budget (>= 1) steps, until one proposes a stop
template <class T, class Ops>
struct host_cg_steps {
  Ops& ops;
  double alpha, threshold;
  cg_vectors<T> v;
  double rr = 0;

  void restart() {
    rr = ops.dot(v.r, v.r);
    ops.copy(v.r, v.p);
  }
  cg_advance advance(std::int64_t) {
    ops.apply(v.p, v.q);
    ops.axpy(alpha, v.p, v.q);
    const double pq = ops.dot(v.p, v.q);
    if (pq == 0 || !std::isfinite(pq)) return {0, cg_stop::breakdown};
    const double step = rr / pq;
    ops.axpy(step, v.p, v.d);
    ops.axpy(-step, v.q, v.r);
    const double rr_next = ops.dot(v.r, v.r);
    if (!std::isfinite(rr_next)) return {1, cg_stop::not_finite};
    if (std::sqrt(rr_next) <= threshold) return {1, cg_stop::proposed};
    ops.xpay(v.r, rr_next / rr, v.p);
    rr = rr_next;
    return {1, cg_stop::running};
  }
};

// Ops whose steps may run on the device as a captured graph: when
// ops.captures_steps(), ops.captured_steps(alpha, threshold, vectors) gives
// the steps (the same arithmetic as host_cg_steps, bit for bit).
template <class Ops, class T>
concept CapturedStepsOps = requires(Ops& ops, const cg_vectors<T>& v) {
  { ops.captures_steps() } -> std::same_as<bool>;
  ops.captured_steps(0.0, 0.0, v);
};

template <class T, class Ops>
solve_result conjugate_gradient(Ops& ops, double alpha, const T* b_in, T* x, T* work, const solve_plan& plan) {
  const std::int64_t n = plan.n;
  T* const b = work;  // b's copy: x may be b_in
  const cg_vectors<T> v{work + n, work + 2 * n, work + 3 * n, work + 4 * n};
  T* const d = v.d;
  T* const r = v.r;
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
  // The iteration, on either kind of steps: r is the true residual of x (d =
  // 0) while no step has been taken since the last check.
  const auto iterate = [&](auto& steps) {
    std::int64_t checked_at = 0;
    steps.restart();
    while (res.iterations < plan.max_iterations) {
      const cg_advance a = steps.advance(plan.max_iterations - res.iterations);
      res.iterations += a.taken;
      if (a.stop == cg_stop::running) continue;
      if (a.stop != cg_stop::proposed) break;
      const double now = check();
      checked_at = res.iterations;
      if (now <= res.threshold || !(now <= cg_stall_factor * checked)) return finish(now);
      checked = now;
      ++res.restarts;
      steps.restart();
    }
    return finish(res.iterations == checked_at ? checked : check());
  };
  if constexpr (CapturedStepsOps<Ops, T>) {
    if (ops.captures_steps()) {
      auto steps = ops.captured_steps(alpha, res.threshold, v);
      return iterate(steps);
    }
  }
  host_cg_steps<T, Ops> steps{ops, alpha, res.threshold, v};
  return iterate(steps);
}

} // namespace kops::detail
