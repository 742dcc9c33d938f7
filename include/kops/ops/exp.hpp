#pragma once

#include <type_traits>

#include <kops/core/invariant.hpp>
#include <kops/core/named_constant.hpp>
#include <kops/ops/divide.hpp>
#include <kops/ops/exp2.hpp>

namespace kops {

struct exp_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "exp";
  static constexpr const char* keops_name = "Exp";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::exp(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return exp(f) * g; }

  // Lowering forms (lowering/lower.hpp), applied to exp(x) once x is lowered:
  // under precision::fast, exp2(x log2 e); on a backend whose math provider
  // has exp_scaled, e^(a b) for x = a b or -(a b) with b invariant. Defined below.
  template <class X> static constexpr auto fast_form(X);
  template <class X> static constexpr auto scaled_form(X);
};

/// exp_scaled(a, b) = e^(a b), the product not rounded: what a backend whose
/// math provider has exp_scaled (the CPU's, backends/kokkos/simd_math.hpp:
/// vexp_scaled, which carries b log2 e in two parts, hoisted out of the loop
/// over pairs) evaluates for exp(a b) with b invariant (parameters and
/// constants only: the Gaussian's exp(-g |x - y|^2), the Laplace kernel's
/// exp(-s |x - y|), ...) under the accurate policy: one multiplication per
/// pair less than exp(a * b), and within an ulp of the exact e^(a b) rather
/// than of e^(fl(a b)). Never built by users: exp_op::scaled_form.
struct scaled_exp_op {
  static constexpr bool expensive = true;
  static constexpr const char* name = "exp_scaled";
  static constexpr const char* keops_name = "Exp";  // exp(a * b) in KeOps' terms
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) { return Math::exp_scaled(a, b); }
};

/// exp: exp(a)_k = e^{a_k}.
/// Simplifications: exp(0) = 1 (dim 1); exp(log a) is kept (a may be negative).
/// Derivative: [d_V exp A]^T g = [d_V A]^T (exp(A) g).
template <Formula F>
constexpr auto exp([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> && F::dim == 1) return cst<1>;
  else return Unary<exp_op, F>{};
}

template <class X>
constexpr auto exp_op::fast_form(X) {
  return Unary<exp2_op, decltype(X{} * log2e)>{};
}

namespace detail {
// a b with exactly one of a, b invariant: 1 when b is, 2 when a is, else 0.
template <class A, class B>
inline constexpr int invariant_factor_v = is_invariant_v<B> && !is_invariant_v<A>   ? 1
                                          : is_invariant_v<A> && !is_invariant_v<B> ? 2
                                                                                    : 0;
// exp(x) as the scaled form sees it: x = s (a b), s = +1 or -1 (-(a b), which
// the simplifier keeps as such), with exactly one of a, b invariant, becomes
// exp_scaled(variant factor, s * invariant factor); any other x stays exp(x).
template <class F> using keep_sign = F;
template <class F> using flip_sign = Unary<minus_op, F>;
template <class A, class B, template <class> class Sign, class X>
using scaled_or_exp = std::conditional_t<
    invariant_factor_v<A, B> == 1, Binary<scaled_exp_op, A, Sign<B>>,
    std::conditional_t<invariant_factor_v<A, B> == 2, Binary<scaled_exp_op, B, Sign<A>>, Unary<exp_op, X>>>;
template <class X> struct scaled_exp_form {
  using type = Unary<exp_op, X>;
};
template <class A, class B> struct scaled_exp_form<Binary<mult_op, A, B>> {
  using type = scaled_or_exp<A, B, keep_sign, Binary<mult_op, A, B>>;
};
template <class A, class B> struct scaled_exp_form<Unary<minus_op, Binary<mult_op, A, B>>> {
  using type = scaled_or_exp<A, B, flip_sign, Unary<minus_op, Binary<mult_op, A, B>>>;
};
} // namespace detail

template <class X>
constexpr auto exp_op::scaled_form(X) {
  return typename detail::scaled_exp_form<X>::type{};
}

} // namespace kops
