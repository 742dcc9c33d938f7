#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/ops/extract.hpp>

namespace kops {

template <int D, Formula F>
struct OneHot : formula_node {
  static_assert(F::dim == 1 && D >= 1, "kops::one_hot: the operand must have dim 1 and D >= 1");
  static constexpr int dim = D;
  static constexpr const char* name = "one_hot";
  static constexpr const char* keops_name = "OneHot";
  using print_params = int_params<D>;
  using children = type_list<F>;
  template <class C> using rebind = OneHot<D, C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    using S = typename Ctx::scalar_type;
    using Math = math_t<Ctx>;
    const V a = F::eval(ctx)[0];
    const V one = V(S(1)), zero = V(S(0));
    vec<V, D> r;
    for (int k = 0; k < D; ++k)
      r[k] = Math::select(a >= V(S(k) - S(0.5)), Math::select(a < V(S(k) + S(0.5)), one, zero), zero);
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V, G) {
    return Zero<V::dim>{};
  }
};

namespace detail {
// floor(p / q + 1/2) for q > 0: the index a constant p/q rounds to.
constexpr long long round_half_up(long long p, long long q) {
  const long long n = 2 * p + q, d = 2 * q;
  return n >= 0 ? n / d : -((-n + d - 1) / d);
}
} // namespace detail

/// one_hot<D>(a): dim 1 -> D, the vector with a 1 at the rounded index of a and
/// zeros elsewhere (KeOps' OneHot(a, D)): component k is 1 when
/// k - 1/2 <= a < k + 1/2 (a rounded half up, as KeOps' (int)(a + .5) for
/// a >= -1/2), else 0. An index outside [0, D) and a NaN give the zero vector
/// (KeOps writes outside the vector there, and sets component 0 for
/// -3/2 < a < -1/2, where (int) truncates towards zero).
/// Derivative: 0 (piecewise constant).
/// Simplifications: a constant index folds to elem_t<D, k>(1) (or zero<D>).
template <int D, Formula F>
constexpr auto one_hot([[maybe_unused]] F f) {
  static_assert(F::dim == 1, "kops::one_hot: the operand must have dim 1 (it holds an index)");
  static_assert(D >= 1, "kops::one_hot: D >= 1");
  if constexpr (F::dim != 1 || D < 1) {
    return Zero<1>{};  // (after a failed assertion: no second error)
  } else if constexpr (is_constant_v<F>) {
    constexpr long long k = detail::round_half_up(F::num, F::den);
    if constexpr (k >= 0 && k < D) return extract_t<int(k), D>(cst<1>);
    else return Zero<D>{};
  } else {
    return OneHot<D, F>{};
  }
}

} // namespace kops
