#pragma once

#include <kops/ops/minus.hpp>
#include <kops/ops/rsqrt.hpp>
#include <kops/ops/square.hpp>

namespace kops {

struct acos_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "acos";
  static constexpr const char* keops_name = "Acos";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::acos(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) {
    return -(rsqrt(cst<1> - square(f)) * g);
  }
};

/// acos: acos(a)_k = arccos a_k, in [0, pi] (NaN outside [-1, 1]).
/// Derivative: [d_V acos A]^T g = [d_V A]^T (-rsqrt(1 - A^2) g), i.e. -g / sqrt(1 - A^2)
/// except at A = +-1, where rsqrt(0) = 0 makes it 0 (as in KeOps).
/// Simplifications: none (acos(-a) = pi - acos(a) would bring in an inexact pi).
template <Formula F>
constexpr auto acos(F) {
  return Unary<acos_op, F>{};
}

} // namespace kops
