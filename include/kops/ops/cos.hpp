// cos: cos(a)_k = cos a_k.
// Derivative: [d_V cos A]^T g = [d_V A]^T (-sin(A) g).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct cos_op {
  static constexpr const char* name = "cos";
  static constexpr const char* keops_name = "Cos";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::cos(a); }
};

template <Formula F>
constexpr Unary<cos_op, F> cos(F) { return {}; }

} // namespace kops
