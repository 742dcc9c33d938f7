// Extremum<IsMax, Arg, F>: the node behind the within-vector max, min, argmax
// and argmin (ops/max.hpp, min.hpp, argmax.hpp, argmin.hpp), dim D -> 1:
//   max(a) = max_k a_k,   argmax(a) = the first k where a_k = max(a), as a value
//   (0.0, 1.0, ...: a formula's components are values, as in KeOps).
// NaN and ties follow the extremum reductions (reductions/detail/extremum.hpp)
// and numpy: ties keep the first index; a NaN component wins and sticks, so
// max(a) is NaN and argmax(a) the index of the first NaN. (KeOps' Max only
// skips later NaNs and keeps a leading one.)
// Derivatives: the whole gradient goes to the first arg component, likewise for
// min; argmax and argmin are piecewise constant: derivative 0. max selects a
// component, and so does its derivative when A is componentwise in V
// (core/elementwise.hpp), so that the derivatives of the other components never
// enter the arithmetic (they may be infinite: max(sqrt(x)) with some x_k = 0):
//   [d_V max A]^T g = ifelse(-one_hot<D>(argmax A), 0, [d_V A]^T sum_t<D>(g))
// and otherwise [d_V A]^T (one_hot<D>(argmax A) g) with the selection moved as far
// down A as it goes (ops/ifelse.hpp: detail::grad_where).
#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/ops/ifelse.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/mult.hpp>
#include <kops/ops/one_hot.hpp>
#include <kops/ops/sum.hpp>

namespace kops {

template <bool IsMax, bool Arg, Formula F>
struct Extremum : formula_node {
  static constexpr int dim = 1;
  static constexpr const char* name = IsMax ? (Arg ? "argmax" : "max") : (Arg ? "argmin" : "min");
  static constexpr const char* keops_name = IsMax ? (Arg ? "ArgMax" : "Max") : (Arg ? "ArgMin" : "Min");
  using children = type_list<F>;
  template <class C> using rebind = Extremum<IsMax, Arg, C>;

  // x replaces the best so far b: strictly better, or the first NaN.
  template <class V>
  KOPS_HD KOPS_INLINE static auto better(const V& x, const V& b) {
    if constexpr (IsMax) return (x > b) | ((x != x) & (b == b));
    else return (x < b) | ((x != x) & (b == b));
  }

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    using S = typename Ctx::scalar_type;
    using Math = math_t<Ctx>;
    const auto a = F::eval(ctx);
    V best = a[0];
    V index = V(S(0));
    for (int k = 1; k < F::dim; ++k) {
      const auto m = better(a[k], best);
      best = Math::select(m, a[k], best);
      if constexpr (Arg) index = Math::select(m, V(S(k)), index);
    }
    if constexpr (Arg) return vec<V, 1>{{index}};
    else return vec<V, 1>{{best}};
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    if constexpr (Arg) return Zero<V::dim>{};
    else return detail::grad_where(one_hot<F::dim>(Extremum<IsMax, true, F>{}), F{}, v, sum_t<F::dim>(g));
  }
};

namespace detail {
template <class F> inline constexpr bool is_sum_t_v = false;
template <int D, class F> inline constexpr bool is_sum_t_v<SumT<D, F>> = true;

// The builders of the four ops. Simplifications: a dim-1 operand is its own
// extremum (index 0); zero and sum_t(a) (all components equal) have value 0
// resp. a, index 0; max(-a) = -min(a), argmax(-a) = argmin(a) (exact, NaN and
// ties included).
template <bool IsMax, bool Arg, class F>
constexpr auto extremum([[maybe_unused]] F f) {
  if constexpr (F::dim == 1 || is_zero_v<F> || is_sum_t_v<F>) {
    if constexpr (Arg) return Zero<1>{};
    else if constexpr (F::dim == 1) return f;
    else if constexpr (is_zero_v<F>) return Zero<1>{};
    else return operand_t<F, 0>{};
  } else if constexpr (is_neg_v<F>) {
    if constexpr (Arg) return extremum<!IsMax, true>(operand_t<F, 0>{});
    else return -extremum<!IsMax, false>(operand_t<F, 0>{});
  } else {
    return Extremum<IsMax, Arg, F>{};
  }
}
} // namespace detail

} // namespace kops
