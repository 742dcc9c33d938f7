#pragma once

#include <kops/ops/mult.hpp>
#include <kops/ops/subtract.hpp>

namespace kops {

struct divide_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "/";
  static constexpr const char* keops_name = "/";
  static constexpr bool infix = true;
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) { return a / b; }
  template <class A, class B, class G> static constexpr auto backward_a(A, B b, G g) { return g / b; }
  template <class A, class B, class G> static constexpr auto backward_b(A a, B b, G g) {
    return -((a * g) / (b * b));
  }
};

/// divide: (a / b)_k = a_k / b_k, with {1, D} broadcasting.
/// Derivative: [d_V (A / B)]^T g = [d_V A]^T (g / B) - [d_V B]^T (A g / B^2).
/// Simplifications: 0 / b = 0; a / 1 = a; constants fold to exact rationals;
/// a / c = (1/c) a for a constant c; (-a) / b = -(a / b).
template <Formula A, Formula B>
constexpr auto operator/([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::operator/: operand dims must be equal or one of them 1 (broadcasting)");
  constexpr int D = A::dim > B::dim ? A::dim : B::dim;
  if constexpr (is_zero_v<B> && is_constant_v<B>) {
    static_assert(!is_zero_v<B>, "kops::operator/: division by the constant zero");
    return a;
  } else if constexpr (is_zero_v<A>) return Zero<D>{};
  else if constexpr (is_one_v<B>) return a;
  else if constexpr (is_constant_v<B>) return make_constant<B::den, B::num>() * a;
  else if constexpr (detail::is_neg_v<A>) return -(operand_t<A, 0>{} / b);
  else return Binary<divide_op, A, B>{};
}

} // namespace kops
