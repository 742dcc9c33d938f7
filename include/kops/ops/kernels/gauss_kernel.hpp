#pragma once

#include <kops/ops/exp.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/sqdist.hpp>

namespace kops {

/// gauss_kernel(c, x, y, b): the Gaussian kernel applied to b,
///
/// ```text
///   gauss_kernel(c, x, y, b) = exp(-c |x - y|^2) b     (KeOps 1.5: GaussKernel(C, X, Y, B))
/// ```
///
/// c: dim 1, the inverse squared scale, c = 1 / sigma^2 for exp(-|x - y|^2 / sigma^2)
///    (not 1 / (2 sigma^2)); usually a parameter pm<., 1>.
/// x, y: the two points, of the same dim D.  b: the weight, any dim E; result dim E.
/// A composition of existing ops (KeOps' own order of arguments: scale first);
/// its derivatives and simplifications are theirs.
template <Formula C, Formula X, Formula Y, Formula B>
constexpr auto gauss_kernel(C c, X x, Y y, B b) {
  static_assert(C::dim == 1, "kops::gauss_kernel: the scale c must have dim 1");
  static_assert(X::dim == Y::dim, "kops::gauss_kernel: the points x and y must have the same dim");
  if constexpr (C::dim == 1 && X::dim == Y::dim) return exp(-c * sqdist(x, y)) * b;
  else return b;
}

} // namespace kops
