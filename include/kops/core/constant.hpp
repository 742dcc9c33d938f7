// The exact constants of a formula: IntConst<N> (cst<N>), Rational<P, Q>
// (P/Q in lowest terms, Q > 1) and Zero<D> (zero<D>), their traits
// (is_constant_v, is_zero_v, is_one_v, is_constant_value_v) and
// make_constant<P, Q>(), the one canonical node for P/Q that every
// simplification folding constants returns. Values are exact integers or
// fractions at compile time and are rounded once to the context's scalar type
// when evaluated; irrational constants (log2 e, ln 2) are named_constant.hpp's.
#pragma once


#include <kops/core/formula.hpp>

namespace kops {

namespace detail {
// Greatest common divisor of |a| and |b| (std::gcd without <numeric>, whose
// C++20 parallel-algorithm declarations cost every translation unit).
constexpr long long gcd(long long a, long long b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const long long r = a % b;
    a = b;
    b = r;
  }
  return a;
}
} // namespace detail

template <long long N>
struct IntConst : formula_node {
  static constexpr int dim = 1;
  static constexpr long long num = N, den = 1;
  using children = type_list<>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx&) {
    using V = value_t<Ctx>;
    return vec<V, 1>{{V(static_cast<typename Ctx::scalar_type>(N))}};
  }
};

template <long long P, long long Q>
struct Rational : formula_node {
  static_assert(Q > 1 && detail::gcd(P, Q) == 1, "kops::Rational: build it with make_constant<P, Q>()");
  static constexpr int dim = 1;
  static constexpr long long num = P, den = Q;
  using children = type_list<>;

  // P/Q in S, rounded once from the quotient in long double, at compile time:
  // a variable template, so that no long double appears in device code (nvcc
  // warns about a long double even in a constexpr local of a device function).
  template <class S>
  static constexpr S value = static_cast<S>(static_cast<long double>(P) / static_cast<long double>(Q));

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx&) {
    using V = value_t<Ctx>;
    return vec<V, 1>{{V(value<typename Ctx::scalar_type>)}};
  }
};

template <int D>
struct Zero : formula_node {
  static_assert(D >= 1, "kops::zero: the dimension must be >= 1");
  static constexpr int dim = D;
  static constexpr long long num = 0, den = 1;
  using children = type_list<>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx&) {
    using V = value_t<Ctx>;
    vec<V, D> r;
    for (int k = 0; k < D; ++k) r[k] = V(typename Ctx::scalar_type(0));
    return r;
  }
};

/// Constants, exact and folded at compile time:
/// ```text
///   cst<N>        the integer N (IntConst<N>, dim 1)
///   Rational<P,Q> the exact fraction P/Q in lowest terms, Q > 1 (dim 1)
///   zero<D>       the dim-D zero vector (Zero<D>); the zero scalar is Zero<1>
/// ```
/// make_constant<P, Q>() builds the canonical node for P/Q, which is what every
/// simplification that folds constants returns.
template <long long N> inline constexpr IntConst<N> cst{};
/// `zero<D>`: the dim-D zero vector (a `Zero<D>`). See cst.
template <int D> inline constexpr Zero<D> zero{};

// Scalar constants (dim 1, exact value num/den) and zero vectors.
template <class F> inline constexpr bool is_constant_v = false;
template <long long N> inline constexpr bool is_constant_v<IntConst<N>> = true;
template <long long P, long long Q> inline constexpr bool is_constant_v<Rational<P, Q>> = true;
template <> inline constexpr bool is_constant_v<Zero<1>> = true;

template <class F> inline constexpr bool is_zero_v = false;
template <int D> inline constexpr bool is_zero_v<Zero<D>> = true;
template <> inline constexpr bool is_zero_v<IntConst<0>> = true;

template <class F> inline constexpr bool is_one_v = false;
template <> inline constexpr bool is_one_v<IntConst<1>> = true;

// F is the scalar constant P/Q.
template <class F, long long P, long long Q> inline constexpr bool is_constant_value_v = false;
template <class F, long long P, long long Q>
  requires is_constant_v<F>
inline constexpr bool is_constant_value_v<F, P, Q> = F::num * Q == P * F::den;

template <long long P, long long Q>
constexpr auto make_constant() {
  static_assert(Q != 0, "kops: division by the constant zero");
  constexpr long long s = Q < 0 ? -1 : 1;
  constexpr long long g = detail::gcd(P, Q);
  constexpr long long p = s * P / g, q = s * Q / g;
  if constexpr (p == 0) return Zero<1>{};
  else if constexpr (q == 1) return IntConst<p>{};
  else return Rational<p, q>{};
}

} // namespace kops
