#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

namespace detail {
// For a constant c: 1 if c >= 0, -1 if c < 0; 0 for anything else.
template <class C> constexpr int constant_sign() {
  if constexpr (is_constant_v<C>) return C::num >= 0 ? 1 : -1;
  else return 0;
}
} // namespace detail

struct ifelse_op {
  static constexpr const char* name = "ifelse";
  static constexpr const char* keops_name = "IfElse";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& c, const V& a, const V& b) {
    return Math::select(c >= V(0), a, b);
  }
  template <class C, class A, class B, class G> static constexpr auto backward_a(C, A, B, G) {
    return Zero<C::dim>{};
  }
  template <class C, class A, class B, class G> static constexpr auto backward_b(C c, A, B, G g) {
    return ifelse(c, g, Zero<1>{});
  }
  template <class C, class A, class B, class G> static constexpr auto backward_c(C c, A, B, G g) {
    return ifelse(c, Zero<1>{}, g);
  }
};

/// ifelse: ifelse(c, a, b)_k = a_k if c_k >= 0, else b_k (KeOps' IfElse; so
/// ifelse(0, a, b) = a, and a NaN c picks b). Dims: each of c, a, b is 1 or the
/// result's dim.
/// Derivative: c contributes nothing; the gradient flows to the branch taken:
/// ```text
///   [d_V ifelse(C, A, B)]^T g = [d_V A]^T ifelse(C, g, 0) + [d_V B]^T ifelse(C, 0, g).
/// ```
/// Simplifications: ifelse(c, a, a) = a; ifelse(c, 0, 0) = 0; a constant c picks
/// its branch (when that branch has the result's dim).
template <Formula C, Formula A, Formula B>
constexpr auto ifelse(C, [[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(broadcastable(C::dim, A::dim, B::dim),
                "kops::ifelse: operand dims must each be 1 or the largest of the three (broadcasting)");
  constexpr int D = Ternary<ifelse_op, C, A, B>::dim;
  if constexpr (std::is_same_v<A, B> && A::dim == D) return a;
  else if constexpr (is_zero_v<A> && is_zero_v<B>) return Zero<D>{};
  else if constexpr (detail::constant_sign<C>() > 0 && A::dim == D) return a;
  else if constexpr (detail::constant_sign<C>() < 0 && B::dim == D) return b;
  else return Ternary<ifelse_op, C, A, B>{};
}

} // namespace kops
