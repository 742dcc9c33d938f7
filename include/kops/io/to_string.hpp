#pragma once

#include <string>
#include <vector>

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/named_constant.hpp>
#include <kops/core/variable.hpp>
#include <kops/reductions/chained.hpp>
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

/// One call of pykeops' Genred: Genred(formula, [], reduction_op, axis, formula2=...,
/// opt_arg=...) (formula2 and opt_arg only when not empty / not 0). dim: the dim of
/// formula (of formula2 for SumSoftMaxWeight), out_dim: the dim of the output rows.
struct keops_call {
  std::string formula;
  std::string formula2 = "";
  std::string reduction_op = "Sum";
  int opt_arg = 0;
  int axis = 1;
  int dim = 1;
  int out_dim = 1;
};

namespace detail {
// Builds the Genred calls of a reduction (see keops_calls below): calls k and up
// are appended; the output of call k is the variable Var(base + k, out_dim, row
// category), which later calls read.
struct keops_call_builder {
  std::vector<keops_call>* calls;
  int base;  // the reduction's number of arguments: call k's output is argument base + k
  int axis;  // pykeops' axis of every call
  static constexpr bool keops = true;
  template <class C> std::string operator()(C c) const { return print<true>(c); }
  std::string num(long long n) const { return std::to_string(n); }
  // Appends a call (reducing over the reduction's axis); returns the variable of its output.
  std::string call(std::string f, std::string f2, std::string op, int dim, int out_dim) const {
    const int index = base + int(calls->size());
    calls->push_back(keops_call{std::move(f), std::move(f2), std::move(op), 0, axis, dim, out_dim});
    return "Var(" + num(index) + "," + num(out_dim) + "," + (axis == 1 ? "0" : "1") + ")";
  }
};

// Appends the calls of reduction R (with base = the first free argument index);
// returns the KeOps expression of R's output in terms of their outputs. An op
// that KeOps has not as one reduction states its calls:
//   template <class F, class B> static auto keops_calls(B b);  (F: the formula; returns the output expression)
template <class R>
std::string append_keops_calls(const keops_call_builder& b) {
  using Op = typename R::op;
  using F = typename R::formula;
  if constexpr (requires { Op::template keops_calls<F>(b); }) {
    return Op::template keops_calls<F>(b);
  } else {
    std::string f2 = "";
    if constexpr (is_weighted_v<R>) f2 = print<true>(operand_t<F, 1>{});
    const std::string op = Op::keops_name;
    std::string out = b.call(reduction_formula<true>(R{}), f2, op, op == "SumSoftMaxWeight" ? R::dim : R::formula_dim,
                             R::dim);
    if constexpr (is_weighted_v<R>) b.calls->back().dim = op == "SumSoftMaxWeight" ? R::dim : 1;
    b.calls->back().opt_arg = reduction_k<R>();
    return out;
  }
}

inline void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
}

// Whether the KeOps text reads Var(index, ...).
inline bool reads_var(const std::string& s, int index) {
  return s.find("Var(" + std::to_string(index) + ",") != std::string::npos;
}

// Call k reads the reduction's arguments 0 .. nargs-1 and the outputs of calls
// 0 .. k-1 (arguments nargs ..): pykeops wants each of them in the formula, so
// that the call takes them all, in order. Those that it does not read (a
// variable simplified away, an output only a later call reads) are appended as
// Extract(Concat(f, Concat(v, ...)), 0, dim f). declared[k]: Var text of argument k, or "".
inline void declare_arguments(std::vector<keops_call>& calls, std::vector<std::string> declared, int nargs) {
  for (std::size_t k = 0; k < calls.size(); ++k) {
    keops_call& c = calls[k];
    std::string pad;
    for (int a = 0; a < nargs + int(k); ++a)
      if (!declared[std::size_t(a)].empty() && !reads_var(c.formula, a) && !reads_var(c.formula2, a))
        pad = pad.empty() ? declared[std::size_t(a)] : "Concat(" + pad + "," + declared[std::size_t(a)] + ")";
    const int fdim = c.reduction_op == "SumSoftMaxWeight" || !c.formula2.empty() ? 1 : c.dim;
    if (!pad.empty()) c.formula = "Extract(Concat(" + c.formula + "," + pad + "),0," + std::to_string(fdim) + ")";
    declared.push_back("Var(" + std::to_string(nargs + int(k)) + "," + std::to_string(c.out_dim) + "," +
                       (c.axis == 1 ? "0" : "1") + ")");
  }
}

// The Var text of each argument slot that is a variable (Unused slots: none),
// from the reduction's signature, then from the given Vars for the rest.
template <class... S>
void declare_slots(std::vector<std::string>& d, type_list<S...>) {
  [[maybe_unused]] const auto one = [&]<class V>(V) {
    if constexpr (is_variable_v<V>)
      if (V::index < int(d.size()) && d[std::size_t(V::index)].empty()) d[std::size_t(V::index)] = print<true>(V{});
  };
  (one(S{}), ...);
}
} // namespace detail

/// The pykeops Genred calls that compute reduction r: one for the reductions
/// KeOps has; several for what it has not as one reduction:
/// ```text
///   a kops::Chained gradient (logsumexp, sumsoftmaxweight w.r.t. the reduced axis):
///       its first pass's calls, then its second;
///   the gradient of a weighted logsumexp w.r.t. a row variable or parameter
///       (out = sum_c (sum exp(f) n_c) / (sum exp(f) g_c)):
///       L = LogSumExp(f, weight g), then Sum(sum_c Exp(f - Elem(L, c)) * n_c)
///       (as the forward log-sum-exp, defined where sum exp(f) g_c > 0);
///   that of sumsoftmaxweight (out = <a> - <g . e> <c>, <u> = sum exp(f) u / sum exp(f)):
///       L = LogSumExp(f), P = Sum(Exp(f - L) * (g . e)), then Sum(Exp(f - L) * (a - P * c)).
/// ```
/// Call k takes the reduction's arguments (0 .. nargs-1) and the outputs of calls
/// 0 .. k-1 (arguments nargs + 0, ...: output rows, as floats), in this order; its
/// formula declares each of them (Extract(Concat(f, unread...), 0, dim f)), which
/// pykeops needs to take them. The output of the last call is r's. Arguments that
/// simplification removed (kops::Unused slots: d(v0 + v1)/d v0 reads neither v0
/// nor v1) are declared only when their variables are given: Vars, e.g. the
/// signature of the reduction r is the gradient of, signature_t<F>.
template <ReductionType R, class Vars = type_list<>>
std::vector<keops_call> keops_calls(R, Vars = {}) {
  std::vector<keops_call> calls;
  if constexpr (is_chained_v<R>) {
    using First = typename R::first;
    const std::string first =
        detail::append_keops_calls<First>(detail::keops_call_builder{&calls, R::nargs, First::axis::value});
    std::vector<keops_call> second;
    const std::string out = detail::append_keops_calls<typename R::second>(
        detail::keops_call_builder{&second, R::nargs + 1, R::second::axis::value});
    if (second.size() != 1) return {};  // (not produced by kops: the second pass is a sum)
    // The second pass reads the first's output as its argument nargs: the last call's.
    detail::replace_all(second[0].formula,
                        "Var(" + std::to_string(R::nargs) + "," + std::to_string(First::dim) + "," +
                            (First::axis::value == 1 ? "0" : "1") + ")",
                        first);
    calls.push_back(second[0]);
  } else {
    detail::append_keops_calls<R>(detail::keops_call_builder{&calls, R::nargs, R::axis::value});
  }
  std::vector<std::string> declared(static_cast<std::size_t>(R::nargs));
  detail::declare_slots(declared, typename R::signature{});
  detail::declare_slots(declared, Vars{});
  detail::declare_arguments(calls, declared, R::nargs);
  return calls;
}

/// KeOps' own reduction syntax: Sum_Reduction(f,0) reduces over j (output indexed by i);
/// KMin_Reduction(f,K,0); a weighted reduction appends its weight: LogSumExp_Reduction(f,0,g).
/// A reduction that pykeops computes in several calls (keops_calls) prints them
/// in order, separated by "; ", call k reading the output of call k' < k as the
/// argument nargs + k' (e.g. the gradient of a log-sum-exp w.r.t. a variable of
/// the reduced axis: LogSumExp_Reduction(f,0); Sum_Reduction(...Var(nargs,1,0)...,1)).
template <ReductionType R>
std::string to_keops_string(R r) {
  std::string s;
  for (const keops_call& c : keops_calls(r)) {
    if (!s.empty()) s += "; ";
    s += c.reduction_op + "_Reduction(" + c.formula + (c.opt_arg ? "," + std::to_string(c.opt_arg) : "") +
         (c.axis == 1 ? ",0" : ",1") + (c.formula2.empty() ? "" : "," + c.formula2) + ")";
  }
  return s;
}
/// formula of pykeops' Genred: the reduced formula in KeOps syntax.
///
/// The arguments of pykeops' Genred: formula, formula2 (the weight of a weighted
/// reduction, "" otherwise), reduction_op (e.g. "Sum", "ArgMin", "KMin"), opt_arg
/// (K of the k-min family, 0 otherwise) and axis
/// (1: reduce over j, output indexed by i; 0: reduce over i).
/// (A reduction that pykeops computes in several calls: keops_calls.)
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
