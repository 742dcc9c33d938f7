// static_assert-only tests of the powers, inverse trigonometric, piecewise and
// comparison ops: dims and broadcasting, simplifications at construction, and
// the generic machinery over three-operand nodes (Ternary: rebind, factorization,
// invariance, the fast-exp rewrite, grad).
#include <kops/kops.hpp>
#include <kops/ops/acos.hpp>
#include <kops/ops/asin.hpp>
#include <kops/ops/atan.hpp>
#include <kops/ops/atan2.hpp>
#include <kops/ops/clamp.hpp>
#include <kops/ops/clampint.hpp>
#include <kops/ops/comparisons.hpp>
#include <kops/ops/floor.hpp>
#include <kops/ops/ifelse.hpp>
#include <kops/ops/mod.hpp>
#include <kops/ops/powf.hpp>
#include <kops/ops/relu.hpp>
#include <kops/ops/round.hpp>
#include <kops/ops/sinxdivx.hpp>
#include <kops/ops/step.hpp>
#include <kops/ops/xlogx.hpp>

#include <type_traits>

namespace {
using namespace kops;
using X = Var<category::i, 0, 3>;
using Y = Var<category::j, 1, 3>;
using B = Var<category::j, 2, 1>;
using G = Var<category::param, 3, 1>;
constexpr X x;
constexpr Y y;
constexpr B b;
constexpr G g;
template <class A, class C> constexpr bool same = std::is_same_v<A, C>;

// Dims: element-wise, {1, D} broadcasting; three operands each 1 or the largest.
static_assert(decltype(asin(x))::dim == 3 && decltype(acos(b))::dim == 1 && decltype(atan(y))::dim == 3);
static_assert(decltype(atan2(b, y))::dim == 3 && decltype(atan2(x, b))::dim == 3);
static_assert(decltype(powf(x, b))::dim == 3 && decltype(powf(b, y))::dim == 3);
static_assert(decltype(xlogx(x))::dim == 3 && decltype(sinxdivx(x))::dim == 3);
static_assert(decltype(step(x))::dim == 3 && decltype(relu(x))::dim == 3 && decltype(floor(x))::dim == 3);
static_assert(decltype(round<3>(x))::dim == 3 && decltype(clampint<0, 1>(x))::dim == 3);
static_assert(decltype(clamp(x, b, g))::dim == 3 && decltype(clamp(b, y, g))::dim == 3);
static_assert(decltype(clamp(b, g, y))::dim == 3 && decltype(clamp(b, g, b))::dim == 1);
static_assert(decltype(mod(x, b, b))::dim == 3 && decltype(mod(b, y, g))::dim == 3 && decltype(mod(b, g))::dim == 1);
static_assert(decltype(ifelse(b, x, y))::dim == 3 && decltype(ifelse(x, b, g))::dim == 3);
static_assert(decltype(equal(x, y))::dim == 3 && decltype(not_equal(b, y))::dim == 3);
static_assert(decltype(less_than(x, b))::dim == 3 && decltype(less_or_equal(b, g))::dim == 1);
static_assert(broadcastable(3, 1, 3) && broadcastable(1, 1, 4) && !broadcastable(3, 2, 1) && !broadcastable(2, 3, 3));

// Node types: Unary / Binary / Ternary of the op.
static_assert(same<decltype(atan2(x, y)), Binary<atan2_op, X, Y>>);
static_assert(same<decltype(powf(x, y)), Binary<powf_op, X, Y>>);
static_assert(same<decltype(clamp(x, y, b)), Ternary<clamp_op, X, Y, B>>);
static_assert(same<decltype(mod(x, y, b)), Ternary<mod_op, X, Y, B>>);
static_assert(same<decltype(mod(x, y)), Ternary<mod_op, X, Y, Zero<1>>>);
static_assert(same<decltype(ifelse(b, x, y)), Ternary<ifelse_op, B, X, Y>>);
static_assert(same<decltype(equal(x, y)), Binary<equal_op, X, Y>>);
static_assert(same<decltype(round(x)), Unary<round_op<0>, X>>);
static_assert(is_op_v<decltype(clamp(x, y, b)), clamp_op> && !is_op_v<decltype(clamp(x, y, b)), mod_op>);

// Simplifications.
// asin, atan and atan2 are odd (atan2 in y); sinxdivx is even; zeros stay zero.
static_assert(same<decltype(asin(-x)), decltype(-asin(x))>);
static_assert(same<decltype(atan(-x)), decltype(-atan(x))>);
static_assert(same<decltype(atan2(-x, y)), decltype(-atan2(x, y))>);
static_assert(same<decltype(sinxdivx(-x)), decltype(sinxdivx(x))>);
static_assert(same<decltype(asin(zero<3>)), Zero<3>> && same<decltype(atan(zero<2>)), Zero<2>>);
static_assert(same<decltype(sinxdivx(zero<1>)), IntConst<1>>);
static_assert(same<decltype(xlogx(zero<3>)), Zero<3>> && same<decltype(xlogx(cst<1>)), Zero<1>>);
// powf with an integer constant exponent is pow<n>; powf(1, b) = 1.
static_assert(same<decltype(powf(x, cst<3>)), decltype(pow<3>(x))>);
static_assert(same<decltype(powf(x, cst<-2>)), decltype(pow<-2>(x))>);
static_assert(same<decltype(powf(x, cst<2>)), Unary<square_op, X>>);
static_assert(same<decltype(powf(x, cst<1>)), X>);
static_assert(same<decltype(powf(b, zero<1>)), IntConst<1>>);
static_assert(same<decltype(powf(cst<1>, b)), IntConst<1>>);
static_assert(same<decltype(powf(x, cst<1> / cst<2>)), Binary<powf_op, X, Rational<1, 2>>>);
// Piecewise ops of constants fold.
static_assert(same<decltype(step(cst<0>)), IntConst<1>> && same<decltype(step(cst<-3> / cst<2>)), Zero<1>>);
static_assert(same<decltype(relu(cst<-2>)), Zero<1>> && same<decltype(relu(cst<5>)), IntConst<5>>);
static_assert(same<decltype(relu(zero<3>)), Zero<3>>);
static_assert(same<decltype(floor(cst<7> / cst<2>)), IntConst<3>>);
static_assert(same<decltype(floor(cst<-7> / cst<2>)), IntConst<-4>>);
static_assert(same<decltype(floor(cst<-4>)), IntConst<-4>>);
static_assert(same<decltype(floor(floor(x))), decltype(floor(x))>);
static_assert(same<decltype(floor(zero<3>)), Zero<3>>);
static_assert(same<decltype(round<2>(cst<5>)), IntConst<5>> && same<decltype(round<1>(zero<2>)), Zero<2>>);
static_assert(same<decltype(round<-1>(cst<5>)), Unary<round_op<-1>, IntConst<5>>>);
static_assert(same<decltype(clampint<-1, 2>(cst<5>)), IntConst<2>>);
static_assert(same<decltype(clampint<-1, 2>(cst<-5> / cst<2>)), IntConst<-1>>);
static_assert(same<decltype(clampint<-1, 2>(cst<1> / cst<2>)), Rational<1, 2>>);
// clamp with integer constant bounds is clampint.
static_assert(same<decltype(clamp(x, cst<-1>, cst<2>)), Unary<clampint_op<-1, 2>, X>>);
static_assert(same<decltype(clamp(x, zero<1>, cst<1>)), Unary<clampint_op<0, 1>, X>>);
static_assert(same<decltype(clamp(x, cst<1> / cst<2>, cst<1>)), Ternary<clamp_op, X, Rational<1, 2>, IntConst<1>>>);
// ifelse: equal branches, zero branches, constant conditions.
static_assert(same<decltype(ifelse(b, x, x)), X>);
static_assert(same<decltype(ifelse(x, b, b)), Ternary<ifelse_op, X, B, B>>);  // b would lose the dim
static_assert(same<decltype(ifelse(x, zero<1>, zero<3>)), Zero<3>>);
static_assert(same<decltype(ifelse(cst<0>, x, y)), X> && same<decltype(ifelse(cst<-1>, x, y)), Y>);
static_assert(same<decltype(ifelse(cst<1>, b, y)), Ternary<ifelse_op, IntConst<1>, B, Y>>);
// Comparisons of constants fold to 0 or 1 (exactly, on rationals).
static_assert(same<decltype(less_than(cst<1> / cst<3>, cst<1> / cst<2>)), IntConst<1>>);
static_assert(same<decltype(less_or_equal(cst<2>, cst<1>)), Zero<1>>);
static_assert(same<decltype(equal(cst<2> / cst<4>, cst<1> / cst<2>)), IntConst<1>>);
static_assert(same<decltype(not_equal(zero<1>, cst<0>)), Zero<1>>);

// Ternary nodes under the generic machinery.
// rebind_t over three operands.
static_assert(same<rebind_t<decltype(clamp(x, y, b)), type_list<Y, X, G>>, Ternary<clamp_op, Y, X, G>>);
// factorize(f, e) replaces e inside a Ternary, and the factorized formula
// expands back to the original.
constexpr auto shared = exp(sqdist(x, y));
constexpr auto tern = ifelse(b - shared, shared * x, y);
using Fac = decltype(factorize(tern, shared));
static_assert(same<Fac::shared, std::remove_const_t<decltype(shared)>>);
static_assert(!detail::contains_v<Fac::body, std::remove_const_t<decltype(shared)>>);
static_assert(same<Fac::expanded, std::remove_const_t<decltype(tern)>>);
// Automatic factorization finds the repeat through the Ternary.
static_assert(same<auto_factorize_t<std::remove_const_t<decltype(tern)>>, Fac>);
// Invariance: parameters and constants only.
static_assert(is_invariant_v<decltype(clamp(g, cst<0>, g * g))>);
static_assert(!is_invariant_v<decltype(clamp(g, b, g))>);
static_assert(is_invariant_v<decltype(atan2(g, g + cst<1>))> && !is_invariant_v<decltype(powf(g, b))>);
// The fast-exp rewrite reaches operands of a Ternary.
static_assert(same<fast_exp_t<decltype(mod(exp(x), y, b))>, Ternary<mod_op, fast_exp_t<decltype(exp(x))>, Y, B>>);
static_assert(!same<fast_exp_t<decltype(exp(x))>, decltype(exp(x))>);

// Gradients: each operand's gradient summed over its broadcast.
static_assert(decltype(grad(clamp(x, b, g), b, vi<4, 3>))::dim == 1);
static_assert(decltype(grad(clamp(x, b, g), g, vi<4, 3>))::dim == 1);
static_assert(decltype(grad(mod(b, y, b), b, vi<4, 3>))::dim == 1);
static_assert(decltype(grad(ifelse(b, x, b), b, vi<4, 3>))::dim == 1);
static_assert(decltype(grad(powf(b, y), b, vi<4, 3>))::dim == 1);
static_assert(decltype(grad(atan2(x, b), b, vi<4, 3>))::dim == 1);
// mod: w.r.t. x the gradient passes through.
static_assert(same<decltype(grad(mod(x, y, b), x, vi<4, 3>)), Var<category::i, 4, 3>>);
// ifelse selects the derivatives of its branches, ifelse(c, [d_V A]^T g, [d_V B]^T g)
// (issue 35: the derivative of the branch not taken never enters the arithmetic);
// a branch that does not read V has the derivative Zero<dim V>. (It routed g
// before, ifelse(c, g, 0) into [d_V A]^T, which for A = V was Zero<1> there.)
static_assert(same<decltype(grad(ifelse(b, x, y), x, vi<4, 3>)), Ternary<ifelse_op, B, Var<category::i, 4, 3>, Zero<3>>>);
static_assert(same<decltype(grad(ifelse(b, x, y), y, vi<4, 3>)), Ternary<ifelse_op, B, Zero<3>, Var<category::i, 4, 3>>>);
// Selecting is exact for a dim-1 condition, or branches componentwise in V: an
// element-wise formula of V is; a sum, or a broadcast operand that reads V, is not.
static_assert(componentwise_v<decltype(sqrt(x) * x + y), X> && componentwise_v<decltype(ifelse(x, exp(x), b)), X>);
static_assert(componentwise_v<Y, X> && componentwise_v<B, X> && componentwise_v<X, X>);
static_assert(!componentwise_v<decltype(x * sum(x)), X> && !componentwise_v<decltype(x * b), B>);
// ...otherwise (a dim-3 condition, a branch that mixes components) g is routed to the
// branch taken, the selection as far down the branch as it goes: here b, broadcast,
// takes the sum of the components where x >= 0, and only if there is one.
constexpr auto taken = less_or_equal(zero<1>, x);
static_assert(same<decltype(grad(ifelse(x, b, y), b, vi<4, 3>)),
                   decltype(detail::select_where(less_than(zero<1>, sum(taken)),
                                                 sum(detail::select_where(taken, vi<4, 3>, zero<1>)), zero<1>))>);
// Zero-derivative ops give the Zero type.
static_assert(same<decltype(grad(step(x), x, vi<4, 3>)), Zero<3>>);
static_assert(same<decltype(grad(floor(x) + round<1>(x), x, vi<4, 3>)), Zero<3>>);
static_assert(same<decltype(grad(equal(x, y) * less_than(y, x), y, vi<4, 3>)), Zero<3>>);
static_assert(same<decltype(grad(not_equal(x, b) + less_or_equal(b, x), b, vi<4, 3>)), Zero<1>>);
// relu's derivative selects g where step(x) = 1; clampint's where x is in [a, b]:
// selections ifelse(-p, 0, g), no longer products step(x) * g and [a <= x][x <= b] * g
// (issue 35: where the operand's own derivative is infinite, 0 * inf was NaN).
static_assert(same<decltype(grad(relu(x), x, vi<4, 3>)), decltype(ifelse(-step(x), zero<1>, vi<4, 3>))>);
// (The bound 0 is the canonical zero scalar, zero<1>, as every folded constant: kops
// prints both it and cst<0> as IntCst(0), which keops_formula reads as zero<1>.)
static_assert(same<decltype(grad(clampint<0, 2>(x), x, vi<4, 3>)),
                   decltype(ifelse(-(less_or_equal(zero<1>, x) * less_or_equal(x, cst<2>)), zero<1>, vi<4, 3>))>);
static_assert(same<decltype(clampint<0, 2>(cst<-3>)), Zero<1>>);
static_assert(same<decltype(grad(relu(sum(x)), x, vi<4, 1>)),
                   decltype(ifelse(-step(sum(x)), zero<1>, sum_t<3>(vi<4, 1>)))>);
// Through an element-wise node that mixes in a sum, the selection applies to each
// operand: x componentwise, sum(x) broadcast (taken if some component is).
constexpr auto up = step(x + sum(x));
static_assert(same<decltype(grad(relu(x + sum(x)), x, vi<4, 3>)),
                   decltype(ifelse(-up, zero<1>, vi<4, 3>) +
                            ifelse(-less_than(zero<1>, sum(up)), zero<1>,
                                   sum_t<3>(sum(ifelse(-up, zero<1>, vi<4, 3>)))))>);
} // namespace
