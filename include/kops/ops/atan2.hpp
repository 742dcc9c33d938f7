#pragma once

#include <kops/ops/minus.hpp>
#include <kops/ops/square.hpp>

namespace kops {

struct atan2_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "atan2";
  static constexpr const char* keops_name = "Atan2";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& y, const V& x) { return Math::atan2(y, x); }
  template <class Y, class X, class G> static constexpr auto backward_a(Y y, X x, G g) {
    return (x * g) / (square(y) + square(x));
  }
  template <class Y, class X, class G> static constexpr auto backward_b(Y y, X x, G g) {
    return -((y * g) / (square(y) + square(x)));
  }
};

/// atan2: atan2(y, x)_k = the angle of the point (x_k, y_k), in [-pi, pi], with the
/// C rules for zeros and infinities (atan2(+-0, -1) = +-pi, atan2(0, 0) = 0), with
/// {1, D} broadcasting. Note the order: y first, as in C and KeOps' Atan2(y, x).
/// Derivative, with r^2 = X^2 + Y^2:
/// ```text
///   [d_V atan2(Y, X)]^T g = [d_V Y]^T (X g / r^2) - [d_V X]^T (Y g / r^2).
/// ```
/// Simplifications: atan2(-y, x) = -atan2(y, x) (atan2 is odd in y, signed zeros
/// included).
template <Formula Y, Formula X>
constexpr auto atan2([[maybe_unused]] Y y, [[maybe_unused]] X x) {
  static_assert(broadcastable(Y::dim, X::dim),
                "kops::atan2: operand dims must be equal or one of them 1 (broadcasting)");
  if constexpr (detail::is_neg_v<Y>) return -atan2(operand_t<Y, 0>{}, x);
  else return Binary<atan2_op, Y, X>{};
}

} // namespace kops
