// Chunked evaluation of wide sums over coordinates (the last lowering step).
//
// A sum over the D components of an element-wise expression of D-dimensional
// variables -- sqdist, dot, sqnorm2, a diagonal weighted norm: every such
// builder ends in Sum<G>, which declares `coordinate_sum` -- needs, evaluated as written, all D components of
// each variable and of every intermediate at once: D registers per value on
// the GPU (D = 256 spills, past a few hundred nothing compiles), D packs of
// stack per value on the CPU. Chunked, the sum runs over the dimension CH
// components at a time:
//
//   Sum<G>  ->  ChunkedSum<G, CH>:   s = sum_q sum_{k < CH} G[chunk q]_k
//
// where G[chunk q] is G with every variable of dimension D replaced by the CH
// components [q CH, q CH + CH) of that variable (VarChunk), and, when CH does
// not divide D, a last chunk of D mod CH components. The element-wise nodes
// rebuild themselves over the narrower operands; operands of dimension 1 are
// evaluated as they are. The chunk loop runs at run time: its body is the only
// code instantiated, for one chunk width (two with the tail).
//
// A context that evaluates chunked formulas provides, besides load<C, I, D>(),
//   load_range<C, I, D, CH>(k0)   components [k0, k0 + CH) of variable I (dim D)
// (the backends' contexts; factorize.hpp's slot_context forwards it).
//
// What is chunked: a Sum<G> with G::dim >= MinDim whose operand tree is made
// of element-wise nodes (Unary, Binary, Ternary) over variables of dimension
// G::dim and dimension-1 sub-formulas of any kind. Anything else (a wide
// output, extract, matvecmult, a sum over a wide constant ...) is evaluated as
// written. Chunking reorders the sum: CH partial sums, one per position in the
// chunk, combined at the end (also more accurate than one running sum).
#pragma once

#include <cstdint>
#include <type_traits>

#include <kops/core/elementwise.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/formula.hpp>
#include <kops/core/variable.hpp>
#include <kops/lowering/lower.hpp>

namespace kops {

/// Components of the variable Var<C, I, D>, CH of them: Moved false, those
/// from the run-time offset k0 that the evaluation context holds
/// (detail::chunk_context: VarChunk); Moved true, the first CH, read through an
/// argument pointer that the front end has moved to the chunk's first component
/// (output chunking, detail/output_chunks.hpp: VarStrided; the argument is then
/// no variable of the pass's signature, its pointer not in range for a whole row).
template <category C, int I, int D, int CH, bool Moved>
struct VarPart : formula_node {
  static constexpr category cat = C;
  static constexpr int index = I;
  static constexpr int full_dim = D;
  static constexpr int dim = CH;
  static constexpr const char* name = Moved ? "var_strided" : "var_chunk";
  using print_params = int_params<I, D, CH>;
  using children = type_list<>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    if constexpr (Moved) return ctx.template load_range<C, I, D, CH>(0);
    else return ctx.template load_chunk<C, I, D, CH>();
  }
};
template <category C, int I, int D, int CH> using VarChunk = VarPart<C, I, D, CH, false>;
template <category C, int I, int D, int CH> using VarStrided = VarPart<C, I, D, CH, true>;

namespace detail {

// The context of one chunk: the context it runs in (every load, slot and
// nested chunk forwarded) and the chunk's first component.
template <class Ctx>
struct chunk_context {
  using value_type = typename Ctx::value_type;
  using scalar_type = typename Ctx::scalar_type;
  using math = typename Ctx::math;
  const Ctx& inner;
  int k0;

  template <category C, int I, int D>
  KOPS_HD KOPS_INLINE constexpr auto load() const {
    return inner.template load<C, I, D>();
  }
  template <int K, int D>
  KOPS_HD KOPS_INLINE constexpr const auto& slot() const {
    return inner.template slot<K, D>();
  }
  template <category C, int I, int D, int CH>
  KOPS_HD KOPS_INLINE constexpr auto load_range(int k) const {
    return inner.template load_range<C, I, D, CH>(k);
  }
  template <category C, int I, int D, int CH>
  KOPS_HD KOPS_INLINE constexpr auto load_chunk() const {
    return inner.template load_range<C, I, D, CH>(k0);
  }
};

// chunk_body<G, W, CH>::type: G with its variables of dimension W replaced by
// their CH-wide chunks; `ok` false when G is not chunkable (file comment).
template <class G, int W, int CH, template <category, int, int, int> class Leaf = VarChunk, class = void>
struct chunk_body {
  // A leaf or node that is neither a variable nor element-wise: kept when its
  // dimension is 1 (evaluated whole in the chunk's context), else not chunkable.
  static constexpr bool ok = G::dim == 1;
  using type = G;
};
template <category C, int I, int D, int W, int CH, template <category, int, int, int> class Leaf>
struct chunk_body<Var<C, I, D>, W, CH, Leaf> {
  static constexpr bool ok = D == W || D == 1;
  using type = std::conditional_t<D == W, Leaf<C, I, D, CH>, Var<C, I, D>>;
};
template <class G, int W, int CH, template <category, int, int, int> class Leaf>
struct chunk_body<G, W, CH, Leaf, std::enable_if_t<is_op_v<G, typename G::op>>> {
  template <class... Ch>
  static constexpr bool all_ok(type_list<Ch...>) { return (chunk_body<Ch, W, CH, Leaf>::ok && ...); }
  template <class... Ch>
  static auto rebuilt(type_list<Ch...>) -> rebind_t<G, type_list<typename chunk_body<Ch, W, CH, Leaf>::type...>>;
  // Element-wise over dimension W (or a dimension-1 node, kept whole).
  static constexpr bool ok = G::dim == 1 || (G::dim == W && all_ok(typename G::children{}));
  using type = std::conditional_t<G::dim == 1, G, decltype(rebuilt(typename G::children{}))>;
};

// A broadcast of a dimension-1 operand to W components (a node declaring
// `broadcast` and `resized<D>`, itself over D components: ops/sum.hpp's sum_t,
// which gradients of sums over coordinates contain): the same broadcast to CH.
template <class G, int W, int CH, template <category, int, int, int> class Leaf>
struct chunk_body<G, W, CH, Leaf, std::enable_if_t<G::broadcast>> {
  static constexpr bool ok = G::dim == W || G::dim == 1;
  using type = std::conditional_t<G::dim == W, typename G::template resized<CH>, G>;
};

// Pairwise sum of the CH partial sums (a tree: fewer rounding steps).
template <int N, class V>
KOPS_HD KOPS_INLINE constexpr V tree_sum(const V* a) {
  if constexpr (N == 1) return a[0];
  else return tree_sum<N / 2>(a) + tree_sum<N - N / 2>(a + N / 2);
}

} // namespace detail

/// The sum over the W components of G, CH at a time (file comment).
template <Formula G, int CH>
struct ChunkedSum : formula_node {
  static constexpr int dim = 1;
  static constexpr int width = G::dim;
  static constexpr int chunk = CH;
  static constexpr const char* name = "sum";
  static constexpr const char* keops_name = "Sum";
  using children = type_list<G>;
  template <class C> using rebind = ChunkedSum<C, CH>;
  static_assert(G::dim >= CH, "kops: internal error, a chunked sum narrower than its chunk");
  using body = typename detail::chunk_body<G, G::dim, CH>::type;
  using tail_body = typename detail::chunk_body<G, G::dim, (G::dim % CH > 0 ? G::dim % CH : 1)>::type;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    constexpr int full = G::dim / CH, tail = G::dim % CH;
    detail::chunk_context<Ctx> c{ctx, 0};
    auto acc = body::eval(c);
    for (int q = 1; q < full; ++q) {
      c.k0 = q * CH;
      const auto v = body::eval(c);
      for (int k = 0; k < CH; ++k) acc[k] = acc[k] + v[k];
    }
    if constexpr (tail > 0) {
      c.k0 = full * CH;
      const auto v = tail_body::eval(c);
      for (int k = 0; k < tail; ++k) acc[k] = acc[k] + v[k];
    }
    return vec<V, 1>{{detail::tree_sum<CH>(&acc[0])}};
  }
};

namespace detail {

// The chunking rule for rewrite_t (lowering/lower.hpp): a node that declares
// itself the sum of its one operand's components (`coordinate_sum`: ops/sum.hpp's
// Sum) over at least MinDim components of a chunkable G becomes ChunkedSum<G, CH>.
template <int MinDim, int CH>
struct chunk_rule {
  template <class N> static auto pick() {
    if constexpr (requires { N::coordinate_sum; }) {
      using G = typename N::children::template at<0>;
      if constexpr (G::dim >= MinDim && G::dim >= CH && chunk_body<G, G::dim, CH>::ok)
        return std::type_identity<ChunkedSum<G, CH>>{};
      else return std::type_identity<N>{};
    } else {
      return std::type_identity<N>{};
    }
  }
  template <class N> using apply = typename decltype(pick<N>())::type;
};

// F reads variable I whole somewhere (not only chunk by chunk).
template <class F, int I> struct reads_whole;
template <int I, class... C> constexpr bool reads_whole_of(type_list<C...>) { return (reads_whole<C, I>::value || ...); }
template <class F, int I> struct reads_whole {
  static constexpr bool value = reads_whole_of<I>(typename F::children{});
};
template <category C, int J, int D, int I> struct reads_whole<Var<C, J, D>, I> {
  static constexpr bool value = J == I;
};
// A chunked sum reads what its chunk bodies read (its operand, kept for
// printing and comparison, names the wide variables whole).
template <class G, int CH, int I> struct reads_whole<ChunkedSum<G, CH>, I> {
  static constexpr bool value = reads_whole<typename ChunkedSum<G, CH>::body, I>::value ||
                                reads_whole<typename ChunkedSum<G, CH>::tail_body, I>::value;
};

// The variables of dimension D in F, as a bit mask of argument indices (I < 64),
// by category; and whether F reads a variable of dimension >= D anywhere.
template <class F, int D, category C> struct wide_mask {
  static constexpr std::uint64_t value = []<class... Ch>(type_list<Ch...>) {
    return (std::uint64_t(0) | ... | wide_mask<Ch, D, C>::value);
  }(typename F::children{});
};
template <category C2, int I, int D2, int D, category C> struct wide_mask<Var<C2, I, D2>, D, C> {
  static constexpr std::uint64_t value = C2 == C && D2 == D && I < 64 ? std::uint64_t(1) << (I % 64) : 0;
};
// The largest argument index of F's variables of dimension D (-1: none).
template <class F, int D> struct wide_max_index {
  static constexpr int value = []<class... Ch>(type_list<Ch...>) {
    int m = -1;
    ((m = wide_max_index<Ch, D>::value > m ? wide_max_index<Ch, D>::value : m), ...);
    return m;
  }(typename F::children{});
};
template <category C, int I, int D2, int D> struct wide_max_index<Var<C, I, D2>, D> {
  static constexpr int value = D2 == D ? I : -1;
};
template <class F, int D> struct reads_dim_at_least {
  static constexpr bool value = []<class... Ch>(type_list<Ch...>) {
    return (reads_dim_at_least<Ch, D>::value || ...);
  }(typename F::children{});
};
template <category C, int I, int D2, int D> struct reads_dim_at_least<Var<C, I, D2>, D> {
  static constexpr bool value = D2 >= D;
};
// The dimension-1 sub-formulas an output chunk would evaluate again for every
// chunk: none of them may read a variable of dimension >= MinDim (a wide
// kernel, such as a gradient's: recomputed per chunk it would cost more than
// the accumulator it saves).
template <class F, int MinDim> struct narrow_scalars {
  static constexpr bool value = [] {
    if constexpr (F::dim == 1) return !reads_dim_at_least<F, MinDim>::value;
    else
      return []<class... Ch>(type_list<Ch...>) { return (narrow_scalars<Ch, MinDim>::value && ...); }(
          typename F::children{});
  }();
};

} // namespace detail

/// F with its wide chunkable sums chunked (file comment); F itself when it has none.
template <Formula F, int MinDim, int CH>
using chunked_t = rewrite_t<F, detail::chunk_rule<MinDim, CH>>;

namespace detail {
// The widest slot of a signature (type_list of Var / Unused: dim 0).
template <class Sig> struct widest_slot;
template <class... S> struct widest_slot<type_list<S...>> {
  static constexpr int value = [] {
    int m = 0;
    ((m = S::dim > m ? S::dim : m), ...);
    return m;
  }();
};
template <class F, int MinDim, int CH, bool Wide> struct chunked_if {
  using type = F;
};
template <class F, int MinDim, int CH> struct chunked_if<F, MinDim, CH, true> {
  using type = chunked_t<F, MinDim, CH>;
};
} // namespace detail

/// chunked_t for a reduction's formula F whose variables are those of the
/// signature Sig: F itself, without walking it, when no variable is MinDim wide
/// (what nearly every formula costs to compile is then one fold over Sig).
template <Formula F, class Sig, int MinDim, int CH>
using chunked_for_t = typename detail::chunked_if<F, MinDim, CH, (detail::widest_slot<Sig>::value >= MinDim)>::type;

} // namespace kops
