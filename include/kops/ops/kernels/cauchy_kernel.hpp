#pragma once

#include <kops/ops/inv.hpp>
#include <kops/ops/sqdist.hpp>

namespace kops {

/// cauchy_kernel(c, x, y, b): the Cauchy kernel applied to b,
///
/// ```text
///   cauchy_kernel(c, x, y, b) = b / (1 + c |x - y|^2)   (KeOps 1.5: CauchyKernel(C, X, Y, B))
/// ```
///
/// c: dim 1, the inverse squared scale (1 / sigma^2).  x, y: the two points, of
/// the same dim D.  b: the weight, any dim E; result dim E.
/// A composition of existing ops; its derivatives and simplifications are theirs.
template <Formula C, Formula X, Formula Y, Formula B>
constexpr auto cauchy_kernel(C c, X x, Y y, B b) {
  static_assert(C::dim == 1, "kops::cauchy_kernel: the scale c must have dim 1");
  static_assert(X::dim == Y::dim, "kops::cauchy_kernel: the points x and y must have the same dim");
  if constexpr (C::dim == 1 && X::dim == Y::dim) return inv(cst<1> + c * sqdist(x, y)) * b;
  else return b;
}

} // namespace kops
