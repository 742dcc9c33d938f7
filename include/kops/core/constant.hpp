// Integer constants: cst<N> is the dim-1 formula whose value is N, exactly.
// zero<D> is the dim-D zero vector.
#pragma once

#include <kops/core/formula.hpp>

namespace kops {

template <long long N>
struct IntConst : formula_node {
  static constexpr int dim = 1;
  static constexpr long long value = N;
  using children = type_list<>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx&) {
    using V = value_t<Ctx>;
    return vec<V, 1>{{V(static_cast<typename Ctx::scalar_type>(N))}};
  }
};

template <int D>
struct Zero : formula_node {
  static_assert(D >= 1, "kops::zero: the dimension must be >= 1");
  static constexpr int dim = D;
  using children = type_list<>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx&) {
    using V = value_t<Ctx>;
    vec<V, D> r;
    for (int k = 0; k < D; ++k) r[k] = V(typename Ctx::scalar_type(0));
    return r;
  }
};

template <long long N> inline constexpr IntConst<N> cst{};
template <int D> inline constexpr Zero<D> zero{};

} // namespace kops
