// Formulas from KeOps' own syntax, parsed at compile time:
//   kops::keops_formula<"Exp(-G*SqDist(X,Y))*B", "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)">
//   kops::keops_reduction<"Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0)", "G=Pm(1)", ...>
// are constexpr values of exactly the type the C++ builders give: each node of the
// string calls the same public builder (kops::exp, operator*, kops::sqdist, ...), so the
// simplifications and the kernels are the builders'.
//
// Three stages, all at compile time:
//   1. parse(): a tokenizer and a recursive-descent parser over the string give a flat
//      tree (an array of nodes: kind, op, children indices, integer arguments, column);
//      aliases are resolved while parsing. The first error stops it, with a message.
//   2. build<P, K>(): node K's type, by recursion on the index, calling the builder of
//      the node's op (op_table) on its children's types, in decltype only.
//   3. keops_formula / keops_reduction: a failed parse is a static_assert whose note
//      prints the message (column, token, a suggestion), and nothing else fails after it.
//
// The grammar is that of keopscore 2.3, which parses by Python's eval with the op
// classes as names (keopscore/formulas/GetReduction.py, Operation.py):
//   Python's precedence: ** (right, above unary minus), unary -, * /, + -, |, comparisons.
//   f|g is Scalprod; f**2 Square, f**n Pow(f,n) for an integer literal n.
//   An integer literal is a Python int: n*f is IntCst(n)*f, -3 the int -3, 2*3 the int 6,
//   and 1/f is Inv(f) (Operation.__rtruediv__).
// Where keopscore 2.3 fails, kops says why (a float literal: int2Op rejects it; ^ is
// Python's xor, no op; == and != compare formulas; +f has no __pos__) or, in one place,
// reads the evident intent: f**g with g not an integer literal is Powf(f,g)
// (keopscore 2.3's __pow__ raises there: `raise Powf(...)`).
// Aliases as pykeops takes them (pykeops/common/parse_type.py): "X=Vi(3)" (position: its
// place in the alias list), "X=Vi(0,3)", "X=Var(0,3,0)"; in the formula, Var(i,d,cat),
// Vi(i,d), Vj(i,d), Pm(i,d) name a variable directly.
// A reduction: Name_Reduction(f[,K],axis[,g]) as pykeops' Genred writes it, the names
// those of kops::to_keops_string (Sum, Min, Max, ArgMin, ArgMax, Min_ArgMin, Max_ArgMax,
// KMin, ArgKMin, KMin_ArgKMin, LogSumExp, LogSumExpWeight, SumSoftMaxWeight);
// axis 0 reduces over j (kops::axis_j), 1 over i.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <utility>

#include <kops/autodiff/diff.hpp>
#include <kops/autodiff/divergence.hpp>
#include <kops/autodiff/grad.hpp>
#include <kops/autodiff/grad_matrix.hpp>
#include <kops/autodiff/laplacian.hpp>
#include <kops/core/constant.hpp>
#include <kops/core/factorize.hpp>
#include <kops/core/variable.hpp>
#include <kops/ops/abs.hpp>
#include <kops/ops/acos.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/argmax.hpp>
#include <kops/ops/argmin.hpp>
#include <kops/ops/asin.hpp>
#include <kops/ops/atan.hpp>
#include <kops/ops/atan2.hpp>
#include <kops/ops/bspline.hpp>
#include <kops/ops/clamp.hpp>
#include <kops/ops/clampint.hpp>
#include <kops/ops/comparisons.hpp>
#include <kops/ops/complex/complex_abs.hpp>
#include <kops/ops/complex/complex_add.hpp>
#include <kops/ops/complex/complex_angle.hpp>
#include <kops/ops/complex/complex_divide.hpp>
#include <kops/ops/complex/complex_exp.hpp>
#include <kops/ops/complex/complex_exp1j.hpp>
#include <kops/ops/complex/complex_mult.hpp>
#include <kops/ops/complex/complex_real_scal.hpp>
#include <kops/ops/complex/complex_square_abs.hpp>
#include <kops/ops/complex/complex_subtract.hpp>
#include <kops/ops/complex/complex_sum.hpp>
#include <kops/ops/complex/conj.hpp>
#include <kops/ops/complex/imag.hpp>
#include <kops/ops/complex/imag2complex.hpp>
#include <kops/ops/complex/real.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/concat.hpp>
#include <kops/ops/cos.hpp>
#include <kops/ops/divide.hpp>
#include <kops/ops/dot.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/exp2.hpp>
#include <kops/ops/extract.hpp>
#include <kops/ops/floor.hpp>
#include <kops/ops/ifelse.hpp>
#include <kops/ops/inv.hpp>
#include <kops/ops/kron.hpp>
#include <kops/ops/log.hpp>
#include <kops/ops/matvecmult.hpp>
#include <kops/ops/max.hpp>
#include <kops/ops/min.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/mod.hpp>
#include <kops/ops/mult.hpp>
#include <kops/ops/norm2.hpp>
#include <kops/ops/normalize.hpp>
#include <kops/ops/one_hot.hpp>
#include <kops/ops/pow.hpp>
#include <kops/ops/powf.hpp>
#include <kops/ops/relu.hpp>
#include <kops/ops/round.hpp>
#include <kops/ops/rsqrt.hpp>
#include <kops/ops/sign.hpp>
#include <kops/ops/sin.hpp>
#include <kops/ops/sinxdivx.hpp>
#include <kops/ops/softdtw_sqdist.hpp>
#include <kops/ops/sqdist.hpp>
#include <kops/ops/sqnorm2.hpp>
#include <kops/ops/sqrt.hpp>
#include <kops/ops/square.hpp>
#include <kops/ops/step.hpp>
#include <kops/ops/subtract.hpp>
#include <kops/ops/sum.hpp>
#include <kops/ops/tensordot.hpp>
#include <kops/ops/tensorprod.hpp>
#include <kops/ops/vecmatmult.hpp>
#include <kops/ops/weighted_sqdist.hpp>
#include <kops/ops/weighted_sqnorm.hpp>
#include <kops/ops/xlogx.hpp>
#include <kops/reductions/argkmin.hpp>
#include <kops/reductions/argmax.hpp>
#include <kops/reductions/argmin.hpp>
#include <kops/reductions/kmin.hpp>
#include <kops/reductions/kmin_argkmin.hpp>
#include <kops/reductions/logsumexp.hpp>
#include <kops/reductions/max.hpp>
#include <kops/reductions/max_argmax.hpp>
#include <kops/reductions/min.hpp>
#include <kops/reductions/min_argmin.hpp>
#include <kops/reductions/sum.hpp>
#include <kops/reductions/sumsoftmaxweight.hpp>

namespace kops {

namespace detail {

/// A string literal as a template argument: `keops_formula<"Exp(X)", "X=Vi(3)">`.
template <std::size_t N>
struct fixed_string {
  char s[N]{};
  constexpr fixed_string() = default;
  constexpr fixed_string(const char (&a)[N]) {  // NOLINT: implicit, so that a literal converts
    for (std::size_t k = 0; k < N; ++k) s[k] = a[k];
  }
  static constexpr int size = int(N) - 1;
};

} // namespace detail

namespace detail::ks {

// ---- the flat tree ----------------------------------------------------------------

enum kind : int { k_int, k_list, k_var, k_call };

inline constexpr int max_children = 3;
inline constexpr int max_ints = 16;
inline constexpr int max_lists = 5;

// One node: a Python int (k_int: ints[0]), an int tuple/list (k_list), a variable
// (k_var: ints = index, dim, category) or an op call (k_call: op, children, ints,
// the int lists of TensorDot/Kron one after the other, a reduction's axis).
struct node {
  int kind = k_int;
  int op = -1;
  int column = 0;
  int nchildren = 0;
  int children[max_children]{};
  int nints = 0;
  long long ints[max_ints]{};
  int nlists = 0;
  int list_size[max_lists]{};
  int axis = 0;
  bool reduction = false;  // a k_call whose value is a reduction (Name_Reduction, or Grad / Diff of one)
};

inline constexpr int message_size = 240;

template <std::size_t N>
struct tree {
  node nodes[N + 1]{};
  int count = 0;
  int root = -1;
  bool ok = true;
  fixed_string<message_size> message{};
};

// ---- the ops ----------------------------------------------------------------------

// An op's KeOps name, its arguments and its builder. sig, one letter per argument:
//   f a formula, v a variable, i an integer, l an integer list ((3,3), [3,3] or 3),
//   a a reduction axis (0 or 1); arguments after '?' are optional.
// build(r, children...) gets r, a node_ref R (its integer arguments i0<R>, i1<R>,
// its lists R::list<T, k>, its axis axis_of<R>), and the children's formula values.
template <class B>
struct op_entry {
  const char* name;
  const char* sig;
  B build;
};
template <class B> op_entry(const char*, const char*, B) -> op_entry<B>;  // (clang 14: no aggregate CTAD)

// The table: a flat list of op entries indexed by op id (not a std::tuple, whose
// recursive traits exceed nvcc's instantiation depth at this length).
template <std::size_t I, class B>
struct leaf {
  op_entry<B> entry;
};
template <class Seq, class... B> struct table;
template <std::size_t... I, class... B>
struct table<std::index_sequence<I...>, B...> : leaf<I, B>... {
  constexpr table(op_entry<B>... e) : leaf<I, B>{e}... {}
};
template <class... B> table(op_entry<B>...) -> table<std::index_sequence_for<B...>, B...>;
template <std::size_t I, class B>
constexpr const op_entry<B>& entry(const leaf<I, B>& l) {
  return l.entry;
}

template <class R> constexpr long long i0 = R::n.ints[0];
template <class R> constexpr long long i1 = R::n.ints[1];
template <class R> using axis_of = axis_tag<R::n.axis == 0 ? 1 : 0>;

inline constexpr auto unary = [](auto f) { return [f](auto, auto a) { return f(a); }; };

inline constexpr table op_table{
    // arithmetic (also the infix operators)
    op_entry{"Add", "ff", [](auto, auto a, auto b) { return a + b; }},
    op_entry{"Subtract", "ff", [](auto, auto a, auto b) { return a - b; }},
    op_entry{"Mult", "ff", [](auto, auto a, auto b) { return a * b; }},
    op_entry{"Divide", "ff", [](auto, auto a, auto b) { return a / b; }},
    op_entry{"Minus", "f", [](auto, auto a) { return -a; }},
    op_entry{"Scalprod", "ff", [](auto, auto a, auto b) { return dot(a, b); }},
    // constants
    // an integer constant is the canonical node the builders fold to: 0 is Zero<1>,
    // which kops prints as IntCst(0)
    op_entry{"IntCst", "i", []<class R>(R) { return make_constant<i0<R>, 1>(); }},
    op_entry{"IntInv", "i", []<class R>(R) { return cst<1> / cst<i0<R>>; }},
    op_entry{"RatCst", "ii", []<class R>(R) { return cst<i0<R>> / cst<i1<R>>; }},
    op_entry{"Zero", "i", []<class R>(R) { return zero<int(i0<R>)>; }},
    // powers
    op_entry{"Inv", "f", unary([](auto a) { return inv(a); })},
    op_entry{"Square", "f", unary([](auto a) { return square(a); })},
    op_entry{"Pow", "fi", []<class R>(R, auto a) { return pow<int(i0<R>)>(a); }},
    op_entry{"Sqrt", "f", unary([](auto a) { return sqrt(a); })},
    op_entry{"Rsqrt", "f", unary([](auto a) { return rsqrt(a); })},
    op_entry{"Powf", "ff", [](auto, auto a, auto b) { return powf(a, b); }},
    // exp, log, trigonometry
    op_entry{"Exp", "f", unary([](auto a) { return exp(a); })},
    op_entry{"Exp2", "f", unary([](auto a) { return exp2(a); })},
    op_entry{"Log", "f", unary([](auto a) { return log(a); })},
    op_entry{"XLogX", "f", unary([](auto a) { return xlogx(a); })},
    op_entry{"Sin", "f", unary([](auto a) { return sin(a); })},
    op_entry{"Cos", "f", unary([](auto a) { return cos(a); })},
    op_entry{"SinXDivX", "f", unary([](auto a) { return sinxdivx(a); })},
    op_entry{"Asin", "f", unary([](auto a) { return asin(a); })},
    op_entry{"Acos", "f", unary([](auto a) { return acos(a); })},
    op_entry{"Atan", "f", unary([](auto a) { return atan(a); })},
    op_entry{"Atan2", "ff", [](auto, auto y, auto x) { return atan2(y, x); }},
    // piecewise
    op_entry{"Abs", "f", unary([](auto a) { return abs(a); })},
    op_entry{"Sign", "f", unary([](auto a) { return sign(a); })},
    op_entry{"Step", "f", unary([](auto a) { return step(a); })},
    op_entry{"ReLU", "f", unary([](auto a) { return relu(a); })},
    op_entry{"Floor", "f", unary([](auto a) { return floor(a); })},
    op_entry{"Round", "fi", []<class R>(R, auto a) { return round<int(i0<R>)>(a); }},
    op_entry{"Clamp", "fff", [](auto, auto f, auto a, auto b) { return clamp(f, a, b); }},
    op_entry{"ClampInt", "fii", []<class R>(R, auto f) { return clampint<int(i0<R>), int(i1<R>)>(f); }},
    op_entry{"Mod", "fff", [](auto, auto x, auto n, auto o) { return mod(x, n, o); }},
    op_entry{"IfElse", "fff", [](auto, auto c, auto a, auto b) { return ifelse(c, a, b); }},
    // comparisons
    op_entry{"Equal", "ff", [](auto, auto a, auto b) { return equal(a, b); }},
    op_entry{"NotEqual", "ff", [](auto, auto a, auto b) { return not_equal(a, b); }},
    op_entry{"LessThan", "ff", [](auto, auto a, auto b) { return less_than(a, b); }},
    op_entry{"LessOrEqual", "ff", [](auto, auto a, auto b) { return less_or_equal(a, b); }},
    // within a vector
    op_entry{"Sum", "f", unary([](auto a) { return sum(a); })},
    op_entry{"SumT", "fi", []<class R>(R, auto a) { return sum_t<int(i0<R>)>(a); }},
    op_entry{"Max", "f", unary([](auto a) { return max(a); })},
    op_entry{"Min", "f", unary([](auto a) { return min(a); })},
    op_entry{"ArgMax", "f", unary([](auto a) { return argmax(a); })},
    op_entry{"ArgMin", "f", unary([](auto a) { return argmin(a); })},
    op_entry{"Elem", "fi", []<class R>(R, auto a) { return elem<int(i0<R>)>(a); }},
    op_entry{"ElemT", "fii", []<class R>(R, auto a) { return elem_t<int(i0<R>), int(i1<R>)>(a); }},
    op_entry{"Extract", "fii", []<class R>(R, auto a) { return extract<int(i0<R>), int(i1<R>)>(a); }},
    op_entry{"ExtractT", "fii", []<class R>(R, auto a) { return extract_t<int(i0<R>), int(i1<R>)>(a); }},
    op_entry{"Concat", "ff", [](auto, auto a, auto b) { return concat(a, b); }},
    op_entry{"OneHot", "fi", []<class R>(R, auto a) { return one_hot<int(i0<R>)>(a); }},
    // norms and distances
    op_entry{"SqNorm2", "f", unary([](auto a) { return sqnorm2(a); })},
    op_entry{"Norm2", "f", unary([](auto a) { return norm2(a); })},
    op_entry{"Normalize", "f", unary([](auto a) { return normalize(a); })},
    op_entry{"SqDist", "ff", [](auto, auto a, auto b) { return sqdist(a, b); }},
    op_entry{"WeightedSqNorm", "ff", [](auto, auto s, auto a) { return weighted_sqnorm(s, a); }},
    op_entry{"SqNormIso", "ff", [](auto, auto s, auto a) { return weighted_sqnorm(s, a); }},
    op_entry{"SqNormDiag", "ff", [](auto, auto s, auto a) { return weighted_sqnorm(s, a); }},
    op_entry{"SymSqNorm", "ff", [](auto, auto s, auto a) { return weighted_sqnorm(s, a); }},
    op_entry{"WeightedSqDist", "fff", [](auto, auto s, auto a, auto b) { return weighted_sqdist(s, a, b); }},
    // tensor algebra
    op_entry{"MatVecMult", "ff", [](auto, auto a, auto b) { return matvecmult(a, b); }},
    op_entry{"VecMatMult", "ff", [](auto, auto b, auto a) { return vecmatmult(b, a); }},
    op_entry{"TensorProd", "ff", [](auto, auto a, auto b) { return tensorprod(a, b); }},
    op_entry{"TensorDot", "ffllll?l",
             []<class R>(R, auto a, auto b) {
               using T = typename R::tensordot;
               return tensordot<typename T::sa, typename T::sb, typename T::ca, typename T::cb, typename T::perm>(a, b);
             }},
    op_entry{"Kron", "ffll",
             []<class R>(R, auto a, auto b) {
               return kron<typename R::template list<dims, 0>, typename R::template list<dims, 1>>(a, b);
             }},
    // special functions
    op_entry{"BSpline", "ffi", []<class R>(R, auto t, auto x) { return bspline<int(i0<R>)>(t, x); }},
    op_entry{"SoftDTW_SqDist", "fff", [](auto, auto x, auto y, auto g) { return softdtw_sqdist(x, y, g); }},
    // complex numbers
    op_entry{"ComplexReal", "f", unary([](auto a) { return real(a); })},
    op_entry{"ComplexImag", "f", unary([](auto a) { return imag(a); })},
    op_entry{"Real2Complex", "f", unary([](auto a) { return real2complex(a); })},
    op_entry{"Imag2Complex", "f", unary([](auto a) { return imag2complex(a); })},
    op_entry{"Conj", "f", unary([](auto a) { return conj(a); })},
    op_entry{"ComplexSquareAbs", "f", unary([](auto a) { return complex_square_abs(a); })},
    op_entry{"ComplexAbs", "f", unary([](auto a) { return complex_abs(a); })},
    op_entry{"ComplexAngle", "f", unary([](auto a) { return complex_angle(a); })},
    op_entry{"ComplexExp", "f", unary([](auto a) { return complex_exp(a); })},
    op_entry{"ComplexExp1j", "f", unary([](auto a) { return complex_exp1j(a); })},
    op_entry{"ComplexSum", "f", unary([](auto a) { return complex_sum(a); })},
    op_entry{"ComplexSumT", "fi", []<class R>(R, auto a) { return complex_sum_t<int(i0<R>)>(a); }},
    op_entry{"ComplexAdd", "ff", [](auto, auto a, auto b) { return complex_add(a, b); }},
    op_entry{"ComplexSubtract", "ff", [](auto, auto a, auto b) { return complex_subtract(a, b); }},
    op_entry{"ComplexMult", "ff", [](auto, auto a, auto b) { return complex_mult(a, b); }},
    op_entry{"ComplexDivide", "ff", [](auto, auto a, auto b) { return complex_divide(a, b); }},
    op_entry{"ComplexRealScal", "ff", [](auto, auto a, auto b) { return complex_real_scal(a, b); }},
    // derivatives
    op_entry{"Grad", "fvf", [](auto, auto f, auto v, auto g) { return grad(f, v, g); }},
    op_entry{"Diff", "fvf", [](auto, auto f, auto v, auto u) { return diff(f, v, u); }},
    op_entry{"Divergence", "fv", [](auto, auto f, auto v) { return divergence(f, v); }},
    op_entry{"Laplacian", "fv", [](auto, auto f, auto v) { return laplacian(f, v); }},
    op_entry{"GradMatrix", "fv", [](auto, auto f, auto v) { return grad_matrix(f, v); }},
    op_entry{"Factorize", "ff", [](auto, auto f, auto g) { return factorize(f, g); }},
    // reductions (first_reduction onwards)
    op_entry{"Sum_Reduction", "fa", []<class R>(R, auto f) { return sum_reduction(f, axis_of<R>{}); }},
    op_entry{"Min_Reduction", "fa", []<class R>(R, auto f) { return min_reduction(f, axis_of<R>{}); }},
    op_entry{"Max_Reduction", "fa", []<class R>(R, auto f) { return max_reduction(f, axis_of<R>{}); }},
    op_entry{"ArgMin_Reduction", "fa", []<class R>(R, auto f) { return argmin_reduction(f, axis_of<R>{}); }},
    op_entry{"ArgMax_Reduction", "fa", []<class R>(R, auto f) { return argmax_reduction(f, axis_of<R>{}); }},
    op_entry{"Min_ArgMin_Reduction", "fa", []<class R>(R, auto f) { return min_argmin_reduction(f, axis_of<R>{}); }},
    op_entry{"Max_ArgMax_Reduction", "fa", []<class R>(R, auto f) { return max_argmax_reduction(f, axis_of<R>{}); }},
    op_entry{"KMin_Reduction", "fia",
             []<class R>(R, auto f) { return kmin_reduction<int(i0<R>)>(f, axis_of<R>{}); }},
    op_entry{"ArgKMin_Reduction", "fia",
             []<class R>(R, auto f) { return argkmin_reduction<int(i0<R>)>(f, axis_of<R>{}); }},
    op_entry{"KMin_ArgKMin_Reduction", "fia",
             []<class R>(R, auto f) { return kmin_argkmin_reduction<int(i0<R>)>(f, axis_of<R>{}); }},
    op_entry{"LogSumExp_Reduction", "fa?f",
             []<class R>(R, auto f, auto... g) { return logsumexp_reduction(f, g..., axis_of<R>{}); }},
    op_entry{"LogSumExpWeight_Reduction", "faf",
             []<class R>(R, auto f, auto g) { return logsumexp_reduction(f, g, axis_of<R>{}); }},
    op_entry{"SumSoftMaxWeight_Reduction", "faf",
             []<class R>(R, auto f, auto g) { return sumsoftmaxweight_reduction(f, g, axis_of<R>{}); }},
};

struct op_info {
  const char* name;
  const char* sig;
};
inline constexpr auto ops = []<std::size_t... I, class... B>(const table<std::index_sequence<I...>, B...>& t) {
  return std::array<op_info, sizeof...(B)>{op_info{entry<I>(t).name, entry<I>(t).sig}...};
}(op_table);
inline constexpr int num_ops = int(ops.size());

// ---- text helpers -----------------------------------------------------------------

constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }
constexpr int length(const char* s) {
  int n = 0;
  while (s[n]) ++n;
  return n;
}
constexpr bool same(const char* a, const char* b, int len) {
  for (int k = 0; k < len; ++k)
    if (a[k] != b[k]) return false;
  return true;
}
// The op named by the len characters at id, or -1.
constexpr int find_op(const char* id, int len) {
  for (int k = 0; k < num_ops; ++k)
    if (length(ops[k].name) == len && same(ops[k].name, id, len)) return k;
  return -1;
}
constexpr int op_id(const char* name) { return find_op(name, length(name)); }
inline constexpr int first_reduction = op_id("Sum_Reduction");
constexpr bool is_reduction(int op) { return op >= first_reduction; }
// Grad and Diff also take a reduction as their first argument (KeOps 2.3 does:
// its reductions have DiffT and Diff): the result is a reduction.
constexpr bool takes_reduction(int op) { return op == op_id("Grad") || op == op_id("Diff"); }

// Levenshtein distance, case-insensitive: what "did you mean" ranks names by.
constexpr int distance(const char* a, int na, const char* b, int nb) {
  constexpr int cap = 64;
  if (na >= cap || nb >= cap) return cap;
  int row[cap]{};
  for (int j = 0; j <= nb; ++j) row[j] = j;
  for (int i = 1; i <= na; ++i) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= nb; ++j) {
      const int up = row[j];
      const int sub = diag + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      const int del = up + 1, ins = row[j - 1] + 1;
      row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
      diag = up;
    }
  }
  return row[nb];
}

// A message under construction: "kops::keops_formula: at column 12, unknown ...".
struct message_builder {
  fixed_string<message_size> m{};
  int n = 0;
  constexpr message_builder& add(const char* s, int len = -1) {
    for (int k = 0; (len < 0 ? s[k] != 0 : k < len) && n < message_size - 1; ++k) m.s[n++] = s[k];
    return *this;
  }
  constexpr message_builder& num(long long v) {
    char d[24]{};
    int k = 24;
    unsigned long long u = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do d[--k] = char('0' + u % 10); while ((u /= 10) != 0);
    if (v < 0) d[--k] = '-';
    return add(d + k, 24 - k);
  }
};

// ---- aliases ----------------------------------------------------------------------

struct alias {
  const char* name = nullptr;
  int name_len = 0;
  int index = 0, dim = 0, cat = 0;
};

inline constexpr const char* category_names[] = {"Vi", "Vj", "Pm"};

// ---- the parser -------------------------------------------------------------------

enum token_type : int { t_end, t_ident, t_int, t_real, t_punct };

struct token {
  int type = t_end;
  int begin = 0, end = 0;
  long long value = 0;
};

template <std::size_t N, std::size_t NA>
struct parser {
  const char* s;
  int n;
  const char* who;                // "kops::keops_formula" or "kops::keops_reduction"
  const char* where = nullptr;    // the alias string being read (in_alias), else unused
  int where_index = 0;
  tree<N>& t;
  alias (&aliases)[NA + 1];
  int naliases = 0;
  int pos = 0;
  token tok{};
  bool in_alias = false;  // reading an alias (a flag, not `where != nullptr`: under
                          // -fsanitize=undefined g++ cannot compare a template argument's
                          // address in a constant expression)

  // ---- errors: the first one is kept
  constexpr message_builder start(int column) {
    message_builder b;
    b.add(who).add(": ");
    if (in_alias) b.add("in alias ").num(where_index + 1).add(" `").add(where).add("`, ");
    b.add("at column ").num(column).add(", ");
    return b;
  }
  constexpr int fail(const message_builder& b) {
    if (t.ok) {
      t.ok = false;
      t.message = b.m;
    }
    return -1;
  }
  constexpr bool failed() const { return !t.ok; }
  constexpr int column() const { return tok.begin + 1; }
  constexpr message_builder& quoted(message_builder& b, const token& k) const {
    if (k.type == t_end) return b.add("the end of the string");
    return b.add("`").add(s + k.begin, k.end - k.begin).add("`");
  }

  // ---- tokens
  constexpr void next() {
    while (pos < n && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n')) ++pos;
    tok = token{t_end, pos, pos, 0};
    if (pos >= n) return;
    const char c = s[pos];
    if (is_ident_start(c)) {
      while (pos < n && is_ident(s[pos])) ++pos;
      tok.type = t_ident;
    } else if (is_digit(c) || (c == '.' && pos + 1 < n && is_digit(s[pos + 1]))) {
      bool real = false;
      while (pos < n && is_digit(s[pos])) {
        if (tok.value < 1'000'000'000'000'000ll) tok.value = tok.value * 10 + (s[pos] - '0');
        ++pos;
      }
      while (pos < n && (is_digit(s[pos]) || s[pos] == '.' || s[pos] == 'e' || s[pos] == 'E' ||
                         ((s[pos] == '-' || s[pos] == '+') && (s[pos - 1] == 'e' || s[pos - 1] == 'E')))) {
        real = true;
        ++pos;
      }
      tok.type = real ? t_real : t_int;
    } else {
      const char d = pos + 1 < n ? s[pos + 1] : 0;
      const bool two = (c == '*' && d == '*') || (c == '/' && d == '/') ||
                       ((c == '<' || c == '>' || c == '=' || c == '!') && d == '=');
      pos += two ? 2 : 1;
      tok.type = t_punct;
    }
    tok.end = pos;
  }
  constexpr bool is(const char* p) const {
    if (tok.type != t_punct || tok.end - tok.begin != length(p)) return false;
    for (int k = 0; p[k]; ++k)
      if (s[tok.begin + k] != p[k]) return false;
    return true;
  }
  // ---- nodes
  constexpr int add(node nd) {
    t.nodes[t.count] = nd;
    return t.count++;
  }
  constexpr int integer(long long v, int column) {
    node nd;
    nd.kind = k_int;
    nd.ints[0] = v;
    nd.nints = 1;
    nd.column = column;
    return add(nd);
  }
  constexpr int variable(int index, int dim, int cat, int column) {
    node nd;
    nd.kind = k_var;
    nd.ints[0] = index;
    nd.ints[1] = dim;
    nd.ints[2] = cat;
    nd.nints = 3;
    nd.column = column;
    return add(nd);
  }
  constexpr int call(int op, int column, std::initializer_list<int> children) {
    node nd;
    nd.kind = k_call;
    nd.op = op;
    nd.column = column;
    for (int c : children) nd.children[nd.nchildren++] = c;
    return add(nd);
  }
  constexpr bool is_int(int k) const { return t.nodes[k].kind == k_int; }
  constexpr long long int_value(int k) const { return t.nodes[k].ints[0]; }

  // ---- the grammar, Python's precedence (lowest first)
  constexpr int expression() {
    const int col = column();
    int a = bit_or();
    if (failed()) return -1;
    const bool lt = is("<"), gt = is(">"), le = is("<="), ge = is(">=");
    if (lt || gt || le || ge) {
      next();
      const int b = bit_or();
      if (failed()) return -1;
      if (is("<") || is(">") || is("<=") || is(">=")) {
        auto m = start(column());
        return fail(m.add("chained comparison: write LessThan/LessOrEqual calls"));
      }
      const int op = op_id(lt || gt ? "LessThan" : "LessOrEqual");
      return lt || le ? call(op, col, {a, b}) : call(op, col, {b, a});  // a > b is b < a
    }
    if (is("==") || is("!=")) {
      auto m = start(column());
      quoted(m, tok).add(" compares two formulas in keopscore (a bool, no op): write Equal(a,b) or NotEqual(a,b)");
      return fail(m);
    }
    return a;
  }
  constexpr int bit_or() {
    const int col = column();
    int a = bit_xor();
    while (!failed() && is("|")) {
      next();
      const int b = bit_xor();
      if (failed()) return -1;
      a = call(op_id("Scalprod"), col, {a, b});
    }
    return failed() ? -1 : a;
  }
  constexpr int bit_xor() {
    const int a = sum();
    if (failed()) return -1;
    if (is("^") || is("&")) {
      auto m = start(column());
      quoted(m, tok).add(" is a bitwise operator in Python (keopscore 2.3), no op: write Pow(f,n), f**n or Powf(f,g)");
      return fail(m);
    }
    return a;
  }
  constexpr int sum() {
    int a = product();
    while (!failed() && (is("+") || is("-"))) {
      const bool plus = is("+");
      const int col = column();
      next();
      const int b = product();
      if (failed()) return -1;
      if (is_int(a) && is_int(b)) a = integer(plus ? int_value(a) + int_value(b) : int_value(a) - int_value(b), col);
      else a = call(op_id(plus ? "Add" : "Subtract"), col, {a, b});
    }
    return failed() ? -1 : a;
  }
  constexpr int product() {
    int a = unary_op();
    while (!failed() && (is("*") || is("/") || is("//") || is("%") || is("@"))) {
      const bool times = is("*"), divide = is("/");
      const int col = column();
      if (!times && !divide) {
        auto m = start(col);
        return fail(quoted(m, tok).add(" is no KeOps operator: write Mod(x,n,d) or MatVecMult(A,b)"));
      }
      next();
      const int b = unary_op();
      if (failed()) return -1;
      if (times && is_int(a) && is_int(b)) {
        a = integer(int_value(a) * int_value(b), col);
      } else if (divide && is_int(a) && is_int(b)) {
        auto m = start(col);
        return fail(m.add("an integer divided by an integer is a Python float, which keopscore 2.3 rejects: "
                          "write IntCst(p)/IntCst(q)"));
      } else if (divide && is_int(a) && int_value(a) == 1) {
        a = call(op_id("Inv"), col, {b});  // Operation.__rtruediv__: 1/f is Inv(f)
      } else {
        a = call(op_id(times ? "Mult" : "Divide"), col, {a, b});
      }
    }
    return failed() ? -1 : a;
  }
  constexpr int unary_op() {
    if (is("-") || is("+")) {
      const bool minus = is("-");
      const int col = column();
      next();
      const int a = unary_op();
      if (failed()) return -1;
      if (!minus && !is_int(a))  // +f: Operation has no __pos__, +3 is the int 3
        return fail(start(col).add("unary `+` of a formula is not in keopscore 2.3 (no Operation.__pos__): drop it"));
      if (!minus) return a;
      return is_int(a) ? integer(-int_value(a), col) : call(op_id("Minus"), col, {a});
    }
    return power();
  }
  constexpr int power() {
    const int a = primary();
    if (failed() || !is("**")) return a;
    const int col = column();
    next();
    const int b = unary_op();  // right-associative, and 2**-1 binds the minus
    if (failed()) return -1;
    if (is_int(a) && is_int(b)) {
      if (int_value(b) < 0) {
        auto m = start(col);
        return fail(m.add("an integer to a negative power is a Python float, which keopscore 2.3 rejects"));
      }
      long long p = 1;
      for (long long k = 0; k < int_value(b); ++k) p *= int_value(a);
      return integer(p, col);
    }
    if (is_int(b)) {
      if (int_value(b) == 2) return call(op_id("Square"), col, {a});
      const int p = call(op_id("Pow"), col, {a});
      t.nodes[p].ints[0] = int_value(b);
      t.nodes[p].nints = 1;
      return p;
    }
    return call(op_id("Powf"), col, {a, b});
  }
  constexpr int primary() {
    const token k = tok;
    const int col = column();
    if (k.type == t_int) {
      next();
      return integer(k.value, col);
    }
    if (k.type == t_real) {
      auto m = start(col);
      return fail(quoted(m, k).add(" is a float literal, which keopscore 2.3 rejects (int2Op): "
                                   "write IntCst(n) or IntCst(p)*IntInv(q)"));
    }
    if (is("(") || is("[")) return group();
    if (k.type == t_ident) return name();
    auto m = start(col);
    if (k.type == t_end) return fail(m.add("the string ends where a formula is expected"));
    if (is(")") || is("]")) return fail(quoted(m, k).add(" closes no bracket (unbalanced parenthesis)"));
    return fail(quoted(m, k).add(" where a formula is expected"));
  }
  // ( expr ) or a tuple (i, j, ...) / (i,) / [i, j, ...] of integers
  constexpr int group() {
    const bool square = is("[");
    const int col = column();
    const char* close = square ? "]" : ")";
    next();
    node list;
    list.kind = k_list;
    list.column = col;
    bool tuple = square;
    int single = -1;
    while (!is(close)) {
      const int e = expression();
      if (failed()) return -1;
      if (!tuple && !is(",") && is(close)) {
        single = e;
        break;
      }
      tuple = true;
      if (!is_int(e)) {
        auto m = start(t.nodes[e].column);
        return fail(m.add("a tuple or list holds integers only (the shapes and axes of TensorDot and Kron)"));
      }
      if (list.nints == max_ints) return fail(start(col).add("a list of more than ").num(max_ints).add(" integers"));
      list.ints[list.nints++] = int_value(e);
      if (is(",")) next();
      else if (!is(close)) return unclosed(close, col);
    }
    if (failed()) return -1;
    next();
    if (single >= 0) return single;
    if (!tuple) return fail(start(col).add("`()` is empty: a formula is expected"));
    list.list_size[0] = list.nints;
    list.nlists = 1;
    return add(list);
  }
  constexpr int unclosed(const char* close, int open_column) {
    auto m = start(column());
    m.add("expected `").add(close).add("` to close the bracket of column ").num(open_column).add(", found ");
    return fail(quoted(m, tok).add(" (unbalanced parenthesis)"));
  }
  // an alias, or a call: Var(i,d,c), Vi(i,d), an op
  constexpr int name() {
    const token k = tok;
    const int col = column();
    next();
    const char* id = s + k.begin;
    const int len = k.end - k.begin;
    if (!is("(")) {
      for (int a = 0; a < naliases; ++a)
        if (aliases[a].name_len == len && same(aliases[a].name, id, len))
          return variable(aliases[a].index, aliases[a].dim, aliases[a].cat, col);
      auto m = start(col);
      if (find_op(id, len) >= 0 || is_variable_call(id, len))
        return fail(quoted(m, k).add(" is an operation: call it, ").add(id, len).add("(...)"));
      quoted(m, k).add(" is not a variable: no alias names it");
      int best = -1, bd = len < 3 ? len : 3;  // a one-letter name: only a case slip
      for (int a = 0; a < naliases; ++a) {
        const int d = distance(aliases[a].name, aliases[a].name_len, id, len);
        if (d < bd) bd = d, best = a;
      }
      if (best >= 0) m.add(" (did you mean ").add(aliases[best].name, aliases[best].name_len).add("?)");
      return fail(m);
    }
    const int open = column();
    next();
    // the arguments, each an expression or an integer list
    int args[8]{};
    int nargs = 0;
    while (!is(")")) {
      if (nargs == 8) return fail(start(column()).add("too many arguments"));
      args[nargs++] = expression();
      if (failed()) return -1;
      if (is(",")) next();
      else if (!is(")")) return unclosed(")", open);
    }
    next();
    if (is_variable_call(id, len)) return variable_call(k, col, args, nargs);
    const int op = find_op(id, len);
    if (op < 0) return unknown_op(k, col);
    return op_call(op, col, args, nargs);
  }
  static constexpr int variable_category(const char* id, int len) {
    for (int c = 0; c < 3; ++c)
      if (len == 2 && same(category_names[c], id, 2)) return c;
    return -1;
  }
  static constexpr bool is_variable_call(const char* id, int len) {
    return variable_category(id, len) >= 0 || (len == 3 && same("Var", id, 3));
  }
  constexpr int unknown_op(const token& k, int col) {
    auto m = start(col);
    const char* id = s + k.begin;
    const int len = k.end - k.begin;
    for (int a = 0; a < naliases; ++a)
      if (aliases[a].name_len == len && same(aliases[a].name, id, len))
        return fail(quoted(m, k).add(" is a variable (an alias), not an operation"));
    // keopscore's own reductions that pykeops builds LogSumExp and SumSoftMaxWeight on
    for (const char* internal : {"Max_SumShiftExp_Reduction", "Max_SumShiftExpWeight_Reduction"})
      if (length(internal) == len && same(internal, id, len))
        return fail(quoted(m, k).add(" is the keopscore reduction under LogSumExp and SumSoftMaxWeight, not in kops: "
                                     "write LogSumExp_Reduction(f,axis[,g]) or SumSoftMaxWeight_Reduction(f,axis,g)"));
    quoted(m.add("unknown operation "), k);
    int best = -1, bd = 3 + len / 4;
    for (int o = 0; o < num_ops; ++o) {
      const int d = distance(ops[o].name, length(ops[o].name), id, len);
      if (d < bd) bd = d, best = o;
    }
    if (best >= 0) m.add(" (did you mean ").add(ops[best].name).add("?)");
    else m.add(" (kops knows the operations of docs/formulas.md)");
    return fail(m);
  }
  // Var(i,d,cat), Vi(i,d), Vj(i,d), Pm(i,d)
  constexpr int variable_call(const token& k, int col, const int* args, int nargs) {
    const bool var = k.end - k.begin == 3;
    const int want = var ? 3 : 2;
    auto m = start(col);
    m.add(s + k.begin, k.end - k.begin);
    if (nargs != want)
      return fail(m.add(var ? " expects 3 arguments (index, dim, category), given "
                            : " expects 2 arguments (index, dim), given ")
                      .num(nargs));
    for (int a = 0; a < nargs; ++a)
      if (!is_int(args[a]) || int_value(args[a]) < 0)
        return fail(m.add(": argument ").num(a + 1).add(" must be a non-negative integer"));
    const int cat = var ? int(int_value(args[2])) : variable_category(s + k.begin, 2);
    if (cat > 2) return fail(m.add(": the category must be 0 (i), 1 (j) or 2 (parameter), given ").num(cat));
    if (int_value(args[1]) < 1) return fail(m.add(": the dimension must be at least 1"));
    return variable(int(int_value(args[0])), int(int_value(args[1])), cat, col);
  }
  // An op call: the arguments checked against the op's signature.
  constexpr int op_call(int op, int col, const int* args, int nargs) {
    const char* sig = ops[op].sig;
    int min_args = 0, max_args = 0;
    bool optional = false;
    for (int c = 0; sig[c]; ++c) {
      if (sig[c] == '?') optional = true;
      else ++max_args, min_args += optional ? 0 : 1;
    }
    if (nargs < min_args || nargs > max_args) {
      auto m = start(col);
      m.add(ops[op].name).add(" expects ").num(min_args);
      if (max_args > min_args) m.add(" or ").num(max_args);
      return fail(m.add(max_args == 1 ? " argument, given " : " arguments, given ").num(nargs));
    }
    node nd;
    nd.kind = k_call;
    nd.op = op;
    nd.column = col;
    nd.reduction = is_reduction(op);
    for (int a = 0, c = 0; a < nargs; ++a, ++c) {
      if (sig[c] == '?') ++c;
      const node& arg = t.nodes[args[a]];
      auto m = start(arg.column);
      m.add(ops[op].name).add(": argument ").num(a + 1);
      const char want = sig[c];
      if (want == 'f' || want == 'v') {
        if (arg.kind == k_list) return fail(m.add(" must be a formula, given an integer list"));
        if (arg.reduction && !(a == 0 && takes_reduction(op)))
          return fail(m.add(" is a reduction: a reduction is the outermost call only "
                            "(or the first argument of Grad or Diff)"));
        if (arg.reduction) nd.reduction = true;  // Grad / Diff of a reduction
        if (want == 'v' && arg.kind != k_var) return fail(m.add(" must be a variable (an alias, Var, Vi, Vj or Pm)"));
        nd.children[nd.nchildren++] = args[a];
      } else if (want == 'i' || want == 'a') {
        if (arg.kind != k_int) return fail(m.add(want == 'a' ? " (the axis) must be 0 or 1" : " must be an integer"));
        if (want == 'a') {
          if (arg.ints[0] != 0 && arg.ints[0] != 1)
            return fail(m.add(" (the axis) must be 0 (reduce over j) or 1 (reduce over i), given ").num(arg.ints[0]));
          nd.axis = int(arg.ints[0]);
        } else {
          nd.ints[nd.nints++] = arg.ints[0];
        }
      } else {  // 'l'
        if (arg.kind != k_list && arg.kind != k_int)
          return fail(m.add(" must be an integer list, e.g. (3,3) or [3,3]"));
        const int size = arg.kind == k_int ? 1 : arg.nints;
        if (nd.nints + size > max_ints) return fail(m.add(": more than ").num(max_ints).add(" integers in all"));
        for (int v = 0; v < size; ++v) nd.ints[nd.nints++] = arg.ints[v];
        nd.list_size[nd.nlists++] = size;
      }
    }
    return add(nd);
  }

  // ---- an alias: [Name '='] Vi(d) | Vi(i,d) | Var(i,d,c)
  constexpr void read_alias(const char* text, int text_len, int index) {
    s = text;
    n = text_len;
    where = text;
    in_alias = true;
    where_index = index;
    pos = 0;
    next();
    alias a;
    if (tok.type == t_ident && !is_variable_call(s + tok.begin, tok.end - tok.begin)) {
      a.name = s + tok.begin;
      a.name_len = tok.end - tok.begin;
      next();
      if (!is("=")) {
        auto m = start(column());
        fail(quoted(m.add("expected `=` after the alias name, found "), tok));
        return;
      }
      next();
    }
    const token k = tok;
    const int col = column();
    if (k.type != t_ident || !is_variable_call(s + k.begin, k.end - k.begin)) {
      auto m = start(col);
      fail(quoted(m, k).add(" is not a variable type: expected Vi, Vj, Pm or Var, "
                            "as in X=Vi(3), X=Vi(0,3), X=Var(0,3,0)"));
      return;
    }
    next();
    if (!is("(")) {
      fail(quoted(start(column()).add("expected `(`, found "), tok));
      return;
    }
    next();
    int args[3]{};
    int nargs = 0;
    while (!is(")") && nargs < 3 && !failed()) {
      args[nargs++] = expression();
      if (failed()) return;
      if (is(",")) next();
      else if (!is(")")) {
        unclosed(")", col);
        return;
      }
    }
    if (failed()) return;
    next();
    // Vi(d): the position is the alias's place in the list
    if (k.end - k.begin == 2 && nargs == 1) {
      args[1] = args[0];
      args[0] = integer(index, col);
      nargs = 2;
    }
    const int v = variable_call(k, col, args, nargs);
    if (failed()) return;
    if (tok.type != t_end) {
      fail(quoted(start(column()).add("unexpected "), tok).add(" after the variable"));
      return;
    }
    for (int b = 0; b < naliases; ++b)
      if (a.name_len > 0 && aliases[b].name_len == a.name_len && same(aliases[b].name, a.name, a.name_len)) {
        fail(start(1).add("the name `").add(a.name, a.name_len).add("` is given twice"));
        return;
      }
    a.index = int(t.nodes[v].ints[0]);
    a.dim = int(t.nodes[v].ints[1]);
    a.cat = int(t.nodes[v].ints[2]);
    aliases[naliases++] = a;
  }

  constexpr void read_formula(const char* text, int text_len, bool reduction) {
    s = text;
    n = text_len;
    where = nullptr;
    in_alias = false;
    pos = 0;
    next();
    const int root = expression();
    if (failed()) return;
    if (tok.type != t_end) {
      auto m = start(column());
      if (is(")") || is("]")) fail(quoted(m, tok).add(" closes no bracket (unbalanced parenthesis)"));
      else fail(quoted(m.add("unexpected "), tok).add(" after a complete formula"));
      return;
    }
    const node& r = t.nodes[root];
    const bool is_red = r.kind == k_call && r.reduction;
    if (reduction && !is_red) {
      fail(start(1).add("the string is a formula, not a reduction: "
                        "expected Name_Reduction(f,axis), e.g. Sum_Reduction(f,0)"));
      return;
    }
    if (!reduction && is_red) {
      fail(start(1).add("the string is a reduction: use kops::keops_reduction, or give the formula only"));
      return;
    }
    t.root = root;
  }
};

// The parse of one string and its aliases (nodes: fewer than two per character).
template <fixed_string S, fixed_string... A>
constexpr auto parse(bool reduction, const char* who) {
  constexpr std::size_t nodes = std::size_t(2 * (S.size + (0 + ... + A.size)) + 2);
  tree<nodes> t;
  alias aliases[sizeof...(A) + 1]{};
  parser<nodes, sizeof...(A)> p{S.s, S.size, who, nullptr, 0, t, aliases};
  int index = 0;
  ((t.ok ? p.read_alias(A.s, A.size, index++) : void()), ...);
  if (t.ok) p.read_formula(S.s, S.size, reduction);
  return t;
}

template <bool Reduction, fixed_string S, fixed_string... A>
struct parsed {
  static constexpr auto ast = parse<S, A...>(Reduction, Reduction ? "kops::keops_reduction" : "kops::keops_formula");
};

// ---- the types --------------------------------------------------------------------

template <template <int...> class T, class P, int K, int Offset, std::size_t... I>
T<int(P::ast.nodes[K].ints[Offset + int(I)])...> make_list(std::index_sequence<I...>);

template <class P, int K>
struct node_ref {
  static constexpr node n = P::ast.nodes[K];
  static constexpr int offset(int list) {
    int o = 0;
    for (int l = 0; l < list; ++l) o += n.list_size[l];
    return o;
  }
  template <template <int...> class T, int L>
  using list = decltype(make_list<T, P, K, offset(L)>(std::make_index_sequence<std::size_t(n.list_size[L])>{}));
  // TensorDot(a, b, shape a, shape b, contracted axes of a, of b[, permutation])
  struct tensordot {
    using sa = list<dims, 0>;
    using sb = list<dims, 1>;
    using ca = list<axes, 2>;
    using cb = list<axes, 3>;
    using perm = decltype([] {
      if constexpr (n.nlists == 5) return list<axes, 4>{};
      else return;
    }());
  };
};

template <class P, int K>
constexpr auto build();

template <class P, int K, std::size_t... C>
constexpr auto build_call(std::index_sequence<C...>) {
  constexpr node n = P::ast.nodes[K];
  return entry<std::size_t(n.op)>(op_table).build(node_ref<P, K>{}, build<P, n.children[C]>()...);
}

template <class P, int K>
constexpr auto build() {
  constexpr node n = P::ast.nodes[K];
  if constexpr (n.kind == k_int) return make_constant<n.ints[0], 1>();  // a Python int where a formula goes: IntCst
  else if constexpr (n.kind == k_var) return Var<category(n.ints[2]), int(n.ints[0]), int(n.ints[1])>{};
  else return build_call<P, K>(std::make_index_sequence<std::size_t(n.nchildren)>{});
}

/// The type kops::keops_formula / keops_reduction stand for when the string does not
/// parse (after the static_assert that says why): not a formula, so nothing else builds.
struct syntax_error {};

template <fixed_string Message> inline constexpr bool keops_syntax_error = false;

template <class P>
constexpr auto formula() {
  if constexpr (!P::ast.ok) {
    static_assert(keops_syntax_error<P::ast.message>,
                  "kops::keops_formula: the KeOps string does not parse (the note below says where and why)");
    return syntax_error{};
  } else {
    return build<P, P::ast.root>();
  }
}
template <class P>
constexpr auto reduction() {
  if constexpr (!P::ast.ok) {
    static_assert(keops_syntax_error<P::ast.message>,
                  "kops::keops_reduction: the KeOps string does not parse (the note below says where and why)");
    return syntax_error{};
  } else {
    return build<P, P::ast.root>();
  }
}

} // namespace detail::ks

/// A formula written in KeOps' syntax, parsed at compile time into the type the C++
/// builders give (same simplifications, same kernels):
/// ```text
///   constexpr auto f = kops::keops_formula<"Exp(-G*SqDist(X,Y))*B", "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)">;
///   // the type of kops::exp(-kops::pm<0,1> * kops::sqdist(kops::vi<1,3>, kops::vj<2,3>)) * kops::vj<3,1>
/// ```
/// Aliases as pykeops takes them: "X=Vi(3)" (numbered by its place in the list),
/// "X=Vi(0,3)", "X=Var(0,3,0)"; Var(i,d,cat), Vi(i,d), Vj(i,d), Pm(i,d) also in the
/// formula. The grammar is keopscore 2.3's (docs/formulas.md, "Formulas from KeOps
/// strings"); a string that does not parse is a compile error whose note names the
/// column, the token and, for a misspelt op, the closest name.
template <detail::fixed_string S, detail::fixed_string... Aliases>
inline constexpr auto keops_formula = decltype(detail::ks::formula<detail::ks::parsed<false, S, Aliases...>>()){};

/// A reduction written in KeOps' syntax, as pykeops' Genred builds it:
/// `Sum_Reduction(f,0)` (0 reduces over j: kops::axis_j; 1 over i),
/// `KMin_ArgKMin_Reduction(f,K,axis)`, `LogSumExp_Reduction(f,axis[,weight])`,
/// `SumSoftMaxWeight_Reduction(f,axis,weight)`; aliases as in keops_formula:
/// ```text
///   constexpr auto red = kops::keops_reduction<"Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0)",
///                                              "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)">;
/// ```
template <detail::fixed_string S, detail::fixed_string... Aliases>
inline constexpr auto keops_reduction = decltype(detail::ks::reduction<detail::ks::parsed<true, S, Aliases...>>()){};

} // namespace kops
