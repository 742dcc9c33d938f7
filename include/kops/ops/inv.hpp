// inv: inv(a)_k = 1 / a_k.
// Derivative: [d_V (1/A)]^T g = [d_V A]^T (-g / A^2).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct inv_op {
  static constexpr const char* name = "inv";
  static constexpr const char* keops_name = "Inv";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return V(1) / a; }
};

template <Formula F>
constexpr Unary<inv_op, F> inv(F) { return {}; }

} // namespace kops
