#pragma once

#include <kops/ops/divide.hpp>
#include <kops/ops/dot.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/sqnorm2.hpp>

namespace kops {

/// divfree_gauss_kernel(c, x, y, b): the matrix-valued divergence-free Gaussian
/// kernel K_df(x, y) applied to b (Micheli and Glaunes; KeOps 1.5: DivFreeGaussKernel(C, X, Y, B)):
///
/// ```text
///   K_df(x, y) b = exp(-c r^2) (((D - 1) / (2c) - r^2) b + <b, x - y> (x - y)),
///   r = |x - y|, D = dim x.
/// ```
///
/// Definition and normalisation: with the scalar Gaussian k(x, y) = exp(-c r^2),
/// K_df = (grad grad^T - (Laplacian) I) k / (4 c^2), derivatives w.r.t. x; each
/// column x -> K_df(x, y) e_l is then a divergence-free field of x, and
/// K_df(x, x) = (D - 1) / (2c) I.
/// c: dim 1, the inverse squared scale (1 / sigma^2).  x, y: the two points,
/// dim D.  b: dim D; result dim D.
/// A composition of existing ops; its derivatives and simplifications are theirs.
template <Formula C, Formula X, Formula Y, Formula B>
constexpr auto divfree_gauss_kernel(C c, X x, Y y, B b) {
  static_assert(C::dim == 1, "kops::divfree_gauss_kernel: the scale c must have dim 1");
  static_assert(X::dim == Y::dim && B::dim == X::dim,
                "kops::divfree_gauss_kernel: the points x, y and the vector b must have the same dim");
  if constexpr (C::dim == 1 && X::dim == Y::dim && B::dim == X::dim) {
    const auto z = x - y;
    const auto r2 = sqnorm2(z);
    return exp(-c * r2) * ((make_constant<X::dim - 1, 2>() / c - r2) * b + dot(b, z) * z);
  } else {
    return b;
  }
}

} // namespace kops
