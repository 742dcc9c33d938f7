#pragma once

#include <type_traits>

#include <kops/autodiff/grad.hpp>
#include <kops/core/formula.hpp>
#include <kops/core/variable.hpp>
#include <kops/core/variables.hpp>

namespace kops {

namespace detail {
template <class F, class V>
constexpr bool linear_in() {
  if constexpr (!depends_on_v<F, V>) {
    return false;
  } else {
    // A fresh index for the gradient input: one past every index F uses.
    using G = Var<category::i, (max_index<F>() + 1), F::dim>;
    using D = decltype(grad(F{}, V{}, G{}));
    return !depends_on_v<D, V>;
  }
}
} // namespace detail

/// is_linear_in_v<F, V>: the compile-time linearity test kops::solve applies to
/// its formula F and unknown variable V.
///
/// F is accepted when it reads V and its derivative with respect to V does not:
/// grad(F, V, g) = [d_V F]^T g, with g a variable F does not use, must be a
/// formula free of V. That is exactly "F is affine in V": F(v) = J v + c with
/// J and c free of v. The test cannot see the constant term c (a summand
/// without V, e.g. K(x,y) b + 1); kops::solve requires c = 0 and says so in
/// its documentation. A formula whose derivative with respect to V cannot be
/// formed (an op without a derivative applied to V) does not compile here.
///
/// F: a formula type, V: a variable type (cv-qualified types, e.g. decltype of
/// a constexpr formula, are accepted).
template <class F, class V>
  requires Formula<std::remove_cvref_t<F>> && Variable<std::remove_cvref_t<V>>
inline constexpr bool is_linear_in_v = detail::linear_in<std::remove_cvref_t<F>, std::remove_cvref_t<V>>();

} // namespace kops
