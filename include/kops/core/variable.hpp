// The leaves that read a call's arguments: Var<C, I, D>, the node of argument
// I of dimension D indexed by i, by j or by neither (category), built with
// vi / vj / pm, and the Variable concept. A Var's eval is the context's
// load<C, I, D>(): what a variable reads is up to the backend's evaluation
// context (core/concepts.hpp), and which argument and shape it expects is what
// core/variables.hpp collects into a formula's signature.
#pragma once

#include <kops/core/formula.hpp>

namespace kops {

/// What a variable is indexed by: i (vi), j (vj), or nothing (pm, a parameter).
enum class category : int { i = 0, j = 1, param = 2 };

/// The node of a variable: `vi<I, D>` is a `Var<category::i, I, D>`, and so on.
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

/// A variable: the type of a vi, vj or pm.
template <class F>
concept Variable = Formula<F> && is_variable_v<F>;

/// Variables: vi<I, D> (indexed by i), vj<I, D> (indexed by j), pm<I, D>
/// (parameters, the same for every pair). I is the position of the argument in
/// eval(...), D its dimension; an i-variable is an (M, D) row-major array, a
/// j-variable (N, D), a parameter (D).
template <int I, int D> inline constexpr Var<category::i, I, D> vi{};
/// `vj<I, D>`: the variable indexed by j at argument I, an (N, D) row-major array. See vi.
template <int I, int D> inline constexpr Var<category::j, I, D> vj{};
/// `pm<I, D>`: the parameter at argument I, the same for every pair, a (D) array. See vi.
template <int I, int D> inline constexpr Var<category::param, I, D> pm{};

} // namespace kops
