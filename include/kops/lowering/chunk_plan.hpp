// The staged form of a chunked formula (lowering/chunk.hpp), for a backend
// that evaluates a tile of pairs at a time and wants each chunk of a row's
// wide variables read once per tile rather than once per pair (the GPU
// backend's pair loop, backends/cuda/chunk_loop.hpp):
//
//   for each chunk q of the dimension:
//     stage chunk q of the wide variables (row: registers, reduced axis: shared memory)
//     for each pair of the tile:  part[pair][s] += sum over the chunk of sum s's body
//   for each pair of the tile:    evaluate the formula with chunked sum s read as part[pair][s]
//
// chunk_plan<F> says whether F has that form and gives its pieces:
//   ok            F has chunked sums, all over the same width, none nested in
//                 another's body, none reading a factorized slot, and their
//                 wide variables are among the first 64 arguments
//   sums          type_list of F's distinct ChunkedSum nodes (sum s at position s)
//   outer         F with sum s replaced by the placeholder Slot<slot0 + s, 1>
//   width, chunk  the dimension the sums run over, and their chunk
//   mask<C>       bit I set when argument I (category C) is read chunk by chunk
#pragma once

#include <cstdint>
#include <type_traits>

#include <kops/core/factorize.hpp>
#include <kops/lowering/chunk.hpp>

namespace kops::detail {

// The distinct ChunkedSum nodes of F, in tree order (not looking inside them).
template <class L, class T> struct list_add;
template <class... Ts, class T> struct list_add<type_list<Ts...>, T> {
  using type = std::conditional_t<(std::is_same_v<Ts, T> || ...), type_list<Ts...>, type_list<Ts..., T>>;
};
template <class F, class Acc> struct collect_sums;
template <class Acc, class... C> struct collect_children;
template <class Acc> struct collect_children<Acc> {
  using type = Acc;
};
template <class Acc, class C, class... Rest> struct collect_children<Acc, C, Rest...> {
  using type = typename collect_children<typename collect_sums<C, Acc>::type, Rest...>::type;
};
template <class F, class Acc> struct collect_sums {
  template <class... C> static auto below(type_list<C...>) -> typename collect_children<Acc, C...>::type;
  using type = decltype(below(typename F::children{}));
};
template <class G, int CH, class Acc> struct collect_sums<ChunkedSum<G, CH>, Acc> {
  using type = typename list_add<Acc, ChunkedSum<G, CH>>::type;
};

template <class L> struct front {
  using type = void;
};
template <class T, class... Ts> struct front<type_list<T, Ts...>> {
  using type = T;
};

// The largest argument index of F's VarChunk leaves (-1: none).
template <class F> struct chunk_max_index {
  static constexpr int value = []<class... Ch>(type_list<Ch...>) {
    int m = -1;
    ((m = chunk_max_index<Ch>::value > m ? chunk_max_index<Ch>::value : m), ...);
    return m;
  }(typename F::children{});
};
template <category C, int I, int D, int CH> struct chunk_max_index<VarChunk<C, I, D, CH>> {
  static constexpr int value = I;
};

// Bit I set for every VarChunk<C, I, ...> leaf of F (I < 64: chunk_plan::ok).
template <class F, category C> struct chunk_mask {
  static constexpr std::uint64_t value = []<class... Ch>(type_list<Ch...>) {
    return (std::uint64_t(0) | ... | chunk_mask<Ch, C>::value);
  }(typename F::children{});
};
template <category C2, int I, int D, int CH, category C> struct chunk_mask<VarChunk<C2, I, D, CH>, C> {
  static constexpr std::uint64_t value = C2 == C && I < 64 ? std::uint64_t(1) << (I % 64) : 0;
};

// F contains a chunked sum.
template <class F> struct has_chunked_sum {
  static constexpr bool value = []<class... Ch>(type_list<Ch...>) {
    return (has_chunked_sum<Ch>::value || ...);
  }(typename F::children{});
};
template <class G, int CH> struct has_chunked_sum<ChunkedSum<G, CH>> {
  static constexpr bool value = true;
};

// F with the sums of L replaced by Slot<slot0 + s, 1>.
template <class F, class L, int Slot0> struct replace_sums;
template <class F, int Slot0> struct replace_sums<F, type_list<>, Slot0> {
  using type = F;
};
template <class F, class S, class... Rest, int Slot0> struct replace_sums<F, type_list<S, Rest...>, Slot0> {
  using type = typename replace_sums<replace_t<F, S, Slot<Slot0, 1>>, type_list<Rest...>, Slot0 + 1>::type;
};

template <class S> struct sum_ok {
  // The body reads nothing the staging cannot provide: no factorized slot, no
  // chunked sum inside (a dimension-1 operand that is itself a wide sum).
  static constexpr bool value = max_slot<typename S::body>::value == 0 && max_slot<typename S::tail_body>::value == 0 &&
                                !has_chunked_sum<typename S::body>::value &&
                                !has_chunked_sum<typename S::tail_body>::value;
};

template <class F>
struct chunk_plan {
  using sums = typename collect_sums<F, type_list<>>::type;
  static constexpr int nsums = sums::size;
  using first = typename front<sums>::type;
  static constexpr int width = [] {
    if constexpr (nsums > 0) return first::width;
    else return 0;
  }();
  static constexpr int chunk = [] {
    if constexpr (nsums > 0) return first::chunk;
    else return 0;
  }();
  static constexpr bool ok = [] {
    if constexpr (nsums == 0) return false;
    else
      return []<class... S>(type_list<S...>) {
        return ((S::width == width && S::chunk == chunk && sum_ok<S>::value &&
                 chunk_max_index<typename S::body>::value < 64 && chunk_max_index<typename S::tail_body>::value < 64) &&
                ...);
      }(sums{});
  }();
  static constexpr int slot0 = max_slot<F>::value + 1;
  using outer = typename replace_sums<F, sums, slot0>::type;

  template <category C>
  static constexpr std::uint64_t mask = []<class... S>(type_list<S...>) {
    return (std::uint64_t(0) | ... | (chunk_mask<typename S::body, C>::value | chunk_mask<typename S::tail_body, C>::value));
  }(sums{});
  template <category C> static constexpr int count = __builtin_popcountll(mask<C>);
  // Position of argument I among those of category C read chunk by chunk.
  template <category C, int I>
  static constexpr int position = __builtin_popcountll(mask<C> & ((std::uint64_t(1) << I) - 1));
};

// p + the sum over a chunk of C2 components of the chunked sum S's body (its
// tail body when C2 is narrower than S's chunk), added term by term: p + a*a
// contracts to one fused multiply-add per component (a tree of the chunk's
// terms first would cost a multiply and an add). Both backends' staged loops.
template <class S, int C2, class Ctx, class T>
KOPS_HD KOPS_INLINE T add_chunk(const Ctx& cc, T p) {
  using B = std::conditional_t<C2 == S::chunk, typename S::body, typename S::tail_body>;
  const auto v = B::eval(cc);
  for (int k = 0; k < C2; ++k) p = p + v[k];
  return p;
}

} // namespace kops::detail
