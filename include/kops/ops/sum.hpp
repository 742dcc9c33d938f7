// sum: the within-vector sum, dim D -> 1: sum(a) = a_0 + ... + a_{D-1}.
// Derivative: [d_V sum A]^T g = [d_V A]^T (g, ..., g) (sum_t, its adjoint).
#pragma once

#include <kops/core/formula.hpp>

namespace kops {

template <Formula F>
struct Sum : formula_node {
  static constexpr int dim = 1;
  using children = type_list<F>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    auto s = a[0];
    for (int k = 1; k < F::dim; ++k) s = s + a[k];
    return vec<value_t<Ctx>, 1>{{s}};
  }
};

template <Formula F>
constexpr Sum<F> sum(F) { return {}; }

} // namespace kops
