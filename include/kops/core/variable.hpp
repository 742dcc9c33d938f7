// Variables: vi<I, D> (indexed by i), vj<I, D> (indexed by j), pm<I, D>
// (parameters, the same for every pair). I is the position of the argument in
// eval(...), D its dimension; an i-variable is an (M, D) row-major array, a
// j-variable (N, D), a parameter (D).
#pragma once

#include <kops/core/formula.hpp>

namespace kops {

enum class category : int { i = 0, j = 1, param = 2 };

template <category C, int I, int D>
struct Var : formula_node {
  static_assert(I >= 0, "kops::variable: the argument index must be >= 0");
  static_assert(D >= 1, "kops::variable: the dimension must be >= 1");
  static constexpr category cat = C;
  static constexpr int index = I;
  static constexpr int dim = D;
  using children = type_list<>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    return ctx.template load<C, I, D>();
  }
};

template <class F> inline constexpr bool is_variable_v = false;
template <category C, int I, int D> inline constexpr bool is_variable_v<Var<C, I, D>> = true;

template <class F>
concept Variable = Formula<F> && is_variable_v<F>;

template <int I, int D> inline constexpr Var<category::i, I, D> vi{};
template <int I, int D> inline constexpr Var<category::j, I, D> vj{};
template <int I, int D> inline constexpr Var<category::param, I, D> pm{};

} // namespace kops
