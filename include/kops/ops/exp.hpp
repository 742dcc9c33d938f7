// exp: exp(a)_k = e^{a_k}.
// Derivative: [d_V exp A]^T g = [d_V A]^T (exp(A) g).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct exp_op {
  static constexpr const char* name = "exp";
  static constexpr const char* keops_name = "Exp";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::exp(a); }
};

template <Formula F>
constexpr Unary<exp_op, F> exp(F) { return {}; }

} // namespace kops
