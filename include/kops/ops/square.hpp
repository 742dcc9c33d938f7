// square: square(a)_k = a_k^2.
// Derivative: [d_V A^2]^T g = [d_V A]^T (2 A g).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct square_op {
  static constexpr const char* name = "square";
  static constexpr const char* keops_name = "Square";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return a * a; }
};

template <Formula F>
constexpr Unary<square_op, F> square(F) { return {}; }

} // namespace kops
