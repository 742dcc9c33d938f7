// mult: (a * b)_k = a_k b_k, with {1, D} broadcasting (a scalar times a vector
// scales it).
// Derivative: [d_V (A B)]^T g = [d_V A]^T (B g) + [d_V B]^T (A g).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct mult_op {
  static constexpr const char* name = "*";
  static constexpr const char* keops_name = "*";
  static constexpr bool infix = true;
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a, const V& b) { return a * b; }
};

template <Formula A, Formula B>
constexpr Binary<mult_op, A, B> operator*(A, B) {
  static_assert(broadcastable(A::dim, B::dim),
                "kops::operator*: operand dims must be equal or one of them 1 (broadcasting)");
  return {};
}

} // namespace kops
