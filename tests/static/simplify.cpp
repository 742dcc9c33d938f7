// Simplification at construction, one static_assert per rule: the builders
// return the simplified type, so these are checks on types.
#include <kops/kops.hpp>

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

// Zero and one propagate.
static_assert(same<decltype(zero<3> + x), X>);
static_assert(same<decltype(x - zero<3>), X>);
static_assert(same<decltype(zero<3> - x), Unary<minus_op, X>>);
static_assert(same<decltype(x * zero<1>), Zero<3>>);
static_assert(same<decltype(x * cst<0>), Zero<3>>);
static_assert(same<decltype(cst<1> * x), X>);
static_assert(same<decltype(x * cst<1>), X>);
static_assert(same<decltype(x / cst<1>), X>);
static_assert(same<decltype(zero<3> / x), Zero<3>>);
static_assert(same<decltype(x - x), Zero<3>>);
// ...but not when dropping the zero would lose a broadcast: b + zero<3> is b repeated.
static_assert(decltype(b + zero<3>)::dim == 3);

// Integer and rational constants fold exactly.
static_assert(same<decltype(cst<2> * cst<3>), IntConst<6>>);
static_assert(same<decltype(cst<2> + cst<3> - cst<5>), Zero<1>>);
static_assert(same<decltype(cst<1> / cst<2>), Rational<1, 2>>);
static_assert(same<decltype(cst<2> / cst<4>), Rational<1, 2>>);
static_assert(same<decltype(cst<6> / cst<-4>), Rational<-3, 2>>);
static_assert(same<decltype(cst<1> / cst<3> + cst<1> / cst<6>), Rational<1, 2>>);
static_assert(same<decltype(cst<1> / cst<2> * cst<2>), IntConst<1>>);
static_assert(same<decltype(square(cst<1> / cst<3>)), Rational<1, 9>>);
static_assert(same<decltype(inv(cst<4>)), Rational<1, 4>>);
static_assert(same<decltype(-cst<3>), IntConst<-3>>);

// x + x = 2x; c x + d x = (c + d) x; x + c x = (1 + c) x.
static_assert(same<decltype(x + x), Binary<mult_op, IntConst<2>, X>>);
static_assert(same<decltype(cst<2> * x + cst<3> * x), Binary<mult_op, IntConst<5>, X>>);
static_assert(same<decltype(x + cst<3> * x), Binary<mult_op, IntConst<4>, X>>);
static_assert(same<decltype(cst<3> * x - x - x - x), Zero<3>>);
// x * x = square(x).
static_assert(same<decltype(x * x), Unary<square_op, X>>);
static_assert(same<decltype(pow<2>(x)), Unary<square_op, X>>);

// Signs: -(-x) = x, (-x) y = -(x y), x + (-y) = x - y, x - (-y) = x + y.
static_assert(same<decltype(-(-x)), X>);
static_assert(same<decltype((-x) * y), decltype(-(x * y))>);
static_assert(same<decltype(x + (-y)), Binary<subtract_op, X, Y>>);
static_assert(same<decltype(x - (-y)), decltype(x + y)>);
static_assert(same<decltype(-(cst<2> * x)), Binary<mult_op, IntConst<-2>, X>>);
static_assert(same<decltype(cst<-1> * x), Unary<minus_op, X>>);
static_assert(same<decltype(square(-x)), Unary<square_op, X>>);

// Common factors: a b + a c = a (b + c).
static_assert(same<decltype(x * y + x * b), decltype(x * (y + b))>);
static_assert(same<decltype(y * x + b * x), decltype(x * (y + b))>);

// Constants to the left, canonical order for commutative ops.
static_assert(same<decltype(x * cst<2>), Binary<mult_op, IntConst<2>, X>>);
static_assert(same<decltype(x * y), decltype(y * x)>);
static_assert(same<decltype(x + y), decltype(y + x)>);
static_assert(same<decltype(exp(x) * g * b), decltype(b * (g * exp(x)))>);

// Invariant factors (parameters, constants) are grouped and keep their sign,
// so that they are computed once per call: (x g) h = x (g h), (-x) g = x (-g).
static_assert(same<decltype(x * g * pm<5, 1>), decltype(x * (g * pm<5, 1>))>);
static_assert(same<decltype((-x) * g), decltype(x * (-g))>);
static_assert(same<decltype((-g) * x), Binary<mult_op, decltype(-g), X>> ||
              same<decltype((-g) * x), Binary<mult_op, X, decltype(-g)>>);

// exp(a) exp(b) = exp(a + b); log(exp(a)) = a; exp(0) = 1.
static_assert(same<decltype(exp(x) * exp(y)), Unary<exp_op, decltype(x + y)>>);
static_assert(same<decltype(log(exp(x))), X>);
static_assert(same<decltype(exp(zero<1>)), IntConst<1>>);

// sum of a dim-1 formula is the formula; sum(0) = 0; dot of a dim-1 pair is the product.
static_assert(same<decltype(sum(b)), B>);
static_assert(same<decltype(sum(zero<4>)), Zero<1>>);
static_assert(same<decltype(sqnorm2(b)), Unary<square_op, B>>);
static_assert(same<decltype(sum(-x)), decltype(-sum(x))>);

// A sum_reduction of zero is a zero reduction that does no work.
static_assert(decltype(sum_reduction(zero<2>, axis_j))::no_work);
static_assert(decltype(sum_reduction(x * zero<1>, axis_j))::no_work);
static_assert(!decltype(sum_reduction(x, axis_j))::no_work);
static_assert(!decltype(min_reduction(zero<2>, axis_j))::no_work);

// The gradient of the Gaussian sum w.r.t. x simplifies to the compact form
// 2 (x - y) sum_t<3>(e b exp(r^2 (-g)) (-g)) -- exp(-g r^2) appears once, and
// -g (invariant) is computed once per call.
constexpr auto e = vi<4, 1>;
constexpr auto conv = sum_reduction(exp(-g * sqdist(x, y)) * b, axis_j);
using K = decltype(exp(-g * sqdist(x, y)));
using GradX = decltype(cst<2> * ((x - y) * sum_t<3>(((e * b) * K{}) * (-g))));
static_assert(same<decltype(grad(exp(-g * sqdist(x, y)) * b, x, e)), GradX>);
static_assert(same<decltype(grad(conv, x, e)), Reduction<sum_op, GradX, axis_tag<1>, 5>>);
// w.r.t. y it is the same up to the sign, reduced over i.
static_assert(same<decltype(grad(conv, y, e))::formula, decltype(cst<-2> * ((x - y) * sum_t<3>(((e * b) * K{}) * (-g))))>);
static_assert(decltype(grad(conv, y, e))::row_cat == category::j);
// A variable the formula does not read has a zero gradient.
static_assert(same<decltype(grad(exp(x), y, vi<4, 3>)), Zero<3>>);
static_assert(decltype(grad(conv, vi<7, 2>, e))::no_work);
} // namespace
