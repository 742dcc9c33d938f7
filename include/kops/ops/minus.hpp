// minus (unary): (-a)_k = -a_k.
// Derivative: [d_V (-A)]^T g = -[d_V A]^T g.
#pragma once

#include <kops/core/elementwise.hpp>

namespace kops {

struct minus_op {
  static constexpr const char* name = "-";
  static constexpr const char* keops_name = "-";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return -a; }
};

template <Formula F>
constexpr Unary<minus_op, F> operator-(F) { return {}; }

} // namespace kops
