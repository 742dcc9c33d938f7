#pragma once

#include <kops/ops/log.hpp>
#include <kops/ops/pow.hpp>

namespace kops {

namespace detail {
template <class F> constexpr bool integer_constant() {
  if constexpr (is_constant_v<F>) return F::den == 1;
  else return false;
}
// F is an integer constant (IntConst<N>, or the scalar zero).
template <class F> inline constexpr bool is_integer_constant_v = integer_constant<F>();
} // namespace detail

struct powf_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "powf";
  static constexpr const char* keops_name = "Powf";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) { return Math::pow(a, b); }
  template <class A, class B, class G> static constexpr auto backward_a(A a, B b, G g) {
    return (b * powf(a, b - cst<1>)) * g;
  }
  template <class A, class B, class G> static constexpr auto backward_b(A a, B b, G g) {
    return (log(a) * powf(a, b)) * g;
  }
};

/// powf: powf(a, b)_k = a_k^{b_k}, real exponents, with {1, D} broadcasting and the
/// C pow rules (a negative a_k needs an integer b_k, else NaN; 0^0 = 1; KeOps' Powf).
/// Derivative (from a^b = exp(b log a), as KeOps):
/// ```text
///   [d_V powf(A, B)]^T g = [d_V A]^T (B powf(A, B - 1) g) + [d_V B]^T (log(A) powf(A, B) g).
/// ```
/// Simplifications: an integer constant exponent n gives pow<n>(a) (repeated
/// multiplication: exact for negative a too); powf(1, b) = 1 for a dim-1 b.
template <Formula A, Formula B>
constexpr auto powf([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::powf: operand dims must be equal or one of them 1 (broadcasting)");
  if constexpr (detail::is_integer_constant_v<B>) return pow<int(B::num)>(a);
  else if constexpr (is_one_v<A> && B::dim == 1) return a;
  else return Binary<powf_op, A, B>{};
}

} // namespace kops
