#pragma once

#include <kops/autodiff/grad.hpp>
#include <kops/core/variables.hpp>

namespace kops {

namespace detail {
// 1 + the largest of I and of the argument indices the formulas Fs read.
template <int I, class... Fs>
constexpr int fresh_index() {
  int m = I;
  ((m = max_index<Fs>() > m ? max_index<Fs>() : m), ...);
  return m + 1;
}
// A variable of dim D at an index that none of Fs reads (the placeholder g).
template <int D, int I, class... Fs>
using fresh_variable_t = Var<category::i, fresh_index<I, Fs...>(), D>;
} // namespace detail

/// diff(f, v, u): forward-mode derivative, the directional derivative of f
/// with respect to the variable v along the direction u:
///
/// ```text
///   f : formula of dim D,  v : variable of dim Dv,  u : formula of dim Dv
///   diff(f, v, u) = [d_v f] u, a formula of dim D   (KeOps: Diff(f, v, u))
/// ```
///
/// How: by transposing reverse mode. With a placeholder variable g of dim D
/// that f and u do not read, grad(f, v, g) = [d_v f]^T g is a formula *linear*
/// in g (every node's vjp applies a transposed Jacobian to g), so
///
/// ```text
///   diff(f, v, u) = grad(grad(f, v, g), g, u) = [d_g ([d_v f]^T g)]^T u = [d_v f] u.
/// ```
///
/// It is exact: the derivative of a linear map is the map itself, evaluated at
/// no particular g; the placeholder disappears from the result (checked below
/// at compile time), so it is never read. It is not wasteful: the second pass
/// only visits the g-dependent chain of [d_v f]^T g, which has one linear node
/// per node of f on the way to v, and transposes each one back (sum <-> sum_t,
/// extract <-> extract_t, a * (.) <-> a * (.)), which is exactly the forward
/// tangent recurrence; the g-independent factors (e.g. exp(A) in exp's rule)
/// are reused as they are. The result therefore has the size of the formula a
/// forward-mode transform would build, and it works for every node that has a
/// vjp, including those added later, without a second per-node rule.
template <class F, class V, class U>
constexpr auto diff(F f, V v, U u) {
  static_assert(Formula<F>, "kops::diff: the first argument must be a kops formula");
  static_assert(Variable<V>, "kops::diff: the second argument must be a variable (vi, vj or pm)");
  static_assert(Formula<U>, "kops::diff: the third argument (the direction) must be a kops formula");
  if constexpr (Formula<F> && Variable<V> && Formula<U>) {
    static_assert(U::dim == V::dim, "kops::diff: the direction u must have the dim of the variable");
    if constexpr (U::dim == V::dim) {
      using G = detail::fresh_variable_t<F::dim, V::index, F, U>;
      const auto jt = grad(f, v, G{});  // [d_v f]^T g, linear in g
      const auto r = grad(jt, G{}, u);  // [d_g ([d_v f]^T g)]^T u = [d_v f] u
      static_assert(!depends_on_v<decltype(r), G>,
                    "kops::diff: internal error, a vjp is not linear in its gradient input");
      return r;
    } else {
      return Zero<F::dim>{};
    }
  }
}

} // namespace kops
