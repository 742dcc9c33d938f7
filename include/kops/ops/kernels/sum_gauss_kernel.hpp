#pragma once

#include <kops/ops/dot.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/sqdist.hpp>

namespace kops {

/// sum_gauss_kernel(c, w, x, y, b): a weighted sum of K Gaussian kernels of
/// different scales, applied to b,
///
/// ```text
///   sum_gauss_kernel(c, w, x, y, b) = (sum_k w_k exp(-c_k |x - y|^2)) b
///   (KeOps 1.5: SumGaussKernel(C, W, X, Y, B))
/// ```
///
/// c: dim K, the inverse squared scales (c_k = 1 / sigma_k^2).  w: dim K, the
/// weights.  x, y: the two points, of the same dim D.  b: the weight, any dim E;
/// result dim E.
/// A composition of existing ops; its derivatives and simplifications are theirs.
template <Formula C, Formula W, Formula X, Formula Y, Formula B>
constexpr auto sum_gauss_kernel(C c, W w, X x, Y y, B b) {
  static_assert(C::dim == W::dim, "kops::sum_gauss_kernel: the scales c and the weights w must have the same dim");
  static_assert(X::dim == Y::dim, "kops::sum_gauss_kernel: the points x and y must have the same dim");
  if constexpr (C::dim == W::dim && X::dim == Y::dim) return dot(w, exp(-c * sqdist(x, y))) * b;
  else return b;
}

} // namespace kops
