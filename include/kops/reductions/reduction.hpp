#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include <kops/core/concepts.hpp>
#include <kops/core/constant.hpp>
#include <kops/core/variables.hpp>

namespace kops {

template <int A>
struct axis_tag {
  static constexpr int value = A;
};
/// Reduce over i (output indexed by j, N rows); axis_j reduces over j (output indexed by i).
inline constexpr axis_tag<0> axis_i{};
/// Reduce over j (output indexed by i, M rows): see axis_i.
inline constexpr axis_tag<1> axis_j{};

/// An axis: the type of axis_i or axis_j.
template <class A>
concept Axis = std::same_as<A, axis_tag<0>> || std::same_as<A, axis_tag<1>>;

struct reduction_node {};

namespace detail {
template <class Sig, int N> struct pad_signature;
template <class... S, int N>
struct pad_signature<type_list<S...>, N> {
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> type_list<S..., Unused<int(sizeof...(S)) + I>...>;
  using type = decltype(make(std::make_integer_sequence<int, (N > int(sizeof...(S)) ? N - int(sizeof...(S)) : 0)>{}));
};
} // namespace detail

/// Reduction<Op, F, Axis>: a formula F reduced over one axis with a reduction op.
///
/// axis_j reduces over j: out_i = red_j F(x_i, y_j), one output row per i (M rows);
/// axis_i reduces over i: out_j = red_i F(x_i, y_j), one output row per j (N rows).
///
/// A reduction op is a struct with
/// ```text
///   name, keops_name                          printing
///   template <int D> out_dim                  components written per output row
///   template <class T> out_t                  output element: T, or std::int64_t for indices
///   template <class V, class IV, int D> acc   accumulator (V values, IV indices)
///   init<Math, V, D>(j0)                      empty accumulator; j0 = first index of the
///                                             range (-1 if the range is empty)
///   accumulate<Math>(acc&, vec<V,D> x, IV j)  fold one term in (j increasing)
///   combine<Math>(acc& a, const acc& b)       merge b, whose range follows a's
///   finalize<Math>(const acc&, lane, out_t* row)  write one output row
/// ```
/// and is written once for every backend: Math (the math provider, a
/// MathProvider) abstracts scalars vs SIMD packs. (The ReductionOp concept below
/// states it; gradient rules: gradient_request.)
///
/// Arity: the number of arguments eval takes, when larger than what F reads
/// (a gradient keeps the arguments of the formula it came from, even those that
/// simplification removed).
///
/// ReducedAxisGradient: a gradient (kops::grad) taken, at some step of its
/// derivation, with respect to a variable of the reduced axis: its rows belong
/// to the axis that the reduction it came from reduced over, so an untagged
/// block_sparsity (sparsity_axis::output) could mean its own rows or those of
/// the forward call; eval refuses one rather than guess (detail/dispatch.hpp,
/// check_sparsity_for).
template <class Op, Formula F, Axis A, int Arity = 0, bool ReducedAxisGradient = false>
struct Reduction : reduction_node {
  using op = Op;
  using formula = F;
  using axis = A;
  // Category of the output rows and of the reduced index.
  static constexpr category row_cat = A::value == 1 ? category::i : category::j;
  static constexpr category red_cat = A::value == 1 ? category::j : category::i;
  static constexpr int formula_dim = F::dim;
  static constexpr int dim = Op::template out_dim<F::dim>;
  using signature = typename detail::pad_signature<signature_t<F>, Arity>::type;
  static constexpr int nargs = signature::size;
  // A sum of the zero formula is zero whatever the sizes: backends skip the loop.
  static constexpr bool no_work = is_zero_v<F> && requires { Op::zero_of_zero; };
  static constexpr bool reduced_axis_gradient = ReducedAxisGradient;
};

/// Whether R (a reduction, a Chained pair or a pass of one) is a gradient with
/// respect to a variable of a reduced axis: see Reduction's ReducedAxisGradient.
template <class R>
inline constexpr bool reduced_axis_gradient_v = [] {
  if constexpr (requires { R::reduced_axis_gradient; }) return bool(R::reduced_axis_gradient);
  else return false;
}();

/// The output row stride of a reduction (or pass): its dim, or, for a pass
/// that writes a slice of wider rows (output chunking, detail/dispatch.hpp),
/// the width of those rows.
template <class R>
inline constexpr int out_stride_v = [] {
  if constexpr (requires { R::out_stride; }) return int(R::out_stride);
  else return int(R::dim);
}();

/// R writing rows Stride apart (its dim components of each).
template <class R, int Stride>
struct strided_output : R {
  static constexpr int out_stride = Stride;
};

namespace detail {
/// What a `*_reduction` builder returns after a broken rule (reported by its
/// static_assert): a complete type, so that the declaration holding it adds
/// no error of its own, and that eval and solve take without another message.
struct invalid_reduction {};
} // namespace detail

/// A reduction: what the `*_reduction` builders and kops::grad of a reduction return, and what eval takes.
template <class R>
concept ReductionType = std::derived_from<R, reduction_node> && requires {
  typename R::op;
  typename R::formula;
  { R::dim } -> std::convertible_to<int>;
};

struct tied_sum_node;  // reductions/tied.hpp

/// What eval takes first: a reduction, or a sum of two over one cloud on both
/// axes (a kops::TiedSum, what the gradient w.r.t. kops::tied returns).
template <class F>
concept Evaluable = ReductionType<F> || std::derived_from<F, tied_sum_node>;

/// What a reduction op's gradient rule receives. An op that can be
/// differentiated declares
/// ```text
///   template <class Rq> static constexpr auto gradient(Rq)
/// ```
/// returning the reduction (or Chained pair of reductions) that computes
/// [d out / d var]^T input, as formula nodes declare vjp; kops::grad
/// (autodiff/reduction_grad.hpp) checks the call and dispatches to it.
template <class F, class A, int Arity, class V, class E>
struct gradient_request {
  using formula = F;
  using axis = A;
  using var = V;    // the variable differentiated against
  using input = E;  // the gradient input: one row per output row, dim of the output
  static constexpr int arity = Arity;  // the arguments of the gradient reduction (input included)
  static constexpr category row_cat = A::value == 1 ? category::i : category::j;
  static constexpr category red_cat = A::value == 1 ? category::j : category::i;
  // V is indexed by the reduced axis: the gradient has one row per value of
  // that axis, so it reduces over the other one (grad_axis).
  static constexpr bool reduced = V::cat == red_cat;
  using grad_axis = std::conditional_t<reduced, axis_tag<1 - A::value>, A>;
};

/// What a reduction op's forward-mode rule receives (kops::diff on a reduction,
/// autodiff/reduction_diff.hpp). An op that has one declares
/// ```text
///   template <class Rq> static constexpr auto forward(Rq)
/// ```
/// returning the reduction whose output row r is [d out_r / d var] dir: the
/// derivative of the output along the direction dir (a formula of var's dim).
/// Unlike a gradient, it keeps the reduction's axis and output rows.
template <class F, class A, int Arity, int Dim, class V, class U>
struct forward_request {
  using formula = F;
  using axis = A;
  using var = V;        // the variable differentiated against
  using direction = U;  // the direction: a formula of var's dim
  static constexpr int arity = Arity;  // the arguments of the derivative (the direction's included)
  static constexpr int dim = Dim;      // the reduction's output dim (and the derivative's)
};

/// The accumulator of a reduction op over a formula of dim D, in context Ctx:
/// what its init returns (an op's `acc` template, or, for the summation
/// schemes of reductions/detail/scheme_sum.hpp, their own).
template <class Op, class Ctx, int D>
using reduction_acc_t = decltype(Op::template init<math_t<Ctx>, value_t<Ctx>, D>(std::int64_t{0}));

/// A reduction op (the table above), usable in the evaluation context Ctx over
/// a formula of dim D: init, accumulate, combine and finalize with Ctx's value,
/// index and math types.
template <class Op, class Ctx, int D>
concept ReductionOp =
    EvaluationContext<Ctx> &&
    requires(reduction_acc_t<Op, Ctx, D>& a, const reduction_acc_t<Op, Ctx, D>& b, const vec<value_t<Ctx>, D>& x,
             const typename math_t<Ctx>::template index_t<value_t<Ctx>>& j,
             typename Op::template out_t<typename Ctx::scalar_type>* row) {
      { Op::name } -> std::convertible_to<const char*>;
      { Op::keops_name } -> std::convertible_to<const char*>;
      { Op::template out_dim<D> } -> std::convertible_to<int>;
      Op::template accumulate<math_t<Ctx>>(a, x, j);
      Op::template combine<math_t<Ctx>>(a, b);
      Op::template finalize<math_t<Ctx>>(b, 0, row);
    };

// What every reduction builder checks about its formula.
template <Formula F>
inline constexpr bool valid_reduction_formula_v = consistent_v<F>;

} // namespace kops
