#pragma once

#include <kops/autodiff/divergence.hpp>
#include <kops/autodiff/grad.hpp>

namespace kops {

/// laplacian(f, v): the sum of the second derivatives of a scalar formula f
/// (dim 1) with respect to the components of v:
///
/// ```text
///   laplacian(f, v) = sum_k d^2 f / d v_k^2 = divergence(grad(f, v, 1), v), dim 1
///   (KeOps: Laplacian(f, v))
/// ```
///
/// i.e. the trace of the Hessian: the gradient (one reverse pass), then the
/// trace of its Jacobian (dim v reverse passes, see divergence.hpp).
/// A composition; its derivatives follow.
template <class F, class V>
constexpr auto laplacian(F f, V v) {
  static_assert(Formula<F>, "kops::laplacian: the first argument must be a kops formula");
  static_assert(Variable<V>, "kops::laplacian: the second argument must be a variable (vi, vj or pm)");
  if constexpr (Formula<F> && Variable<V>) {
    static_assert(F::dim == 1, "kops::laplacian: the formula must have dim 1 (a scalar field)");
    if constexpr (F::dim == 1) return divergence(grad(f, v, cst<1>), v);
    else return Zero<1>{};
  } else {
    return Zero<1>{};
  }
}

} // namespace kops
