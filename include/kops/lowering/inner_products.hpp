// Inner products in a formula: the sums over coordinates that the tensor
// cores can compute a tile at a time (the tensor-core path's lowering step).
//
// A sum over D >= MinDim coordinates of one of these forms, between a
// variable x of the i axis and a variable y of the j axis of the same dim
// (either order; the canonical forms the builders produce):
//
//   dot              sum_k x_k y_k                 = <x, y>
//   sqdist           sum_k (x_k - y_k)^2           = |x|^2 + |y|^2 - 2 <x, y>
//   weighted_sqdist  sum_k (x_k - y_k)^2 w_k       = |x|_w^2 + |y|_w^2 - 2 <x, w y>
//                    (w a parameter of dim D: kops::weighted_sqdist's diagonal form)
//
// is an inner_term: the pair (x, y), its kind and weight. Once the inner
// products <x, y> (or <x, w y>) of a tile of rows and a tile of the reduced
// axis are known (backends/cuda/mma_tile.hpp computes them in TF32, 3xTF32,
// fp16 or bf16), each term's value per pair needs only the norms, computed once
// per row and once per reduced-axis index. inner_product_plan<F> finds the
// terms and gives the rest of the formula, with term s read as the placeholder
// Slot<slot0 + s, 1> -- as chunk_plan does for the staged sums:
//
//   ok               F has at least one such term
//   sums             type_list of the distinct sum nodes, in tree order
//   terms            type_list of inner_term<...>, one per sum
//   products         type_list of the distinct inner products the terms need
//                    (inner_product<X, Y, W>): dot(x, y) and sqdist(x, y)
//                    share one
//   outer            F with sum s replaced by Slot<slot0 + s, 1>
//   wide_rest        outer still reads a variable of dim >= MinDim (e.g. the
//                    values of an attention, weighted by the softmax): that part
//                    stays per pair on the CUDA cores
//
// Only recognition: no kernel evaluates a plan yet (docs/cuda.md, "Tensor
// cores"). Forms not recognised (sum_k |x_k - y_k|, a full-matrix weight, a
// product of three wide variables, two variables of one axis) stay as they are.
#pragma once

#include <type_traits>

#include <kops/core/elementwise.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/formula.hpp>
#include <kops/core/variable.hpp>
#include <kops/lowering/chunk_plan.hpp>

#ifndef KOPS_TC_MIN_DIM
#define KOPS_TC_MIN_DIM 32
#endif

namespace kops {
// The nodes the forms are made of (ops/sum.hpp, mult.hpp, square.hpp,
// subtract.hpp; a lowering step names no op's header).
template <Formula F> struct Sum;
struct mult_op;
struct square_op;
struct subtract_op;
} // namespace kops

namespace kops::detail {

/// The smallest dimension whose inner products go to the tensor cores
/// (KOPS_TC_MIN_DIM, 32; to be measured on a GPU).
inline constexpr int tc_min_dim = KOPS_TC_MIN_DIM;

enum class inner_kind { dot, sqdist, weighted_sqdist };

/// The inner product <X, W Y> of an i-variable X and a j-variable Y (W: a
/// parameter of their dim scaling Y, or void).
template <class X, class Y, class W>
struct inner_product {
  using x = X;
  using y = Y;
  using weight = W;
  static constexpr int dim = X::dim;
};

/// One recognised sum: its kind and inner product.
template <inner_kind K, class X, class Y, class W>
struct inner_term {
  static constexpr inner_kind kind = K;
  using product = inner_product<X, Y, W>;
};

// A and B (in either order) are an i-variable and a j-variable of one dim, W
// void or a parameter of that dim: the term of kind K.
template <inner_kind K, class A, class B, class W>
struct pair_term {
  static constexpr bool vars = is_variable_v<A> && is_variable_v<B>;
  static constexpr bool ok = [] {
    if constexpr (!vars) return false;
    else {
      const bool cats = (A::cat == category::i && B::cat == category::j) || (A::cat == category::j && B::cat == category::i);
      bool weight = true;
      if constexpr (!std::is_void_v<W>) weight = is_variable_v<W> && W::cat == category::param && W::dim == A::dim;
      return cats && A::dim == B::dim && weight;
    }
  }();
  static auto pick() {
    if constexpr (!ok) return std::type_identity<void>{};
    else if constexpr (A::cat == category::i) return std::type_identity<inner_term<K, A, B, W>>{};
    else return std::type_identity<inner_term<K, B, A, W>>{};
  }
  using term = typename decltype(pick())::type;
};

// The term a sum node S is, if any.
template <class S> struct inner_of {
  static constexpr bool ok = false;
};
template <class A, class B>
struct inner_of<Sum<Binary<mult_op, A, B>>> : pair_term<inner_kind::dot, A, B, void> {};
template <class A, class B>
struct inner_of<Sum<Unary<square_op, Binary<subtract_op, A, B>>>> : pair_term<inner_kind::sqdist, A, B, void> {};
template <class A, class B, class W>
struct inner_of<Sum<Binary<mult_op, Unary<square_op, Binary<subtract_op, A, B>>, W>>>
    : pair_term<inner_kind::weighted_sqdist, A, B, W> {};

// The distinct recognised sums of F (at least MinDim coordinates), in tree
// order, not looking inside them.
template <class F, int MinDim, class Acc> struct collect_inner;
template <int MinDim, class Acc, class... C> struct collect_inner_children;
template <int MinDim, class Acc> struct collect_inner_children<MinDim, Acc> {
  using type = Acc;
};
template <int MinDim, class Acc, class C, class... Rest> struct collect_inner_children<MinDim, Acc, C, Rest...> {
  using type = typename collect_inner_children<MinDim, typename collect_inner<C, MinDim, Acc>::type, Rest...>::type;
};
template <class F, int MinDim, class Acc> struct collect_inner {
  template <class... C> static auto below(type_list<C...>) -> typename collect_inner_children<MinDim, Acc, C...>::type;
  static auto pick() {
    if constexpr (inner_of<F>::ok) {
      if constexpr (inner_of<F>::term::product::dim >= MinDim) return std::type_identity<typename list_add<Acc, F>::type>{};
      else return std::type_identity<Acc>{};
    } else {
      return std::type_identity<decltype(below(typename F::children{}))>{};
    }
  }
  using type = typename decltype(pick())::type;
};

// The largest dimension of the variables F reads (0: none).
template <class F> struct widest_variable {
  static constexpr int value = []<class... Ch>(type_list<Ch...>) {
    int m = 0;
    ((m = widest_variable<Ch>::value > m ? widest_variable<Ch>::value : m), ...);
    return m;
  }(typename F::children{});
};
template <category C, int I, int D> struct widest_variable<Var<C, I, D>> {
  static constexpr int value = C == category::param ? 0 : D;  // a wide parameter is read once, not per pair
};

// Acc with each of T... appended unless already there.
template <class Acc, class... T> struct add_distinct {
  using type = Acc;
};
template <class Acc, class T, class... R> struct add_distinct<Acc, T, R...> {
  using type = typename add_distinct<typename list_add<Acc, T>::type, R...>::type;
};
template <class Terms> struct products_of;
template <class... T> struct products_of<type_list<T...>> {
  using type = typename add_distinct<type_list<>, typename T::product...>::type;
};
template <class Sums> struct terms_of;
template <class... S> struct terms_of<type_list<S...>> {
  using type = type_list<typename inner_of<S>::term...>;
};

/// The inner products of F that the tensor cores can compute (above).
template <class F, int MinDim = tc_min_dim>
struct inner_product_plan {
  using sums = typename collect_inner<F, MinDim, type_list<>>::type;
  static constexpr bool ok = sums::size > 0;
  using terms = typename terms_of<sums>::type;
  using products = typename products_of<terms>::type;
  static constexpr int slot0 = max_slot<F>::value + 1;
  using outer = typename replace_sums<F, sums, slot0>::type;
  static constexpr bool wide_rest = widest_variable<outer>::value >= MinDim;
};

} // namespace kops::detail
