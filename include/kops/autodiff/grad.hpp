#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/variable.hpp>
#include <kops/ops/sum.hpp>

namespace kops {

/// grad(f, v, g): reverse-mode symbolic differentiation.
///
/// ```text
///   f : formula of dim D,  v : variable (vi, vj or pm) of dim Dv,  g : formula of dim D
///   grad(f, v, g) = [d_v f]^T g, a formula of dim Dv
/// ```
///
/// Each node type states its own rule (vjp), next to its evaluation; this file
/// only dispatches, and cuts every branch that does not depend on v (or that
/// receives a zero gradient) to zero<Dv> before building anything, so that the
/// derivative of a large formula with respect to one variable stays small. The
/// result is simplified as it is built (every builder simplifies).
template <class F, class V, class G>
constexpr auto grad(F, V, G g) {
  static_assert(Formula<F>, "kops::grad: the first argument must be a kops formula");
  static_assert(Variable<V>, "kops::grad: the second argument must be a variable (vi, vj or pm)");
  static_assert(Formula<G>, "kops::grad: the third argument (the gradient input) must be a kops formula");
  if constexpr (Formula<F> && Variable<V> && Formula<G>) {
    static_assert(G::dim == F::dim, "kops::grad: the gradient input must have the dim of the formula");
    if constexpr (!depends_on_v<F, V> || is_zero_v<G>) return Zero<V::dim>{};
    else if constexpr (std::is_same_v<F, V>) return g;
    else return F::vjp(V{}, g);
  }
}

/// grad_fit(f, v, h): grad(f, v, h) for an operand f whose dim may be 1 while
/// h's is larger (f was broadcast): h is then first summed over the broadcast
/// components (ops/sum.hpp: fit_dim). What the element-wise nodes' vjp rules
/// (core/elementwise.hpp) call for each operand.
template <class F, class V, class H>
constexpr auto grad_fit(F f, V v, H h) {
  return grad(f, v, fit_dim<F::dim>(h));
}

} // namespace kops
