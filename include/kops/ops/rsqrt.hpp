// rsqrt: rsqrt(a)_k = a_k^{-1/2}, with rsqrt(0) = 0 (KeOps convention).
// Derivative: [d_V rsqrt A]^T g = [d_V A]^T (-rsqrt(A)^3 g / 2).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct rsqrt_op {
  static constexpr const char* name = "rsqrt";
  static constexpr const char* keops_name = "Rsqrt";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::rsqrt(a); }
};

template <Formula F>
constexpr Unary<rsqrt_op, F> rsqrt(F) { return {}; }

} // namespace kops
