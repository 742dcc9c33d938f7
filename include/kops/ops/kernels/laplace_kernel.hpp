#pragma once

#include <kops/ops/exp.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/sqdist.hpp>
#include <kops/ops/sqrt.hpp>

namespace kops {

/// laplace_kernel(c, x, y, b): the Laplace (exponential) kernel applied to b,
///
/// ```text
///   laplace_kernel(c, x, y, b) = exp(-c |x - y|) b      (KeOps 1.5: LaplaceKernel(C, X, Y, B))
/// ```
///
/// c: dim 1, the inverse scale (1 / sigma), multiplying the distance |x - y|
/// itself (KeOps 1.5's code, Exp(Minus(Scal(C, Sqrt(R2)))); its comment's
/// exp(-sqrt(c r^2)) is not what it computes).  x, y: the two points, of the
/// same dim D.  b: the weight, any dim E; result dim E.
/// A composition of existing ops; its derivative w.r.t. x or y is not defined
/// at x = y (that of sqrt at 0), as in KeOps.
template <Formula C, Formula X, Formula Y, Formula B>
constexpr auto laplace_kernel(C c, X x, Y y, B b) {
  static_assert(C::dim == 1, "kops::laplace_kernel: the scale c must have dim 1");
  static_assert(X::dim == Y::dim, "kops::laplace_kernel: the points x and y must have the same dim");
  if constexpr (C::dim == 1 && X::dim == Y::dim) return exp(-c * sqrt(sqdist(x, y))) * b;
  else return b;
}

} // namespace kops
