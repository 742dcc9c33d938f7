// sin: sin(a)_k = sin a_k.
// Derivative: [d_V sin A]^T g = [d_V A]^T (cos(A) g).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct sin_op {
  static constexpr const char* name = "sin";
  static constexpr const char* keops_name = "Sin";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::sin(a); }
};

template <Formula F>
constexpr Unary<sin_op, F> sin(F) { return {}; }

} // namespace kops
