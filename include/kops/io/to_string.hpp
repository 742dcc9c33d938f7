// Formulas and reductions print themselves:
//   to_string(f)        kops spelling:  exp(-pm<3,1>*sum(square(vi<0,3>-vj<1,3>)))*vj<2,1>
//   to_keops_string(f)  KeOps syntax, which pykeops' Genred parses:
//                       Exp(Minus(Var(3,1,2))*Sum(Square(Var(0,3,0)-Var(1,3,1))))*Var(2,1,1)
// A reduction prints as name(formula, axis); keops_reduction_op(red) and
// keops_axis(red) give the reduction_op and axis arguments of pykeops' Genred.
#pragma once

#include <string>

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/named_constant.hpp>
#include <kops/core/variable.hpp>
#include <kops/ops/concat.hpp>
#include <kops/ops/extract.hpp>
#include <kops/ops/pow.hpp>
#include <kops/ops/sum.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops {

namespace detail {

template <class Op> inline constexpr bool is_infix_v = requires { Op::infix; };
template <class Op> inline constexpr int pow_exponent_v = 0;
template <int N> inline constexpr int pow_exponent_v<pow_op<N>> = N;
template <class Op> inline constexpr bool is_pow_v = false;
template <int N> inline constexpr bool is_pow_v<pow_op<N>> = true;

template <bool KeOps, class F> std::string print_node(Sum<F>);
template <bool KeOps, class F, class G, int K> std::string print_node(Factorized<F, G, K>);
template <bool KeOps, int S, int D, class F> std::string print_node(Extract<S, D, F>);
template <bool KeOps, int S, int N, class F> std::string print_node(ExtractT<S, N, F>);
template <bool KeOps, class A, class B> std::string print_node(Concat<A, B>);
template <bool KeOps, class Tag> std::string print_node(NamedConst<Tag>);
template <bool KeOps, int D, class F> std::string print_node(SumT<D, F>);

template <bool KeOps, class F>
std::string print(F) {
  using std::to_string;
  if constexpr (is_variable_v<F>) {
    if constexpr (KeOps)
      return "Var(" + to_string(F::index) + "," + to_string(F::dim) + "," + to_string(int(F::cat)) + ")";
    else
      return std::string(F::cat == category::i ? "vi" : F::cat == category::j ? "vj" : "pm") + "<" +
             to_string(F::index) + "," + to_string(F::dim) + ">";
  } else if constexpr (is_zero_v<F> && !is_constant_v<F>) {
    return KeOps ? "Zero(" + to_string(F::dim) + ")" : "zero<" + to_string(F::dim) + ">";
  } else if constexpr (is_constant_v<F>) {
    if constexpr (KeOps) {
      const std::string p = "IntCst(" + to_string(F::num) + ")";
      return F::den == 1 ? p : "(" + p + "*IntInv(" + to_string(F::den) + "))";
    } else {
      return F::den == 1 ? to_string(F::num) : "(" + to_string(F::num) + "/" + to_string(F::den) + ")";
    }
  } else if constexpr (requires { typename F::op; } && F::children::size == 2) {
    using Op = typename F::op;
    const std::string a = print<KeOps>(typename F::children::template at<0>{});
    const std::string b = print<KeOps>(typename F::children::template at<1>{});
    return "(" + a + (KeOps ? Op::keops_name : Op::name) + b + ")";
  } else if constexpr (requires { typename F::op; } && F::children::size == 1) {
    using Op = typename F::op;
    const std::string a = print<KeOps>(typename F::children::template at<0>{});
    if constexpr (is_pow_v<Op>)
      return (KeOps ? "Pow(" : "pow<" + to_string(pow_exponent_v<Op>) + ">(") + a +
             (KeOps ? "," + to_string(pow_exponent_v<Op>) + ")" : ")");
    else if constexpr (!KeOps && std::is_same_v<Op, minus_op>)
      return "-" + a;
    else
      return std::string(KeOps ? Op::keops_name : Op::name) + "(" + a + ")";
  } else {
    return print_node<KeOps>(F{});
  }
}

template <bool KeOps, class F>
std::string print_node(Sum<F>) {
  return (KeOps ? "Sum(" : "sum(") + print<KeOps>(F{}) + ")";
}
template <bool KeOps, int D, class F>
std::string print_node(SumT<D, F>) {
  return KeOps ? "SumT(" + print<KeOps>(F{}) + "," + std::to_string(D) + ")"
               : "sum_t<" + std::to_string(D) + ">(" + print<KeOps>(F{}) + ")";
}

// A factorized formula prints as its expansion: the same math, in a form KeOps parses.
template <bool KeOps, class F, class G, int K>
std::string print_node(Factorized<F, G, K>) {
  return print<KeOps>(typename Factorized<F, G, K>::expanded{});
}

template <bool KeOps, int S, int D, class F>
std::string print_node(Extract<S, D, F>) {
  using std::to_string;
  return KeOps ? "Extract(" + print<KeOps>(F{}) + "," + to_string(S) + "," + to_string(D) + ")"
               : "extract<" + to_string(S) + "," + to_string(D) + ">(" + print<KeOps>(F{}) + ")";
}
template <bool KeOps, int S, int N, class F>
std::string print_node(ExtractT<S, N, F>) {
  using std::to_string;
  return KeOps ? "ExtractT(" + print<KeOps>(F{}) + "," + to_string(S) + "," + to_string(N) + ")"
               : "extract_t<" + to_string(S) + "," + to_string(N) + ">(" + print<KeOps>(F{}) + ")";
}
template <bool KeOps, class A, class B>
std::string print_node(Concat<A, B>) {
  return (KeOps ? "Concat(" : "concat(") + print<KeOps>(A{}) + "," + print<KeOps>(B{}) + ")";
}

template <bool KeOps, class Tag>
std::string print_node(NamedConst<Tag>) {
  return KeOps ? Tag::keops_name : Tag::name;
}

} // namespace detail

template <Formula F>
std::string to_string(F f) {
  return detail::print<false>(f);
}
template <Formula F>
std::string to_keops_string(F f) {
  return detail::print<true>(f);
}

template <ReductionType R>
std::string to_string(R) {
  return std::string(R::op::name) + "(" + to_string(typename R::formula{}) +
         (R::axis::value == 1 ? ", axis_j)" : ", axis_i)");
}
// KeOps' own reduction syntax: Sum_Reduction(f, 0) reduces over j (output indexed by i).
template <ReductionType R>
std::string to_keops_string(R) {
  return std::string(R::op::keops_name) + "_Reduction(" + to_keops_string(typename R::formula{}) +
         (R::axis::value == 1 ? ",0)" : ",1)");
}
// The arguments of pykeops' Genred: reduction_op (e.g. "Sum", "ArgMin") and axis
// (1: reduce over j, output indexed by i; 0: reduce over i).
template <ReductionType R>
std::string keops_reduction_op(R) {
  return R::op::keops_name;
}
template <ReductionType R>
constexpr int keops_axis(R) {
  return R::axis::value;
}

} // namespace kops
