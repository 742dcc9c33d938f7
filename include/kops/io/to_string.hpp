#pragma once

#include <string>

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/named_constant.hpp>
#include <kops/core/variable.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops {

struct minus_op;

namespace detail {

template <class F> inline constexpr bool is_infix_node_v = requires { F::op::infix; };
template <class F> inline constexpr bool is_factorized_v = false;
template <class F, class G, int K> inline constexpr bool is_factorized_v<Factorized<F, G, K>> = true;
template <class F> inline constexpr bool is_named_constant_v = false;
template <class Tag> inline constexpr bool is_named_constant_v<NamedConst<Tag>> = true;

template <bool KeOps, class F> std::string print(F);

// Where a node's printed names live: its op tag (element-wise nodes) or the node itself.
template <class F> struct names_of { using type = F; };
template <class F> requires requires { typename F::op; } struct names_of<F> { using type = typename F::op; };

// Integer template parameters to print: the node's, else its op's, else none.
template <class F, class Op>
auto params_of() {
  if constexpr (requires { typename F::print_params; }) return typename F::print_params{};
  else if constexpr (requires { typename Op::print_params; }) return typename Op::print_params{};
  else return int_params<>{};
}

// Handed to a node's own print hook (see print_call).
template <bool KeOps>
struct printer {
  static constexpr bool keops = KeOps;
  template <class C> std::string operator()(C c) const { return print<KeOps>(c); }
  std::string num(long long n) const { return std::to_string(n); }
};

template <bool KeOps, class... C>
std::string join_children(type_list<C...>) {
  std::string s;
  ((s += (s.empty() ? "" : ",") + print<KeOps>(C{})), ...);
  return s;
}
template <int... P>
std::string join_params(int_params<P...>) {
  std::string s;
  ((s += (s.empty() ? "" : ",") + std::to_string(P)), ...);
  return s;
}

// The generic spelling of a node: kops  name<p...>(c...),  KeOps  KeopsName(c...,p...),
// names from the node's op tag (or the node), p... its print_params.
// A node (or op) whose spelling differs declares
//   template <class S, class P> static S print(P p);
// returning the whole text: p(child) prints a child, p.num(n) a number, p.keops
// says which syntax; S is std::string, so op headers need not include <string>.
template <bool KeOps, class F>
std::string print_call(F) {
  using Names = typename names_of<F>::type;
  if constexpr (requires { Names::template print<std::string>(printer<KeOps>{}); }) {
    return Names::template print<std::string>(printer<KeOps>{});
  } else {
    const std::string children = join_children<KeOps>(typename F::children{});
    const std::string params = join_params(params_of<F, Names>());
    if constexpr (KeOps)
      return std::string(Names::keops_name) + "(" + children + (params.empty() ? "" : "," + params) + ")";
    else
      return std::string(Names::name) + (params.empty() ? "" : "<" + params + ">") + "(" + children + ")";
  }
}

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
  } else if constexpr (is_named_constant_v<F>) {
    return KeOps ? F::tag::keops_name : F::tag::name;
  } else if constexpr (is_factorized_v<F>) {
    // A factorized formula prints as its expansion: the same math, in a form KeOps parses.
    return print<KeOps>(typename F::expanded{});
  } else if constexpr (is_infix_node_v<F>) {
    using Op = typename F::op;
    return "(" + print<KeOps>(operand_t<F, 0>{}) + (KeOps ? Op::keops_name : Op::name) +
           print<KeOps>(operand_t<F, 1>{}) + ")";
  } else if constexpr (!KeOps && is_op_v<F, minus_op>) {
    return "-" + print<KeOps>(operand_t<F, 0>{});
  } else {
    return print_call<KeOps>(F{});
  }
}

} // namespace detail

/// Formulas and reductions print themselves:
/// ```text
///   to_string(f)        kops spelling:  exp(-pm<3,1>*sum(square(vi<0,3>-vj<1,3>)))*vj<2,1>
///   to_keops_string(f)  KeOps syntax, which pykeops' Genred parses:
///                       Exp(Minus(Var(3,1,2))*Sum(Square(Var(0,3,0)-Var(1,3,1))))*Var(2,1,1)
/// ```
/// A reduction prints as name(formula, axis); keops_reduction_op(red) and
/// keops_axis(red) give the reduction_op and axis arguments of pykeops' Genred.
template <Formula F>
std::string to_string(F f) {
  return detail::print<false>(f);
}
/// The formula in KeOps syntax, which pykeops' Genred parses: see to_string().
template <Formula F>
std::string to_keops_string(F f) {
  return detail::print<true>(f);
}

namespace detail {
// Weighted reductions (logsumexp with a weight, sumsoftmaxweight) reduce
// concat(f, g) and print as (f, g, axis).
template <class R> inline constexpr bool is_weighted_v = requires { requires R::op::weighted; };
template <bool KeOps, class R>
std::string reduction_formula(R) {
  using F = typename R::formula;
  if constexpr (is_weighted_v<R>) return print<KeOps>(operand_t<F, 0>{}) + (KeOps ? "" : ", ");
  else return print<KeOps>(F{});
}
template <class R>
constexpr int reduction_k() {
  if constexpr (requires { R::op::k; }) return R::op::k;
  else return 0;
}
} // namespace detail

/// A reduction prints as `name(f, axis)`, `name<K>(f, axis)` or `name(f, g, axis)`.
template <ReductionType R>
std::string to_string(R r) {
  constexpr int k = detail::reduction_k<R>();
  std::string s = std::string(R::op::name) + (k ? "<" + std::to_string(k) + ">" : "") + "(" +
                  detail::reduction_formula<false>(r);
  if constexpr (detail::is_weighted_v<R>) s += to_string(operand_t<typename R::formula, 1>{});
  return s + (R::axis::value == 1 ? ", axis_j)" : ", axis_i)");
}
/// KeOps' own reduction syntax: Sum_Reduction(f,0) reduces over j (output indexed by i);
/// KMin_Reduction(f,K,0); a weighted reduction appends its weight: LogSumExp_Reduction(f,0,g).
template <ReductionType R>
std::string to_keops_string(R r) {
  constexpr int k = detail::reduction_k<R>();
  std::string s = std::string(R::op::keops_name) + "_Reduction(" + detail::reduction_formula<true>(r) +
                  (k ? "," + std::to_string(k) : "") + (R::axis::value == 1 ? ",0" : ",1");
  if constexpr (detail::is_weighted_v<R>) s += "," + to_keops_string(operand_t<typename R::formula, 1>{});
  return s + ")";
}
/// formula of pykeops' Genred: the reduced formula in KeOps syntax.
///
/// The arguments of pykeops' Genred: formula, formula2 (the weight of a weighted
/// reduction, "" otherwise), reduction_op (e.g. "Sum", "ArgMin", "KMin"), opt_arg
/// (K of the k-min family, 0 otherwise) and axis
/// (1: reduce over j, output indexed by i; 0: reduce over i).
template <ReductionType R>
std::string keops_reduced_formula(R r) {
  return detail::reduction_formula<true>(r);
}
/// formula2 of pykeops' Genred: the weight of a weighted reduction, "" otherwise. See keops_reduced_formula().
template <ReductionType R>
std::string keops_formula2(R) {
  if constexpr (detail::is_weighted_v<R>) return to_keops_string(operand_t<typename R::formula, 1>{});
  else return "";
}
/// opt_arg of pykeops' Genred: K of the k-min family, 0 otherwise. See keops_reduced_formula().
template <ReductionType R>
constexpr int keops_opt_arg(R) {
  return detail::reduction_k<R>();
}
/// reduction_op of pykeops' Genred, e.g. "Sum", "ArgMin", "KMin". See keops_reduced_formula().
template <ReductionType R>
std::string keops_reduction_op(R) {
  return R::op::keops_name;
}
/// axis of pykeops' Genred: 1 reduces over j (output indexed by i), 0 over i. See keops_reduced_formula().
template <ReductionType R>
constexpr int keops_axis(R) {
  return R::axis::value;
}

} // namespace kops
