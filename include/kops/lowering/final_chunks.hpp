// Final chunks: a sum reduction whose formula is wide -- the gradient of a
// Gaussian with respect to a 784-wide x, 2 (x_i - y_j) s(x_i, y_j), say --
// evaluated per pair in two steps, for a tile of pairs at a time:
//
//   scal[pair][q] = the formula's dimension-1 parts that vary with the pair
//                   (s above, with its wide sqdist: once per pair, not per chunk)
//   for each chunk [c0, c0 + CH) of the output's components:
//     stage chunk c0 of the wide variables (row: registers, reduced axis: shared memory)
//     acc[k] = sum over the tile's pairs of the formula's chunk, its parts read from scal
//     out[c0 + k] += acc[k]                      (the output row is the accumulator)
//
// so that neither the W-wide accumulator nor the W-wide variables live in
// registers (KeOps' "final chunks"; output chunking, detail/output_chunks.hpp,
// instead runs a pass per chunk and fits formulas whose dimension-1 part is
// narrow). final_plan<F, RedCat, CH> says whether F has that form and gives
// its pieces:
//   ok              F is element-wise over its dimension W (lowering/chunk.hpp's
//                   chunk_body, broadcasts of a dimension-1 operand included),
//                   its wide variables among the first 64 arguments
//   scalars         type_list of the dimension-1 parts that vary with the pair
//                   (read a reduced-axis variable or a slot), part q at position q
//   body, tail_body F over CH (and W mod CH) components, part q read as
//                   Slot<slot0 + q, 1>, the wide variables as VarChunk leaves
//   width, chunk    W and CH
//   mask<C>, count<C>, position<C, I>: the wide variables of category C read
//                   chunk by chunk, as lowering/chunk_plan.hpp's chunk_plan
#pragma once

#include <cstdint>
#include <type_traits>

#include <kops/core/factorize.hpp>
#include <kops/lowering/chunk.hpp>
#include <kops/lowering/chunk_plan.hpp>

namespace kops::detail {

// F varies with the pair: it reads a variable of category RedCat or a slot.
template <class F, category RedCat> struct varies_with_pair {
  static constexpr bool value = []<class... C>(type_list<C...>) {
    return (varies_with_pair<C, RedCat>::value || ...);
  }(typename F::children{});
};
template <category C, int I, int D, category RedCat> struct varies_with_pair<Var<C, I, D>, RedCat> {
  static constexpr bool value = C == RedCat;
};
template <int K, int D, category RedCat> struct varies_with_pair<Slot<K, D>, RedCat> {
  static constexpr bool value = true;
};

// The dimension-1 parts of F that vary with the pair, outermost first (not
// looking inside a part), appended to Acc without repeats.
template <class F, category RedCat, class Acc> struct collect_scalars;
template <category RedCat, class Acc, class... C> struct collect_scalars_of;
template <category RedCat, class Acc> struct collect_scalars_of<RedCat, Acc> {
  using type = Acc;
};
template <category RedCat, class Acc, class C, class... Rest> struct collect_scalars_of<RedCat, Acc, C, Rest...> {
  using type = typename collect_scalars_of<RedCat, typename collect_scalars<C, RedCat, Acc>::type, Rest...>::type;
};
template <class F, category RedCat, class Acc> struct collect_scalars {
  template <class... C> static auto below(type_list<C...>) -> typename collect_scalars_of<RedCat, Acc, C...>::type;
  static auto pick() {
    if constexpr (F::dim == 1) {
      if constexpr (varies_with_pair<F, RedCat>::value) return std::type_identity<typename list_add<Acc, F>::type>{};
      else return std::type_identity<Acc>{};
    } else {
      return std::type_identity<decltype(below(typename F::children{}))>{};
    }
  }
  using type = typename decltype(pick())::type;
};

// Position of T in the type_list L (-1: absent).
template <class T, class L> struct index_in;
template <class T, class... Ts> struct index_in<T, type_list<Ts...>> {
  static constexpr int value = [] {
    int i = 0, at = -1;
    ((at = at < 0 && std::is_same_v<T, Ts> ? i : at, ++i), ...);
    return at;
  }();
};

// The nodes chunk_body rebuilds over chunks: element-wise nodes and broadcasts.
template <class F>
inline constexpr bool rebuildable = [] {
  if constexpr (requires { typename F::op; }) return is_op_v<F, typename F::op>;
  else return requires { F::broadcast; };
}();

// F with every part of L (dimension 1, varying with the pair) replaced by
// Slot<Slot0 + q, 1>, in one walk (a part inside no other part).
template <class F, class L, int Slot0, category RedCat> struct replace_scalars {
  template <class... C>
  static auto rebuilt(type_list<C...>) -> rebind_t<F, type_list<typename replace_scalars<C, L, Slot0, RedCat>::type...>>;
  static auto pick() {
    if constexpr (F::dim == 1 && index_in<F, L>::value >= 0) return std::type_identity<Slot<Slot0 + index_in<F, L>::value, 1>>{};
    else if constexpr (F::dim == 1 || !rebuildable<F>) return std::type_identity<F>{};
    else return std::type_identity<decltype(rebuilt(typename F::children{}))>{};
  }
  using type = typename decltype(pick())::type;
};

template <class F, category RedCat, int CH>
struct final_plan {
  static constexpr int width = F::dim;
  static constexpr int chunk = CH;
  using scalars = typename collect_scalars<F, RedCat, type_list<>>::type;
  static constexpr int nscalars = scalars::size;
  static constexpr int slot0 = max_slot<F>::value + 1;
  using replaced = typename replace_scalars<F, scalars, slot0, RedCat>::type;
  static constexpr bool ok = [] {
    if constexpr (F::dim <= CH) return false;
    else if constexpr (!chunk_body<replaced, F::dim, CH>::ok) return false;
    else return chunk_max_index<typename chunk_body<replaced, F::dim, CH>::type>::value < 64;
  }();
  using body = typename chunk_body<replaced, F::dim, CH>::type;
  using tail_body = typename chunk_body<replaced, F::dim, (F::dim % CH > 0 ? F::dim % CH : CH)>::type;

  template <category C>
  static constexpr std::uint64_t mask = chunk_mask<body, C>::value | chunk_mask<tail_body, C>::value;
  template <category C> static constexpr int count = __builtin_popcountll(mask<C>);
  template <category C, int I>
  static constexpr int position = __builtin_popcountll(mask<C> & ((std::uint64_t(1) << I) - 1));
};

/// What a backend reads whole for a formula evaluated in final chunks: the
/// parts and the chunk bodies (a node for reads_whole and the layouts only).
template <class... F>
struct formula_pack : formula_node {
  static constexpr int dim = 1;
  using children = type_list<F...>;
};
template <class Plan, class Scalars = typename Plan::scalars> struct final_reads;
template <class Plan, class... S> struct final_reads<Plan, type_list<S...>> {
  using type = formula_pack<S..., typename Plan::body, typename Plan::tail_body>;
};

} // namespace kops::detail
