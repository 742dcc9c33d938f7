// The Formula concept and the pieces every node shares: formula_node, the tag
// base of every node type; type_list, the compile-time list of a node's
// operands (children) and of a formula's argument slots; rebind_t, a node
// rebuilt over new operands (how the generic tree rewrites, substitution in
// core/factorize.hpp and the lowering, rebuild a node without naming its op);
// int_params for printing; and value_t / math_t, the value type and math
// provider of an evaluation context. A formula's value lives in a vec
// (core/vec.hpp); everything else about nodes is in the headers that define them.
#pragma once

#include <concepts>
#include <type_traits>
#include <kops/config.hpp>
#include <kops/core/vec.hpp>

/// kops: kernel operations as C++20 types. Formulas, their builders and
/// reductions, derivatives and printing; the backends are in kops::kokkos (CPU)
/// and kops::cuda (GPU).
namespace kops {

namespace detail {
template <int K, class... Ts> struct type_at;
template <int K, class T, class... Ts> struct type_at<K, T, Ts...> { using type = typename type_at<K - 1, Ts...>::type; };
template <class T, class... Ts> struct type_at<0, T, Ts...> { using type = T; };
} // namespace detail

template <class... Ts>
struct type_list {
  static constexpr int size = sizeof...(Ts);
  template <int K> using at = typename detail::type_at<K, Ts...>::type;
};

// Integer template parameters of a node, for printing (io/to_string.hpp):
// a node or op declares `using print_params = int_params<...>`.
template <int... P> struct int_params {};

// rebind_t<F, type_list<C...>>: the node F over the operands C... (nodes with
// operands declare `template <class...> using rebind`; pack expansions cannot
// go straight into an alias of fixed arity, hence the arity dispatch).
template <class F, class L> struct rebind_list;
template <class F, class C1> struct rebind_list<F, type_list<C1>> {
  using type = typename F::template rebind<C1>;
};
template <class F, class C1, class C2> struct rebind_list<F, type_list<C1, C2>> {
  using type = typename F::template rebind<C1, C2>;
};
template <class F, class C1, class C2, class C3> struct rebind_list<F, type_list<C1, C2, C3>> {
  using type = typename F::template rebind<C1, C2, C3>;
};
template <class F, class L> using rebind_t = typename rebind_list<F, L>::type;

// Tag base of every node; the concept below checks it rather than duck typing,
// so a stray type with a `dim` member is not mistaken for a formula.
struct formula_node {};

/// A formula is an empty constexpr value whose *type* is the expression tree.
/// Every node type N provides
/// ```text
///   static constexpr int dim;                 // output dimension
///   using children = type_list<...>;          // operand node types
///   template <class Ctx> static vec<V, dim> eval(const Ctx&);
/// ```
/// where Ctx is a backend's evaluation context (value type, math provider and
/// variable loads). Backends only ever call eval; they never name an op.
// Written with the compiler's __is_base_of rather than std::derived_from: the
// concept is checked for every node type a formula builds, and the standard
// traits behind derived_from / convertible_to (is_convertible, __or_, ...) cost
// nvcc's three front ends measurable time per TU (docs/performance.md).
template <class F>
concept Formula = __is_base_of(formula_node, F) && requires {
  static_cast<int>(F::dim);
  typename F::children;
};

namespace detail {
template <class F, class V> struct depends_on;
template <class V, class... C>
constexpr bool any_depends_on(type_list<C...>) {
  return (depends_on<C, V>::value || ...);
}
template <class F, class V>
struct depends_on {
  static constexpr bool value = std::is_same_v<F, V> || any_depends_on<V>(typename F::children{});
};
} // namespace detail

// True when the formula F reads the variable V.
template <class F, class V>
inline constexpr bool depends_on_v = detail::depends_on<F, V>::value;

// Value type and math provider of an evaluation context.
template <class Ctx> using value_t = typename Ctx::value_type;
template <class Ctx> using math_t = typename Ctx::math;

} // namespace kops
