// sqrt: sqrt(a)_k = a_k^{1/2}.
// Derivative: [d_V sqrt A]^T g = [d_V A]^T (g / (2 sqrt A)).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct sqrt_op {
  static constexpr const char* name = "sqrt";
  static constexpr const char* keops_name = "Sqrt";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::sqrt(a); }
};

template <Formula F>
constexpr Unary<sqrt_op, F> sqrt(F) { return {}; }

} // namespace kops
