#pragma once

#include <utility>

#include <kops/core/constant.hpp>
#include <kops/core/dims.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/detail/shape.hpp>
#include <kops/ops/dot.hpp>
#include <kops/ops/matvecmult.hpp>
#include <kops/ops/tensorprod.hpp>
#include <kops/ops/vecmatmult.hpp>

namespace kops {

// The shape of a flat row-major tensor is a kops::dims (core/dims.hpp); a list
// of axis numbers:
template <int... K> struct axes {};

namespace detail {

// Everything tensordot computes at compile time from its parameters; the
// static members are only instantiated when used, so the checks (ok_*) can be
// asked of invalid parameters.
template <class Sa, class Sb, class Ca, class Cb, class P>
struct td_info {
  static constexpr int ra = int_list<Sa>::size, rb = int_list<Sb>::size, nc = int_list<Ca>::size;
  static constexpr int ka = ra - nc, kb = rb - nc, rank = ka + kb;
  static constexpr auto sa = int_list<Sa>::values;
  static constexpr auto sb = int_list<Sb>::values;
  static constexpr auto ca = int_list<Ca>::values;
  static constexpr auto cb = int_list<Cb>::values;

  static constexpr bool ok_sizes = valid_shape(sa) && valid_shape(sb);
  static constexpr bool ok_counts = int_list<Ca>::size == int_list<Cb>::size;
  static constexpr bool ok_axes = ok_counts && distinct_in_range(ca, ra) && distinct_in_range(cb, rb);
  static constexpr bool ok_match = ok_axes && gather(sa, ca) == gather(sb, cb);
  static constexpr bool ok_perm = [] {
    if constexpr (std::is_void_v<P>) return true;
    else return int_list<P>::size == rank && distinct_in_range(int_list<P>::values, rank);
  }();

  // The permutation (identity when P is void): kept axis k goes to output axis perm[k].
  static constexpr iarray<rank> perm = [] {
    if constexpr (std::is_void_v<P>) return iota<rank>();
    else return int_list<P>::values;
  }();
  static constexpr bool identity = is_identity(perm);

  // The axes of a and of b that are not contracted, increasing.
  static constexpr iarray<ka> keep_a = complement<ka>(ca, ra);
  static constexpr iarray<kb> keep_b = complement<kb>(cb, rb);

  // Shape of the output (after the permutation) and of the contraction.
  static constexpr iarray<rank> out_shape = [] {
    iarray<rank> s;
    for (int k = 0; k < ka; ++k) s.v[perm.v[k]] = sa.v[keep_a.v[k]];
    for (int k = 0; k < kb; ++k) s.v[perm.v[ka + k]] = sb.v[keep_b.v[k]];
    return s;
  }();
  static constexpr iarray<nc> cont_shape = gather(sa, ca);
  static constexpr int dout = int(product(out_shape));
  static constexpr int dcont = int(product(cont_shape));

  // The parameters of the two adjoints (see the header comment): g (shape
  // out_shape) contracted with b over the output axes that came from b, with
  // b's kept axes; the result (g's remaining axes increasing, then b's
  // contracted axes increasing) permuted to a's axis order. And symmetrically.
  // Side 0: the adjoint for a; side 1: for b.
  template <int Side>
  struct adjoint {
    static constexpr int kx = Side == 0 ? ka : kb;  // axes the operand kept
    static constexpr int ky = Side == 0 ? kb : ka;  // axes the other operand kept
    static constexpr int ox = Side == 0 ? 0 : ka;   // the operand's first kept axis, before the permutation
    static constexpr int oy = Side == 0 ? ka : 0;
    // The axes of g to contract: where the other operand's kept axes went.
    static constexpr iarray<ky> g_axes = [] {
      iarray<ky> r;
      for (int q = 0; q < ky; ++q) r.v[q] = td_info::perm.v[oy + q];
      return r;
    }();
    // Where each axis of that contraction's result goes in the operand.
    static constexpr iarray<kx + nc> to_operand = [] {
      constexpr auto cx = Side == 0 ? ca : cb;  // the operand's contracted axes
      constexpr auto cy = Side == 0 ? cb : ca;  // and their partners in the other operand
      iarray<kx + nc> r;
      int n = 0;
      // g's remaining axes, increasing: the output positions of the operand's kept axes.
      for (int gpos = 0; gpos < rank; ++gpos)
        for (int p = 0; p < kx; ++p)
          if (td_info::perm.v[ox + p] == gpos) r.v[n++] = Side == 0 ? keep_a.v[p] : keep_b.v[p];
      // then the other operand's contracted axes, increasing.
      for (int axis = 0; axis < (Side == 0 ? rb : ra); ++axis)
        for (int t = 0; t < nc; ++t)
          if (cy.v[t] == axis) r.v[n++] = cx.v[t];
      return r;
    }();
  };
};

// Flat offsets into a and b of each product of tensordot: term c of output
// component o reads a[value.a.v[o dcont + c]] and b[value.b.v[o dcont + c]]. (Apart from
// td_info, so that checking invalid parameters does not build it.)
template <class I>
struct td_table {
  static constexpr int ra = I::ra, rb = I::rb, nc = I::nc, ka = I::ka, kb = I::kb, rank = I::rank;
  static constexpr int dout = I::dout, dcont = I::dcont;
  // One declarator per auto: each deduces its own iarray<N> (several in one
  // declaration must deduce the same type; nvcc enforces it).
  static constexpr auto sa = I::sa;
  static constexpr auto sb = I::sb;
  static constexpr auto ca = I::ca;
  static constexpr auto cb = I::cb;
  static constexpr auto perm = I::perm;
  static constexpr auto keep_a = I::keep_a;
  static constexpr auto keep_b = I::keep_b;
  static constexpr auto out_shape = I::out_shape;
  static constexpr auto cont_shape = I::cont_shape;
  struct offsets {
    iarray<dout * dcont> a, b;
  };
  static constexpr offsets value = [] {
    offsets t;
    for (int o = 0; o < dout; ++o) {
      const iarray<rank> oi = unravel(o, out_shape);
      for (int c = 0; c < dcont; ++c) {
        const iarray<nc> ci = unravel(c, cont_shape);
        iarray<ra> ai;
        iarray<rb> bi;
        for (int k = 0; k < ka; ++k) ai.v[keep_a.v[k]] = oi.v[perm.v[k]];
        for (int k = 0; k < kb; ++k) bi.v[keep_b.v[k]] = oi.v[perm.v[ka + k]];
        for (int p = 0; p < nc; ++p) {
          ai.v[ca.v[p]] = ci.v[p];
          bi.v[cb.v[p]] = ci.v[p];
        }
        t.a.v[o * dcont + c] = ravel(ai, sa);
        t.b.v[o * dcont + c] = ravel(bi, sb);
      }
    }
    return t;
  }();

};

template <int I, class T, int D>
KOPS_HD KOPS_INLINE constexpr const T& at(const vec<T, D>& v) {
  return v[I];
}

// P for kron: kept axis k of a (k < r) goes to 2k, axis q of b to 2q + 1.
template <int R, int... K> auto interleave(std::integer_sequence<int, K...>) -> axes<(K < R ? 2 * K : 2 * (K - R) + 1)...>;
template <int R> using interleave_t = decltype(interleave<R>(std::make_integer_sequence<int, 2 * R>{}));

} // namespace detail

template <class Sa, class Sb, class Ca, class Cb, class P, Formula A, Formula B>
struct TensorDot : formula_node {
  using info = detail::td_info<Sa, Sb, Ca, Cb, P>;
  static_assert(info::ok_sizes && info::ok_match && info::ok_perm &&
                    detail::shape_size_v<Sa> == A::dim && detail::shape_size_v<Sb> == B::dim,
                "kops::tensordot: invalid shapes or axes (build it with kops::tensordot)");
  static constexpr int dim = info::dout;
  using children = type_list<A, B>;
  template <class C1, class C2> using rebind = TensorDot<Sa, Sb, Ca, Cb, P, C1, C2>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    return contract(a, b, std::make_integer_sequence<int, dim>{});
  }

  template <class T, int... O>
  KOPS_HD KOPS_INLINE static constexpr vec<T, dim> contract(const vec<T, A::dim>& a, const vec<T, B::dim>& b,
                                                             std::integer_sequence<int, O...>) {
    return {{term<O>(a, b, std::make_integer_sequence<int, info::dcont>{})...}};
  }
  template <int O, class T, int... C>
  KOPS_HD KOPS_INLINE static constexpr T term(const vec<T, A::dim>& a, const vec<T, B::dim>& b,
                                              std::integer_sequence<int, C...>) {
    return (... + (detail::at<detail::td_table<info>::value.a.v[O * info::dcont + C]>(a) *
                   detail::at<detail::td_table<info>::value.b.v[O * info::dcont + C]>(b)));
  }

  // kops: tensordot<dims<..>,dims<..>,axes<..>,axes<..>[,axes<perm>]>(a,b), or
  // kron<dims<..>,dims<..>>(a,b); KeOps: TensorDot(a,b,[..],[..],[..],[..][,[perm]])
  // or Kron(a,b,[..],[..]).
  template <class S, class Pr>
  static S print(Pr p) {
    const auto list = [&](const auto& arr, int n, bool keops) {
      S s = keops ? S("[") : S("<");
      for (int k = 0; k < n; ++k) s += (k ? S(",") : S()) + p.num(arr.v[k]);
      return s + (keops ? S("]") : S(">"));
    };
    constexpr bool is_kron = info::nc == 0 && info::ra == info::rb &&
                             std::is_same_v<P, detail::interleave_t<info::ra>> && !info::identity;
    const S children = p(A{}) + "," + p(B{});
    const bool k = p.keops;
    S shapes = (k ? S() : S("dims")) + list(info::sa, info::ra, k) + "," + (k ? S() : S("dims")) +
               list(info::sb, info::rb, k);
    if constexpr (is_kron) {
      return k ? "Kron(" + children + "," + shapes + ")" : "kron<" + shapes + ">(" + children + ")";
    } else {
      shapes += S(",") + (k ? S() : S("axes")) + list(info::ca, info::nc, k) + "," + (k ? S() : S("axes")) +
                list(info::cb, info::nc, k);
      if (!info::identity) shapes += S(",") + (k ? S() : S("axes")) + list(info::perm, info::rank, k);
      return k ? "TensorDot(" + children + "," + shapes + ")" : "tensordot<" + shapes + ">(" + children + ")";
    }
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g);
};

/// tensordot<dims<sa...>, dims<sb...>, axes<ca...>, axes<cb...>>(a, b): numpy's
/// tensordot(a, b, axes=(ca, cb)) on flat row-major tensors (KeOps' TensorDot(a,
/// b, sa, sb, ca, cb)). a has shape sa (dim a = prod sa), b shape sb; axis ca[p]
/// of a is contracted with axis cb[p] of b (equal sizes). The result's axes are
/// the kept axes of a, then those of b, each in increasing order:
/// ```text
///   out[i.., j..] = sum_{c..} a[i.. with c.. at ca] b[j.. with c.. at cb],
/// ```
/// dim = prod sa prod sb / prod(contracted sizes)^2 (1 when nothing is kept).
/// An optional fifth parameter axes<p...> (KeOps' permute) moves the k-th axis of
/// that result to position p[k] of the output.
/// Derivative (linear in each operand): each adjoint is another tensordot, of g
/// with the other operand over the axes that operand kept, permuted back to the
/// operand's shape:
/// ```text
///   [d_V tensordot(A, B)]^T g = [d_V A]^T tensordot(g, B) + [d_V B]^T tensordot(g, A).
/// ```
/// Simplifications: a zero operand gives zero; the rank-1/rank-2 cases are the
/// simpler ops: no contraction is tensorprod(a, b); (n,m).(m) over (1),(0) is
/// matvecmult(a, b), over (0),(0) on (n).(n,m) vecmatmult(a, b); the transposed
/// forms swap; (n).(n) is dot(a, b).
template <class Sa, class Sb, class Ca, class Cb, class P = void, Formula A, Formula B>
constexpr auto tensordot([[maybe_unused]] A a, [[maybe_unused]] B b) {
  using info = detail::td_info<Sa, Sb, Ca, Cb, P>;
  static_assert(info::ok_sizes, "kops::tensordot: every axis size must be >= 1");
  static_assert(detail::shape_size_v<Sa> == A::dim,
                "kops::tensordot: the shape of a must multiply to dim a");
  static_assert(detail::shape_size_v<Sb> == B::dim,
                "kops::tensordot: the shape of b must multiply to dim b");
  static_assert(info::ok_counts, "kops::tensordot: both lists of contracted axes must have the same length");
  static_assert(!info::ok_counts || info::ok_axes,
                "kops::tensordot: a contracted axis is out of range or listed twice");
  static_assert(!info::ok_axes || info::ok_match, "kops::tensordot: contracted axes must have equal sizes");
  static_assert(info::ok_perm, "kops::tensordot: the permutation must list each output axis once");
  if constexpr (!(info::ok_sizes && info::ok_match && info::ok_perm &&
                  detail::shape_size_v<Sa> == A::dim && detail::shape_size_v<Sb> == B::dim)) {
    return Zero<1>{};  // (after a failed assertion: no second error)
  } else {
    constexpr int ra = info::ra, rb = info::rb, nc = info::nc;
    constexpr bool id = info::identity;
    constexpr auto ca = info::ca;
    constexpr auto cb = info::cb;
    if constexpr (is_zero_v<A> || is_zero_v<B>) return Zero<info::dout>{};
    else if constexpr (nc == 0 && id) return tensorprod(a, b);
    else if constexpr (nc == 1 && ra == 1 && rb == 1) return dot(a, b);
    else if constexpr (nc == 1 && id && ra == 2 && rb == 1 && ca.v[0] == 1) return matvecmult(a, b);
    else if constexpr (nc == 1 && id && ra == 2 && rb == 1 && ca.v[0] == 0) return vecmatmult(b, a);
    else if constexpr (nc == 1 && id && ra == 1 && rb == 2 && cb.v[0] == 0) return vecmatmult(a, b);
    else if constexpr (nc == 1 && id && ra == 1 && rb == 2 && cb.v[0] == 1) return matvecmult(b, a);
    else {
      using Pn = std::conditional_t<id, void, P>;
      return TensorDot<Sa, Sb, Ca, Cb, Pn, A, B>{};
    }
  }
}

template <class Sa, class Sb, class Ca, class Cb, class P, Formula A, Formula B>
template <class V, class G>
constexpr auto TensorDot<Sa, Sb, Ca, Cb, P, A, B>::vjp(V v, G g) {
  using namespace detail;
  using Sg = list_t<dims, info::out_shape, info::rank>;
  using adj_a = typename info::template adjoint<0>;
  using adj_b = typename info::template adjoint<1>;
  const auto ga = tensordot<Sg, Sb, list_t<axes, adj_a::g_axes, info::kb>, list_t<axes, info::keep_b, info::kb>,
                            list_t<axes, adj_a::to_operand, info::ra>>(g, B{});
  const auto gb = tensordot<Sg, Sa, list_t<axes, adj_b::g_axes, info::ka>, list_t<axes, info::keep_a, info::ka>,
                            list_t<axes, adj_b::to_operand, info::rb>>(g, A{});
  return grad(A{}, v, ga) + grad(B{}, v, gb);
}

} // namespace kops
