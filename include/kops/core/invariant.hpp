// is_invariant_v<F>: F reads only parameters and constants, so its value is the
// same for every (i, j) pair. The simplifier groups such factors together
// (x (g c) rather than (x g) c) so that backends compute them once per call
// instead of once per pair: the compilers hoist loop-invariant code, but only
// code that the association of the operations makes invariant.
#pragma once

#include <kops/core/variable.hpp>

namespace kops {

template <int K, int D> struct Slot;

namespace detail {
template <class F> struct invariant;
template <class... C> constexpr bool all_invariant(type_list<C...>) { return (invariant<C>::value && ...); }
template <class F> struct invariant {
  static constexpr bool value = all_invariant(typename F::children{});
};
template <category C, int I, int D> struct invariant<Var<C, I, D>> {
  static constexpr bool value = C == category::param;
};
// A slot holds a value computed elsewhere: not known to be invariant.
template <int K, int D> struct invariant<Slot<K, D>> {
  static constexpr bool value = false;
};
} // namespace detail

template <class F>
inline constexpr bool is_invariant_v = detail::invariant<F>::value;

} // namespace kops
