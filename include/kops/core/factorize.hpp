// Common sub-expressions evaluated once. factorize(f, g) rewrites f as
// Factorized<F', G, K>: g evaluated first, then F' (f with g replaced by the
// placeholder Slot<K, dim g>) in a slot_context that answers Slot<K> with g's
// value; auto_factorize_t<F> does so for F's repeated sub-formulas that hold an
// expensive op (ops declaring `expensive`: exp, sqrt, ...), smallest first, at
// most 4 rounds, and is what the lowering hands the backends
// (lowering/lower.hpp). Backends see only another formula; a Factorized node's
// derivative is that of its expanded formula. Slot is also the placeholder of
// the chunked sums (lowering/chunk_plan.hpp, final_chunks.hpp), and replace_t
// the generic tree substitution they use.
#pragma once

#include <kops/core/elementwise.hpp>
#include <kops/core/variable.hpp>

namespace kops {

template <int K, int D>
struct Slot : formula_node {
  static constexpr int dim = D;
  static constexpr int slot_id = K;
  using children = type_list<>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    return ctx.template slot<K, D>();
  }
};

namespace detail {

// An evaluation context extended with the value of slot K.
template <class Ctx, int K, class Val>
struct slot_context {
  using value_type = typename Ctx::value_type;
  using scalar_type = typename Ctx::scalar_type;
  using math = typename Ctx::math;
  const Ctx& inner;
  const Val& value;

  template <category C, int I, int D>
  KOPS_HD KOPS_INLINE constexpr auto load() const {
    return inner.template load<C, I, D>();
  }
  template <category C, int I, int D, int CH>
  KOPS_HD KOPS_INLINE constexpr auto load_range(int k0) const {  // lowering/chunk.hpp
    return inner.template load_range<C, I, D, CH>(k0);
  }
  template <int K2, int D>
  KOPS_HD KOPS_INLINE constexpr const auto& slot() const {
    if constexpr (K2 == K) return value;
    else return inner.template slot<K2, D>();
  }
};

// replace_t<F, A, B>: F with every occurrence of A replaced by B (no
// simplification). Generic over node kinds: a node with operands rebuilds
// itself over new ones through its `rebind` alias.
template <class F, class A, class B> struct replace;
template <class F, class A, class B> using replace_t = typename replace<F, A, B>::type;
template <class F, class A, class B, class... C>
auto replace_operands(type_list<C...>) -> rebind_t<F, type_list<replace_t<C, A, B>...>>;
template <class F, class A, class B, bool Leaf = (F::children::size == 0)> struct replace_below {
  using type = F;
};
template <class F, class A, class B> struct replace_below<F, A, B, false> {
  using type = decltype(replace_operands<F, A, B>(typename F::children{}));
};
template <class F, class A, class B> struct replace {
  using type = typename std::conditional_t<std::is_same_v<F, A>, std::type_identity<B>, replace_below<F, A, B>>::type;
};

// Largest slot id used in F (0 when none).
template <class F> struct max_slot;
template <class... C>
constexpr int max_slot_of(type_list<C...>) {
  int m = 0;
  ((m = max_slot<C>::value > m ? max_slot<C>::value : m), ...);
  return m;
}
template <class F> struct max_slot {
  static constexpr int value = max_slot_of(typename F::children{});
};
template <int K, int D> struct max_slot<Slot<K, D>> {
  static constexpr int value = K;
};

template <class F, class G>
inline constexpr bool contains_v = std::is_same_v<F, G> || []<class... C>(type_list<C...>) {
  return (contains_v<C, G> || ...);
}(typename F::children{});

} // namespace detail

template <Formula F, Formula G, int K>
struct Factorized : formula_node {
  static constexpr int dim = F::dim;
  using children = type_list<F, G>;
  template <class C1, class C2> using rebind = Factorized<C1, C2, K>;
  using body = F;
  using shared = G;
  static constexpr int slot = K;
  using expanded = detail::replace_t<F, Slot<K, G::dim>, G>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto g = G::eval(ctx);
    const detail::slot_context<Ctx, K, decltype(g)> inner{ctx, g};
    return F::eval(inner);
  }

  template <class V, class Gin>
  static constexpr auto vjp(V v, Gin gin) {
    return grad(expanded{}, v, gin);
  }
};


/// Common sub-expressions, evaluated once.
///
/// ```text
///   factorize(f, g)       f with every occurrence of the sub-formula g read from
///                         one evaluation of g: Factorized<F', G, K>, where F' is
///                         f with g replaced by the placeholder Slot<K, dim g>
///   auto_factorize_t<F>   F with its repeated expensive sub-formulas (those with
///                         an exp, log, sqrt, division...) factorized, smallest
///                         first (what backends evaluate: lowering/lower.hpp)
/// ```
///
/// A Factorized node evaluates g, then evaluates F' in a context that answers
/// Slot<K> with that value; backends see only another formula. Its derivative is
/// the derivative of the expanded formula (whose repeats are factorized again
/// when it is evaluated).
template <Formula F, Formula G>
constexpr auto factorize(F f, G) {
  if constexpr (!detail::contains_v<F, G> || std::is_same_v<F, G>) return f;
  else {
    constexpr int K = (detail::max_slot<F>::value > detail::max_slot<G>::value ? detail::max_slot<F>::value
                                                                               : detail::max_slot<G>::value) + 1;
    return Factorized<detail::replace_t<F, G, Slot<K, G::dim>>, G, K>{};
  }
}

// Hidden from Doxygen, whose 1.9.4 parser misreads the lambda in auto_factorize.
/// \cond INTERNAL
namespace detail {

// Number of nodes of F, and occurrences of T in F. occurrences counts over
// F's nodes flattened once into a list (nodes_of, pre-order, repeats kept), with
// the compiler's __is_same: one instantiation per (F, T) pair instead of one
// per (node of F, T) pair, which dominated auto_factorize's cost.
template <class F> struct node_count;
template <class... C> constexpr int node_count_of(type_list<C...>) { return (0 + ... + node_count<C>::value); }
template <class F> struct node_count {
  static constexpr int value = 1 + node_count_of(typename F::children{});
};
template <class... L> struct list_concat;
template <class... A> struct list_concat<type_list<A...>> {
  using type = type_list<A...>;
};
template <class... A, class... B, class... R>
struct list_concat<type_list<A...>, type_list<B...>, R...> : list_concat<type_list<A..., B...>, R...> {};
template <class F> struct nodes_of;
template <class F, class... C> auto nodes_with(type_list<C...>) -> list_concat<type_list<F>, typename nodes_of<C>::type...>;
template <class F> struct nodes_of {
  using type = typename decltype(nodes_with<F>(typename F::children{}))::type;
};
template <class T, class... N> constexpr int count_in(type_list<N...>) { return (0 + ... + int(__is_same(N, T))); }
template <class F, class T> struct occurrences {
  static constexpr int value = count_in<T>(typename nodes_of<F>::type{});
};

// F contains an expensive operation (exp, log, sqrt, division, ...: ops that
// declare `expensive`). Repeats of cheap arithmetic are left to the compiler's
// own common-subexpression elimination, which handles them at no compile cost.
template <class F> struct expensive;
template <class... C> constexpr bool any_expensive(type_list<C...>) { return (expensive<C>::value || ...); }
template <class F> struct expensive {
  static constexpr bool value = [] {
    if constexpr (requires { F::op::expensive; }) return true;
    else return any_expensive(typename F::children{});
  }();
};

// The smallest node of F that contains an expensive operation and occurs at
// least twice in Root, or void.
template <class F, class Root> struct best_repeat;
template <class A, class B> constexpr auto smaller_of() {
  if constexpr (std::is_void_v<A>) return std::type_identity<B>{};
  else if constexpr (std::is_void_v<B>) return std::type_identity<A>{};
  else if constexpr (node_count<B>::value < node_count<A>::value) return std::type_identity<B>{};
  else return std::type_identity<A>{};
}
template <class Root, class... C> constexpr auto best_of_children(type_list<C...>) {
  return std::type_identity<void>{};
}
template <class Root, class C, class... Rest> constexpr auto best_of_children(type_list<C, Rest...>) {
  using first = typename best_repeat<C, Root>::type;
  using rest = typename decltype(best_of_children<Root>(type_list<Rest...>{}))::type;
  return smaller_of<first, rest>();
}
template <class F, class Root> struct best_repeat {
  using below = typename decltype(best_of_children<Root>(typename F::children{}))::type;
  static constexpr bool candidate = expensive<F>::value && occurrences<Root, F>::value >= 2;
  // A repeated node's own sub-nodes repeat too, so only search below when F is no candidate.
  using type = std::conditional_t<candidate, typename decltype(smaller_of<F, below>())::type, below>;
};

template <class F, int Budget> struct auto_factorize {
  using G = typename best_repeat<F, F>::type;
  using type = typename decltype([] {
    if constexpr (Budget == 0 || std::is_void_v<G>) return std::type_identity<F>{};
    else {
      using Fac = decltype(factorize(F{}, G{}));
      using Body = typename auto_factorize<typename Fac::body, Budget - 1>::type;
      return std::type_identity<Factorized<Body, typename Fac::shared, Fac::slot>>{};
    }
  }())::type;
};

} // namespace detail
/// \endcond

/// F with its repeated expensive sub-formulas evaluated once (at most 4 rounds).
template <Formula F>
using auto_factorize_t = typename detail::auto_factorize<F, 4>::type;


} // namespace kops
