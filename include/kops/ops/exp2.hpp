#pragma once

#include <kops/core/factorize.hpp>
#include <kops/core/named_constant.hpp>
#include <kops/core/precision.hpp>
#include <kops/ops/exp.hpp>

namespace kops {

struct exp2_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "exp2";
  static constexpr const char* keops_name = "Exp2";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::exp2(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return ln2 * (exp2(f) * g); }
};

/// exp2: exp2(a)_k = 2^{a_k}.
/// Derivative: [d_V exp2 A]^T g = [d_V A]^T (ln 2 exp2(A) g).
/// Backends evaluate exp(a) as exp2(a log2 e) under the fast precision policy
/// (see fast_exp_t below), with log2 e grouped into the invariant factors of a
/// so that it costs nothing per pair.
template <Formula F>
constexpr auto exp2([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> && F::dim == 1) return cst<1>;
  else return Unary<exp2_op, F>{};
}

namespace detail {
template <class F> struct fast_exp;
template <class F> using fast_exp_t = typename fast_exp<F>::type;
template <class F, class... C> auto fast_exp_operands(type_list<C...>) -> rebind_t<F, type_list<fast_exp_t<C>...>>;
template <class F, bool Leaf = (F::children::size == 0)> struct fast_exp_below {
  using type = F;
};
template <class F> struct fast_exp_below<F, false> {
  using type = decltype(fast_exp_operands<F>(typename F::children{}));
};
template <class F> struct fast_exp : fast_exp_below<F> {};
template <class X> struct fast_exp<Unary<exp_op, X>> {
  using type = Unary<exp2_op, decltype(fast_exp_t<X>{} * log2e)>;
};
} // namespace detail

// F with every exp(a) replaced by exp2(a log2 e), log2 e grouped with a's
// invariant factors (what the fast policy evaluates).
template <Formula F>
using fast_exp_t = detail::fast_exp_t<F>;

// The formula a backend evaluates for a reduction under a precision policy:
// factorized, and with the fast exp rewrite under precision::fast.
// (Specialisations rather than std::conditional_t: only the chosen rewrite is
// instantiated.)
template <class Red, precision P>
struct policy_formula {
  using type = evaluated_formula_t<Red>;
};
template <class Red>
struct policy_formula<Red, precision::fast> {
  using type = auto_factorize_t<fast_exp_t<typename Red::formula>>;
};
template <class Red, precision P>
using policy_formula_t = typename policy_formula<Red, P>::type;

} // namespace kops
