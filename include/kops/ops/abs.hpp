// abs: abs(a)_k = |a_k|.
// Derivative: [d_V |A|]^T g = [d_V A]^T (sign(A) g).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct abs_op {
  static constexpr const char* name = "abs";
  static constexpr const char* keops_name = "Abs";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::abs(a); }
};

template <Formula F>
constexpr Unary<abs_op, F> abs(F) { return {}; }

} // namespace kops
