#pragma once

#include <kops/ops/add.hpp>

namespace kops {

struct subtract_op {
  static constexpr const char* name = "-";
  static constexpr const char* keops_name = "-";
  static constexpr bool infix = true;
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) { return a - b; }
  template <class A, class B, class G> static constexpr auto backward_a(A, B, G g) { return g; }
  template <class A, class B, class G> static constexpr auto backward_b(A, B, G g) { return -g; }
};

/// subtract: (a - b)_k = a_k - b_k, with {1, D} broadcasting.
/// Derivative: [d_V (A - B)]^T g = [d_V A]^T g - [d_V B]^T g.
/// Simplifications: a - 0 = a; 0 - b = -b; a - a = 0; constants fold;
/// a - (-b) = a + b; c a - d a = (c - d) a, c a - a = (c - 1) a and
/// a - c a = (1 - c) a for constants c, d.
template <Formula A, Formula B>
constexpr auto operator-([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::operator-: operand dims must be equal or one of them 1 (broadcasting)");
  constexpr int D = A::dim > B::dim ? A::dim : B::dim;
  using sa = detail::scaled<A>;
  using sb = detail::scaled<B>;
  if constexpr (is_zero_v<B> && A::dim == D) return a;
  else if constexpr (is_zero_v<A> && B::dim == D) return -b;
  else if constexpr (std::is_same_v<A, B>) return Zero<D>{};
  else if constexpr (is_constant_v<A> && is_constant_v<B>)
    return make_constant<A::num * B::den - B::num * A::den, A::den * B::den>();
  else if constexpr (detail::is_neg_v<B>) return a + operand_t<B, 0>{};
  else if constexpr (detail::same_rest_v<A, B>)
    return (typename sa::factor{} - typename sb::factor{}) * typename sa::rest{};
  else if constexpr (detail::scales_v<B, A>) return (typename sa::factor{} - cst<1>) * b;
  else if constexpr (detail::scales_v<A, B>) return (cst<1> - typename sb::factor{}) * a;
  else return Binary<subtract_op, A, B>{};
}

} // namespace kops
