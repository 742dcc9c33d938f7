// static_assert-only tests of kops::keops_formula / keops_reduction: a KeOps string
// parses to exactly the type the C++ builders give.
//   - every formula and reduction of the conformance corpus, from its KeOps string
//     (tests/common/keops_syntax_cases.hpp);
//   - pykeops' alias forms, and the parts of keopscore 2.3's Python grammar that its
//     printer never writes: infix | ** < > <=, Python ints, 1/f, tuples, Elem, Vi(i,d).
#include <kops/kops.hpp>

#include <type_traits>

#include "../common/keops_syntax_cases.hpp"

namespace {

using namespace kops;
namespace ks = kops_test::keops_syntax;

template <class A, class B> inline constexpr bool same_v = std::is_same_v<std::remove_cv_t<A>, std::remove_cv_t<B>>;

// One static_assert per case, so that a failure names the case (in "required from").
template <class C>
struct formula_case {
  static_assert(same_v<decltype(keops_formula<C::keops>), decltype(C::formula)>,
                "keops_formula<to_keops_string(f)> is not the type of f");
  static constexpr bool ok = true;
};
// A gradient of a reduction keeps the argument count of the reduction it came from
// (Reduction's Arity: eval takes the same arguments, even those the derivative no
// longer reads); a KeOps string does not carry it (pykeops counts the aliases), so
// the parse has Arity 0 and is otherwise the same type.
// (A gradient's Arity and its mark as a gradient w.r.t. a reduced-axis
// variable, which block sparsity reads, are not in its KeOps string.)
template <class R> struct without_arity { using type = R; };
template <class Op, class F, class A, int N, bool G> struct without_arity<Reduction<Op, F, A, N, G>> {
  using type = Reduction<Op, F, A>;
};
template <class C>
struct reduction_case {
  using built = std::remove_cv_t<decltype(C::formula)>;
  static_assert(same_v<decltype(keops_reduction<C::keops>), typename without_arity<built>::type>,
                "keops_reduction<to_keops_string(r)> is not the type of r (up to Arity and the gradient mark)");
  static constexpr bool ok = true;
};
static_assert([]<class... C>(type_list<C...>) { return (formula_case<C>::ok && ...); }(ks::formula_cases{}));
static_assert([]<class... C>(type_list<C...>) { return (reduction_case<C>::ok && ...); }(ks::reduction_cases{}));

// The design's example: aliases numbered in order of the list.
constexpr auto gauss = exp(-pm<0, 1> * sqdist(vi<1, 3>, vj<2, 3>)) * vj<3, 1>;
static_assert(same_v<decltype(keops_formula<"Exp(-G*SqDist(X,Y))*B", "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)">),
                     decltype(gauss)>);
static_assert(same_v<decltype(keops_reduction<"Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0)", "G=Pm(1)", "X=Vi(3)",
                                              "Y=Vj(3)", "B=Vj(1)">),
                     decltype(sum_reduction(gauss, axis_j))>);
// The other alias spellings, spaces, and a variable written in the formula.
static_assert(same_v<decltype(keops_formula<" Exp( - G * SqDist( X , Y ) ) * B ", "G = Pm(0, 1)", "X=Var(1,3,0)",
                                            "Y=Vj(2,3)", "B=Vj(3,1)">),
                     decltype(gauss)>);
static_assert(same_v<decltype(keops_formula<"Exp(-Pm(0,1)*SqDist(Vi(1,3),Y))*Var(3,1,1)", "Y=Vj(2,3)">), decltype(gauss)>);
// An alias's position is its place in the list, not its index: here X is argument 1.
static_assert(same_v<decltype(keops_formula<"X", "Y=Vj(0,3)", "X=Vi(3)">), decltype(vi<1, 3>)>);
// The simplifications are the builders': X-X is zero, --X is X.
static_assert(same_v<decltype(keops_formula<"X-X", "X=Vi(3)">), decltype(zero<3>)>);
static_assert(same_v<decltype(keops_formula<"--X", "X=Vi(3)">), decltype(vi<0, 3>)>);
// Changing one letter changes the type (the checks above can fail).
static_assert(!same_v<decltype(keops_formula<"Exp(-G*SqDist(X,Y))*B", "G=Pm(1)", "X=Vi(3)", "Y=Vj(3)", "B=Vj(2)">),
                      decltype(gauss)>);
static_assert(!same_v<decltype(keops_reduction<"Sum_Reduction(X,1)", "X=Vi(3)">),
                      decltype(sum_reduction(vi<0, 3>, axis_j))>);

// Python's grammar as keopscore 2.3 reads it (keopscore/formulas/Operation.py), with
// X, Y, B, P the arguments 0..3 as in the corpus.
template <kops::detail::fixed_string S>
constexpr auto f = keops_formula<S, "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)", "P=Pm(1)">;
using ks::b;
using ks::p;
using ks::x;
using ks::y;
template <auto A, auto B> inline constexpr bool is = same_v<decltype(A), decltype(B)>;

// | is Scalprod, below + and -: X|Y+X is X|(Y+X).
static_assert(is<f<"X|Y">, dot(x, y)> && is<f<"X|Y+X">, dot(x, y + x)> && is<f<"Scalprod(X,Y)">, dot(x, y)>);
// ** binds tighter than unary minus; f**2 is Square, f**n Pow, f**g Powf.
static_assert(is<f<"X**2">, square(x)> && is<f<"X**3">, pow<3>(x)> && is<f<"X**-2">, pow<-2>(x)>);
static_assert(is<f<"-X**2">, -square(x)> && is<f<"X**Y">, powf(x, y)> && is<f<"X**B**2">, powf(x, square(b))>);
// Python ints: n*f is IntCst(n)*f, -3 is an int, 2*3 is 6, 2**3 is 8, 1/f is Inv(f).
static_assert(is<f<"2*X">, cst<2> * x> && is<f<"X*2">, x * cst<2>> && is<f<"-3*X">, cst<-3> * x>);
static_assert(is<f<"2*3*X">, cst<6> * x> && is<f<"2**3+X">, cst<8> + x> && is<f<"X-1">, x - cst<1>> &&
              is<f<"X*-1">, x * cst<-1>> && is<f<"+2*X">, cst<2> * x> && is<f<"-2**2*X">, cst<-4> * x>);
static_assert(is<f<"1/X">, inv(x)> && is<f<"2/X">, cst<2> / x> && is<f<"IntCst(1)/X">, cst<1> / x>);
// * and / associate to the left, + and - too.
static_assert(is<f<"X/Y*B">, (x / y) * b> && is<f<"X-Y+B">, (x - y) + b> && is<f<"X-(Y+B)">, x - (y + b)>);
// Comparisons: f>g is LessThan(g,f), f>=g LessOrEqual(g,f).
static_assert(is<f<"X<Y">, less_than(x, y)> && is<f<"X>Y">, less_than(y, x)>);
static_assert(is<f<"X<=Y">, less_or_equal(x, y)> && is<f<"X>=0">, less_or_equal(zero<1>, x)>);
// Constants.
static_assert(is<f<"IntInv(3)*X">, cst<1> / cst<3> * x> && is<f<"RatCst(2,3)">, cst<2> / cst<3>> &&
              is<f<"Zero(3)+X">, x>);
// Integer arguments, negative ones too; Elem and ElemT as keopscore names them.
static_assert(is<f<"Elem(X,1)">, elem<1>(x)> && is<f<"ElemT(B,4,2)">, elem_t<4, 2>(b)> &&
              is<f<"ClampInt(X,-1,1)">, clampint<-1, 1>(x)> && is<f<"Round(X,2)">, round<2>(x)>);
// Tuples and lists of integers: TensorDot and Kron.
static_assert(is<f<"TensorDot(Vi(0,6),Vj(1,12),(2,3),(4,3),(1,),(1,),(1,0))">,
                 tensordot<dims<2, 3>, dims<4, 3>, axes<1>, axes<1>, axes<1, 0>>(vi<0, 6>, vj<1, 12>)>);
static_assert(is<f<"TensorDot(Vi(0,6),Vj(1,12),[2,3],[4,3],[1],[1])">,
                 tensordot<dims<2, 3>, dims<4, 3>, axes<1>, axes<1>>(vi<0, 6>, vj<1, 12>)>);
static_assert(is<f<"Kron(Vi(0,4),Vj(1,6),(2,2),(3,2))">, kron<dims<2, 2>, dims<3, 2>>(vi<0, 4>, vj<1, 6>)>);
// keopscore's names for the weighted norms.
static_assert(is<f<"SqNormIso(P,X)">, weighted_sqnorm(p, x)> && is<f<"SqNormDiag(Vj(4,3),X)">, weighted_sqnorm(vj<4, 3>, x)> &&
              is<f<"SymSqNorm(Pm(4,9),X)">, weighted_sqnorm(pm<4, 9>, x)>);
// Derivatives: a variable by its alias.
static_assert(is<f<"Grad(Exp(-SqDist(X,Y)),X,B)">, grad(exp(-sqdist(x, y)), x, b)>);

// Reductions: axis 1 reduces over i; K of the k-min family; weights.
template <kops::detail::fixed_string S>
constexpr auto r = keops_reduction<S, "X=Vi(3)", "Y=Vj(3)", "B=Vj(1)", "P=Pm(1)">;
static_assert(is<r<"Sum_Reduction(X*Y,1)">, sum_reduction(x * y, axis_i)>);
static_assert(is<r<"KMin_ArgKMin_Reduction(SqDist(X,Y),5,0)">, kmin_argkmin_reduction<5>(sqdist(x, y), axis_j)>);
static_assert(is<r<"LogSumExp_Reduction(X|Y,0,B)">, logsumexp_reduction(dot(x, y), b, axis_j)> &&
              is<r<"LogSumExpWeight_Reduction(X|Y,0,B)">, logsumexp_reduction(dot(x, y), b, axis_j)>);
static_assert(is<r<"SumSoftMaxWeight_Reduction(X|Y,1,Y)">, sumsoftmaxweight_reduction(dot(x, y), y, axis_i)>);

} // namespace
