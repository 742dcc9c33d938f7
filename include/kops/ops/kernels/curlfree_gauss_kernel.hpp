#pragma once

#include <kops/ops/divide.hpp>
#include <kops/ops/dot.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/sqnorm2.hpp>

namespace kops {

/// curlfree_gauss_kernel(c, x, y, b): the matrix-valued curl-free Gaussian
/// kernel K_cf(x, y) applied to b (Micheli and Glaunes; KeOps 1.5: CurlFreeGaussKernel(C, X, Y, B)):
///
/// ```text
///   K_cf(x, y) b = exp(-c r^2) (b / (2c) - <b, x - y> (x - y)),   r = |x - y|.
/// ```
///
/// Definition and normalisation: with the scalar Gaussian k(x, y) = exp(-c r^2),
/// K_cf = -(grad grad^T k) / (4 c^2), derivatives w.r.t. x; each column
/// x -> K_cf(x, y) e_l is then a gradient field of x (curl-free: its Jacobian
/// is symmetric), and K_cf(x, x) = I / (2c).
/// c: dim 1, the inverse squared scale (1 / sigma^2).  x, y: the two points,
/// dim D.  b: dim D; result dim D.
/// A composition of existing ops; its derivatives and simplifications are theirs.
template <Formula C, Formula X, Formula Y, Formula B>
constexpr auto curlfree_gauss_kernel(C c, X x, Y y, B b) {
  static_assert(C::dim == 1, "kops::curlfree_gauss_kernel: the scale c must have dim 1");
  static_assert(X::dim == Y::dim && B::dim == X::dim,
                "kops::curlfree_gauss_kernel: the points x, y and the vector b must have the same dim");
  if constexpr (C::dim == 1 && X::dim == Y::dim && B::dim == X::dim) {
    const auto z = x - y;
    return exp(-c * sqnorm2(z)) * ((make_constant<1, 2>() / c) * b - dot(b, z) * z);
  } else {
    return b;
  }
}

} // namespace kops
