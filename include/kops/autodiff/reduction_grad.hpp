#pragma once

#include <cstdint>

#include <kops/autodiff/grad.hpp>
#include <kops/reductions/reduction.hpp>
#include <kops/ops/concat.hpp>
#include <kops/ops/extract.hpp>
#include <kops/ops/exp.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/detail/payload.hpp>
#include <kops/reductions/logsumexp.hpp>
#include <kops/reductions/sum.hpp>
#include <kops/reductions/sumsoftmaxweight.hpp>

namespace kops {

namespace detail {
template <class Op> inline constexpr bool is_index_reduction_v =
    std::is_same_v<typename Op::template out_t<float>, std::int64_t>;
template <class Op> inline constexpr bool is_value_extremum_v = requires { requires Op::extremum_writes_values; };

template <class A> constexpr auto concat_all(A a) { return a; }
template <class A, class B, class... R> constexpr auto concat_all(A a, B b, R... r) {
  return concat(a, concat_all(b, r...));
}
// concat(f, p_0, ..., p_{D-1}), p_k = [d_v f_k]^T e_k: the payload formula of
// the gradient of a min or max.
template <class F, class V, class E, int... K>
constexpr auto payload_formula(std::integer_sequence<int, K...>) {
  return concat_all(F{}, grad(elem<K>(F{}), V{}, elem<K>(E{}))...);
}

// The gradient of a logsumexp / sumsoftmaxweight reduction w.r.t. a row variable
// or parameter V, as another shifted-exponential-sum reduction (see the
// identities in reductions/logsumexp.hpp and sumsoftmaxweight.hpp).
template <class Op, class F, class A, int Arity, class V, class E>
constexpr auto expsum_grad() {
  if constexpr (std::is_same_v<Op, logsumexp_op>) {
    using H = decltype(grad(F{}, V{}, E{}));
    if constexpr (is_zero_v<H>) return Reduction<sum_op, Zero<V::dim>, A, Arity>{};
    else return Reduction<sumsoftmaxweight_op, Concat<F, H>, A, Arity>{};
  } else {
    using F1 = operand_t<F, 0>;  // the exponent f
    using G = operand_t<F, 1>;   // the weight g
    if constexpr (std::is_same_v<Op, logsumexp_weight_op>) {
      constexpr auto n = [](auto k) {
        constexpr int c = decltype(k)::value;
        return grad(elem<c>(G{}), V{}, elem<c>(E{})) + grad(F1{}, V{}, elem<c>(E{}) * elem<c>(G{}));
      };
      using H = decltype([&]<int... K>(std::integer_sequence<int, K...>) {
        return concat_all(G{}, n(std::integral_constant<int, K>{})...);
      }(std::make_integer_sequence<int, G::dim>{}));
      return Reduction<logsumexp_grad_op<G::dim, V::dim>, Concat<F1, H>, A, Arity>{};
    } else {
      const auto ge = sum(G{} * E{});
      using H = decltype(concat_all(ge, grad(F1{}, V{}, ge) + grad(G{}, V{}, E{}), grad(F1{}, V{}, IntConst<1>{})));
      return Reduction<sumsoftmaxweight_grad_op<V::dim>, Concat<F1, H>, A, Arity>{};
    }
  }
}
template <class Op> inline constexpr bool is_expsum_v = requires { Op::weighted; };

// The exponent f and the weight g (1 when unweighted) of an expsum reduction's formula.
template <bool Weighted, class F> struct expsum_parts {
  using f = F;
  using g = IntConst<1>;
};
template <class F> struct expsum_parts<true, F> {
  using f = operand_t<F, 0>;
  using g = operand_t<F, 1>;
};

// The same gradients w.r.t. a variable V of the reduced axis, in two passes
// (Chained): the forward result O_r of every output row first, then a sum over
// the other axis. With p = exp(f - O) the softmax weights (O = log sum exp f):
//   logsumexp, weighted (g = 1 unweighted), w_k = e_k exp(f - O_k):
//     d(e . out)/dV = sum_r [d_V f]^T (w . g) + [d_V g]^T w
//   sumsoftmaxweight, O = (log sum exp f, out):
//     d(e . out)/dV = sum_r [d_V f]^T p (g . e - out . e) + [d_V g]^T (p e)
template <class Op, class F, class A, int Arity, class V, class E, category RowCat>
constexpr auto expsum_grad_reduced() {
  using GA = axis_tag<1 - A::value>;
  using F1 = typename expsum_parts<Op::weighted, F>::f;
  using G = typename expsum_parts<Op::weighted, F>::g;
  if constexpr (std::is_same_v<Op, sumsoftmaxweight_op>) {
    using First = Reduction<lse_softmax_op, F, A, Arity>;
    using O = Var<RowCat, Arity, First::dim>;
    const auto p = exp(F1{} - elem<0>(O{}));
    const auto o = extract<1, G::dim>(O{});
    using H = decltype(grad(F1{}, V{}, p * (sum(G{} * E{}) - sum(o * E{}))) + grad(G{}, V{}, p * E{}));
    if constexpr (is_zero_v<H>) return Reduction<sum_op, Zero<V::dim>, GA, Arity>{};
    else return Chained<First, Reduction<sum_op, H, GA, Arity + 1>>{};
  } else {
    using First = Reduction<Op, F, A, Arity>;
    using O = Var<RowCat, Arity, First::dim>;
    const auto w = E{} * exp(F1{} - O{});
    using H = decltype(grad(F1{}, V{}, sum(w * G{})) + grad(G{}, V{}, w));
    if constexpr (is_zero_v<H>) return Reduction<sum_op, Zero<V::dim>, GA, Arity>{};
    else return Chained<First, Reduction<sum_op, H, GA, Arity + 1>>{};
  }
}

} // namespace detail

/// grad(red, v, e): the gradient of a reduction, as a new reduction.
///
/// For red = sum_reduction(f, axis_j) (out_i = sum_j f(x_i, y_j)), a gradient
/// input e = vi<k, red.dim> (one row per output row) and a variable v:
/// ```text
///   v an i-variable:  (d out . e)/d v_i = sum_j [d_v f]^T e_i   -> sum over j, M rows of dim v
///   v a j-variable:   (d out . e)/d v_j = sum_i [d_v f]^T e_i   -> sum over i, N rows of dim v
///   v a parameter:    per-row contributions sum_j [d_v f]^T e_i -> M rows of dim v; the
///                     gradient is their sum over rows (kops::sum_rows)
/// ```
/// and symmetrically for axis_i. argmin and argmax are piecewise constant: their
/// gradient is the zero reduction (which does no work). The result takes the
/// same arguments as red, plus e at its index. min and max (which KeOps does not
/// differentiate) have the one-hot gradient: [d_v f]^T e at the arg of each
/// component, w.r.t. row variables and parameters (per-row contributions).
template <class Op, class F, class A, int Arity, class V, class E>
constexpr auto grad(Reduction<Op, F, A, Arity> red, V, E) {
  using R = decltype(red);
  static_assert(Variable<V>, "kops::grad: the second argument must be a variable (vi, vj or pm)");
  static_assert(Variable<E>, "kops::grad: the gradient input of a reduction must be a variable");
  if constexpr (Variable<V> && Variable<E>) {
    static_assert(E::cat == R::row_cat,
                  "kops::grad: the gradient input must be indexed like the output rows "
                  "(an i-variable for an axis_j reduction, a j-variable for axis_i)");
    static_assert(E::dim == R::dim, "kops::grad: the gradient input must have the dim of the reduction");
    static_assert(consistent_v<decltype(F{} + sum(E{}) + sum(V{}))>,
                  "kops::grad: the gradient input's index is already used by another variable");
    constexpr int arity = R::nargs > E::index + 1 ? R::nargs : E::index + 1;
    // A gradient w.r.t. a variable of the reduced axis has one row per value of
    // that axis: it is a reduction over the other axis.
    using GA = std::conditional_t<V::cat == R::red_cat, axis_tag<1 - A::value>, A>;
    if constexpr (detail::is_index_reduction_v<Op>) {
      return Reduction<sum_op, Zero<V::dim>, GA, arity>{};
    } else if constexpr (detail::is_value_extremum_v<Op>) {
      // One-hot at the arg: [d_v f]^T e taken at the j where each component is best.
      static_assert(V::cat != R::red_cat,
                    "kops::grad: the gradient of min/max w.r.t. a variable of the reduced axis is not "
                    "supported (it needs every row's arg first); use argmin/argmax, then a sum");
      using P = decltype(detail::payload_formula<F, V, E>(std::make_integer_sequence<int, F::dim>{}));
      return Reduction<detail::extremum_payload_op<Op::extremum_is_max, F::dim>, P, A, arity>{};
    } else if constexpr (detail::is_expsum_v<Op>) {
      if constexpr (V::cat == R::red_cat) return detail::expsum_grad_reduced<Op, F, A, arity, V, E, R::row_cat>();
      else return detail::expsum_grad<Op, F, A, arity, V, E>();
    } else {
      static_assert(std::is_same_v<Op, sum_op>,
                    "kops::grad: this reduction has no gradient (sum, min, max, argmin, argmax, "
                    "argkmin, logsumexp and sumsoftmaxweight do)");
      return Reduction<sum_op, decltype(grad(F{}, V{}, E{})), GA, arity>{};
    }
  }
}

/// out[k] = sum over rows r of contrib[r * dim + k]: the gradient with respect to a
/// parameter from the per-row contributions that grad(red, pm<...>, e) returns.
template <class T>
void sum_rows(const T* contrib, std::int64_t rows, int dim, T* out) {
  for (int k = 0; k < dim; ++k) out[k] = T(0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (int k = 0; k < dim; ++k) out[k] += contrib[r * dim + k];
}

} // namespace kops
