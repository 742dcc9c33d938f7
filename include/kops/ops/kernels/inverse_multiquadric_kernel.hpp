#pragma once

#include <kops/ops/inv.hpp>
#include <kops/ops/rsqrt.hpp>
#include <kops/ops/sqdist.hpp>

namespace kops {

/// inverse_multiquadric_kernel(c, x, y, b): the inverse multiquadric kernel applied to b,
///
/// ```text
///   inverse_multiquadric_kernel(c, x, y, b) = b / sqrt(1/c + |x - y|^2)
///   (KeOps 1.5: InverseMultiquadricKernel(C, X, Y, B))
/// ```
///
/// c: dim 1, the inverse squared scale c = 1 / sigma^2 > 0, so that the kernel
/// is 1 / sqrt(sigma^2 + |x - y|^2).  x, y: the two points, of the same dim D.
/// b: the weight, any dim E; result dim E.
/// A composition of existing ops (rsqrt for 1/sqrt: one operation, and the same
/// value for c > 0); its derivatives and simplifications are theirs.
template <Formula C, Formula X, Formula Y, Formula B>
constexpr auto inverse_multiquadric_kernel(C c, X x, Y y, B b) {
  static_assert(C::dim == 1, "kops::inverse_multiquadric_kernel: the scale c must have dim 1");
  static_assert(X::dim == Y::dim, "kops::inverse_multiquadric_kernel: the points x and y must have the same dim");
  if constexpr (C::dim == 1 && X::dim == Y::dim) return rsqrt(inv(c) + sqdist(x, y)) * b;
  else return b;
}

} // namespace kops
