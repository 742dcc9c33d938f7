// The CPU backend's form of exp(a b) for a factor b that is the same for every
// pair (parameters and constants only: the Gaussian's exp(-g |x - y|^2), the
// Laplace kernel's exp(-s |x - y|), ...). Under the accurate policy the CPU
// backend evaluates exp_scaled(a, b) = e^(a b) without rounding the product a b
// (simd_math.hpp: vexp_scaled, which carries b log2 e in two parts, hoisted out of
// the loop over pairs): one multiplication per pair less than exp(a * b), and the
// result is within an ulp of the exact e^(a b) rather than of e^(fl(a b)). The
// fast policy has its own rewrite (ops/exp2.hpp: fast_exp_t), CUDA neither.
#pragma once

#include <type_traits>

#include <kops/core/formula.hpp>
#include <kops/core/invariant.hpp>
#include <kops/core/precision.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/exp2.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/mult.hpp>

namespace kops::kokkos::detail {

struct scaled_exp_op {
  static constexpr bool expensive = true;
  static constexpr const char* name = "exp_scaled";
  static constexpr const char* keops_name = "Exp";  // exp(a * b) in KeOps' terms
  template <class M, class V> KOPS_INLINE static V apply(const V& a, const V& b) { return M::exp_scaled(a, b); }
};

template <class F> struct scaled_exp;
template <class F> using scaled_exp_t = typename scaled_exp<F>::type;
template <class F, class... C> auto scaled_exp_operands(type_list<C...>) -> rebind_t<F, type_list<scaled_exp_t<C>...>>;
template <class F, bool Leaf = (F::children::size == 0)> struct scaled_exp_below {
  using type = F;
};
template <class F> struct scaled_exp_below<F, false> {
  using type = decltype(scaled_exp_operands<F>(typename F::children{}));
};
template <class F> struct scaled_exp : scaled_exp_below<F> {};
// exp(a b): b invariant and a not (or the other way round) -> exp_scaled(a, b).
template <class A, class B> struct scaled_exp<Unary<exp_op, Binary<mult_op, A, B>>> {
  static constexpr int which = is_invariant_v<B> && !is_invariant_v<A>   ? 1
                               : is_invariant_v<A> && !is_invariant_v<B> ? 2
                                                                         : 0;
  using type = std::conditional_t<
      which == 1, Binary<scaled_exp_op, scaled_exp_t<A>, B>,
      std::conditional_t<which == 2, Binary<scaled_exp_op, scaled_exp_t<B>, A>,
                         typename scaled_exp_below<Unary<exp_op, Binary<mult_op, A, B>>>::type>>;
};
// exp(-(a b)), which the simplifier keeps as such: exp_scaled(a, -b).
template <class A, class B> struct scaled_exp<Unary<exp_op, Unary<minus_op, Binary<mult_op, A, B>>>> {
  static constexpr int which = is_invariant_v<B> && !is_invariant_v<A>   ? 1
                               : is_invariant_v<A> && !is_invariant_v<B> ? 2
                                                                         : 0;
  using type = std::conditional_t<
      which == 1, Binary<scaled_exp_op, scaled_exp_t<A>, Unary<minus_op, B>>,
      std::conditional_t<which == 2, Binary<scaled_exp_op, scaled_exp_t<B>, Unary<minus_op, A>>,
                         typename scaled_exp_below<Unary<exp_op, Unary<minus_op, Binary<mult_op, A, B>>>>::type>>;
};

// The formula the CPU backend evaluates for a reduction under a precision policy.
template <class Red, precision P>
struct cpu_formula {
  using type = policy_formula_t<Red, P>;
};
template <class Red>
struct cpu_formula<Red, precision::accurate> {
  using type = scaled_exp_t<policy_formula_t<Red, precision::accurate>>;
};
template <class Red, precision P>
using cpu_formula_t = typename cpu_formula<Red, P>::type;

} // namespace kops::kokkos::detail
