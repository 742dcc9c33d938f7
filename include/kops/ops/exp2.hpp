// exp2: exp2(a)_k = 2^{a_k}.
// Derivative: [d_V exp2 A]^T g = [d_V A]^T (ln 2 exp2(A) g).
// Backends evaluate exp(a) as exp2(a log2 e) under the fast precision policy
// (see fast_exp_t below), with log2 e grouped into the invariant factors of a
// so that it costs nothing per pair.
#pragma once

#include <kops/core/factorize.hpp>
#include <kops/core/named_constant.hpp>
#include <kops/ops/exp.hpp>

namespace kops {

struct exp2_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "exp2";
  static constexpr const char* keops_name = "Exp2";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::exp2(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return ln2 * (exp2(f) * g); }
};

template <Formula F>
constexpr auto exp2([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> && F::dim == 1) return cst<1>;
  else return Unary<exp2_op, F>{};
}

namespace detail {
template <class F> struct fast_exp;
template <class F> using fast_exp_t = typename fast_exp<F>::type;
template <class F> struct fast_exp {
  using type = F;  // leaves
};
template <class X> struct fast_exp<Unary<exp_op, X>> {
  using type = Unary<exp2_op, decltype(fast_exp_t<X>{} * log2e)>;
};
template <class Op, class X> struct fast_exp<Unary<Op, X>> {
  using type = Unary<Op, fast_exp_t<X>>;
};
template <class Op, class X, class Y> struct fast_exp<Binary<Op, X, Y>> {
  using type = Binary<Op, fast_exp_t<X>, fast_exp_t<Y>>;
};
template <class X> struct fast_exp<Sum<X>> {
  using type = Sum<fast_exp_t<X>>;
};
template <int D, class X> struct fast_exp<SumT<D, X>> {
  using type = SumT<D, fast_exp_t<X>>;
};
template <class F, class G, int K> struct fast_exp<Factorized<F, G, K>> {
  using type = Factorized<fast_exp_t<F>, fast_exp_t<G>, K>;
};
template <template <int, int, class> class N, int A, int B, class X>
  requires Formula<N<A, B, X>>
struct fast_exp<N<A, B, X>> {
  using type = N<A, B, fast_exp_t<X>>;  // extract, extract_t
};
template <template <class, class> class N, class X, class Y>
  requires Formula<N<X, Y>>
struct fast_exp<N<X, Y>> {
  using type = N<fast_exp_t<X>, fast_exp_t<Y>>;  // concat
};
} // namespace detail

// F with every exp(a) replaced by exp2(a log2 e), log2 e grouped with a's
// invariant factors (what the fast policy evaluates).
template <Formula F>
using fast_exp_t = detail::fast_exp_t<F>;

} // namespace kops
