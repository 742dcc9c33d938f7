#pragma once

#include <kops/reductions/reduction.hpp>

namespace kops {

struct sum_op {
  static constexpr const char* name = "sum_reduction";
  static constexpr const char* keops_name = "Sum";
  template <int D> static constexpr int out_dim = D;
  template <class T> using out_t = T;
  static constexpr bool zero_of_zero = true;
  // Output component k depends on formula component k only: a wide output may
  // be computed in chunks of components (detail/output_chunks.hpp).
  static constexpr bool componentwise = true;
  // The plain sum of the terms (lowering/plan.hpp: is_plain_sum_v; the ops
  // derived from it for a summation scheme are not).
  using plain_sum = sum_op;

  template <class V, class IV, int D>
  struct acc {
    vec<V, D> s;
  };

  template <class Math, class V, int D>
  KOPS_HD KOPS_INLINE static auto init(std::int64_t) {
    acc<V, typename Math::template index_t<V>, D> a;
    for (int k = 0; k < D; ++k) a.s[k] = V(0);
    return a;
  }
  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void accumulate(acc<V, IV, D>& a, const vec<V, D>& x, const IV&) {
    for (int k = 0; k < D; ++k) a.s[k] = a.s[k] + x[k];
  }
  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void combine(acc<V, IV, D>& a, const acc<V, IV, D>& b) {
    for (int k = 0; k < D; ++k) a.s[k] = a.s[k] + b.s[k];
  }
  template <class Math, class V, class IV, int D, class Out>
  KOPS_HD KOPS_INLINE static void finalize(const acc<V, IV, D>& a, int lane, Out* row) {
    for (int k = 0; k < D; ++k) row[k] = Math::lane(a.s[k], lane);
  }

  // Gradient (reductions/reduction.hpp: gradient_request): the sum of
  // [d_v f]^T e over the same pairs, over the other axis when v is indexed by
  // the reduced one.
  template <class Rq>
  static constexpr auto gradient(Rq) {
    using G = decltype(grad(typename Rq::formula{}, typename Rq::var{}, typename Rq::input{}));
    return Reduction<sum_op, G, typename Rq::grad_axis, Rq::arity>{};
  }
  // Forward mode (reductions/reduction.hpp: forward_request): the sum of
  // [d_v f] u over the same pairs.
  template <class Rq>
  static constexpr auto forward(Rq) {
    using H = decltype(diff(typename Rq::formula{}, typename Rq::var{}, typename Rq::direction{}));
    return Reduction<sum_op, H, typename Rq::axis, Rq::arity>{};
  }
};

/// The zero gradient (a sum of the zero formula: no work) for a gradient request.
template <class Rq>
using zero_gradient_t = Reduction<sum_op, Zero<Rq::var::dim>, typename Rq::grad_axis, Rq::arity>;

/// The zero forward derivative (a sum of the zero formula, the reduction's
/// output dim: no work) for a forward request.
template <class Rq>
using zero_forward_t = Reduction<sum_op, Zero<Rq::dim>, typename Rq::axis, Rq::arity>;

/// sum_reduction(f, axis): out = sum over the axis of f, component-wise (dim f).
/// Empty range: 0.
/// Gradient (autodiff issue): a sum over the other axis.
template <class F, class A>
constexpr auto sum_reduction(F, A) {
  static_assert(Formula<F>, "kops::sum_reduction: the first argument must be a kops formula");
  static_assert(Axis<A>, "kops::sum_reduction: the axis must be kops::axis_i or kops::axis_j");
  if constexpr (Formula<F> && Axis<A>) {
    static_assert(valid_reduction_formula_v<F>,
                  "kops::sum_reduction: an argument index is used for two different variables "
                  "(each index must have one category and one dim)");
    return Reduction<sum_op, F, A>{};
  } else {
    return detail::invalid_reduction{};  // the rule broken is reported above
  }
}

} // namespace kops
