// The variables of a formula, as constexpr data:
//
//   detail::vars_of<F>::value   std::array of var_info{cat, index, dim}, one per
//                               variable leaf in tree order, with repeats
//   signature_t<F>              type_list<Slot0, ..., Slot{n-1}>, one slot per argument
//                               index 0..max: the Var used there, or Unused<I>
//   consistent_v<F>             every index names one (category, dim)
//
// Every variable is a Var<C, I, D>, so the list holds values, not types, and the
// slots are rebuilt from them. vars_of<F> is a class template: each subtree's
// list is computed once per translation unit and reused by every formula that
// contains it (a gradient repeats the subtrees of its formula many times).
// Plain constexpr functions and folds: a Boost.Hana tuple of types here cost a
// quarter of the front end's time on a Gaussian gradient (hana::flatten and
// filter instantiated per node), in each of nvcc's three front-end passes.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include <kops/core/variable.hpp>

namespace kops {

// Placeholder for an argument index that the formula does not read (its pointer
// is accepted and ignored; it may be null).
template <int I>
struct Unused {
  static constexpr int index = I;
  static constexpr int dim = 0;
};

namespace detail {

struct var_info {
  category cat;
  int index;
  int dim;
};

template <class F> struct vars_of;

template <class L> struct vars_of_children;
template <class... C>
struct vars_of_children<type_list<C...>> {
  static constexpr std::size_t size = (std::size_t(0) + ... + vars_of<C>::value.size());
  static constexpr std::array<var_info, size> make() {
    std::array<var_info, size> a{};
    [[maybe_unused]] std::size_t k = 0;  // unused for a leaf (no children)
    ([&] {
      for (const var_info& v : vars_of<C>::value) a[k++] = v;
    }(), ...);
    return a;
  }
};

template <class F>
struct vars_of {
  static constexpr auto value = vars_of_children<typename F::children>::make();
};
template <category C, int I, int D>
struct vars_of<Var<C, I, D>> {
  static constexpr std::array<var_info, 1> value{{{C, I, D}}};
};

// Position of the first variable with argument index I in F's list, or -1.
template <class F, int I>
constexpr int first_with_index() {
  // Range-for loops here and below: nvcc warns about `k < size()` when the
  // list is empty (a formula of constants).
  int k = 0;
  for (const var_info& v : vars_of<F>::value) {
    if (v.index == I) return k;
    ++k;
  }
  return -1;
}

template <class F, int I, int P = first_with_index<F, I>()>
struct slot {
  using type = Var<vars_of<F>::value[std::size_t(P)].cat, I, vars_of<F>::value[std::size_t(P)].dim>;
};
template <class F, int I>
struct slot<F, I, -1> {
  using type = Unused<I>;
};

template <class F, int... I>
constexpr auto make_signature(std::integer_sequence<int, I...>) {
  return type_list<typename slot<F, I>::type...>{};
}

// Every variable of F with one argument index has the same category and dim.
template <class F>
constexpr bool all_consistent() {
  for (const var_info& a : vars_of<F>::value)
    for (const var_info& b : vars_of<F>::value)
      if (a.index == b.index && (a.cat != b.cat || a.dim != b.dim)) return false;
  return true;
}

} // namespace detail

// Largest argument index used by F, or -1 when F reads no variable.
template <Formula F>
constexpr int max_index() {
  int m = -1;
  for (const detail::var_info& v : detail::vars_of<F>::value) m = v.index > m ? v.index : m;
  return m;
}

template <Formula F>
using signature_t =
    decltype(detail::make_signature<F>(std::make_integer_sequence<int, max_index<F>() + 1>{}));

template <Formula F>
inline constexpr bool consistent_v = detail::all_consistent<F>();

template <Formula F, category C>
constexpr bool uses_category() {
  for (const detail::var_info& v : detail::vars_of<F>::value)
    if (v.cat == C) return true;
  return false;
}

} // namespace kops
