// log: log(a)_k = ln a_k (NaN for a_k < 0, -inf at 0).
// Derivative: [d_V log A]^T g = [d_V A]^T (g / A).
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct log_op {
  static constexpr const char* name = "log";
  static constexpr const char* keops_name = "Log";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::log(a); }
};

template <Formula F>
constexpr Unary<log_op, F> log(F) { return {}; }

} // namespace kops
