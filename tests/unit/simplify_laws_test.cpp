// Laws of the simplifier: every rewrite a builder applies (the "Simplifications"
// of each op's doc comment, one `if constexpr` branch each) keeps the formula's
// values. For each rule, the RAW node (the formula without that rewrite, built
// directly as a type, with operands that trigger the rule) is compared with
// what the builder returns for the same operands:
//
//   law(Binary<mult_op, Unary<exp_op, X>, Unary<exp_op, Y>>{}, Unary<exp_op, X>{} * Unary<exp_op, Y>{})
//     static_assert: the builder's result is not the raw node (the rule fired,
//                    so the test does not compare a formula with itself);
//     values: both evaluated at one (i, j) pair by the reference context of the
//             tests (tests/common/reference.hpp: double, kops::scalar_math) on
//             8 seeded draws of every argument, 2 of them with exact zeros
//             where the domain allows; |simplified - raw| <= rel (|raw| + floor).
//
// The other tests evaluate the simplified formula only, so a rewrite that keeps
// the types consistent but changes the value is caught here. The rewrites of
// lowering are laws too: the factorization (core/factorize.hpp), and the fast
// and scaled forms of exp (ops/exp.hpp, applied by lowering/lower.hpp).
// Compositions without rules of their own (dot, sqdist, normalize, ...) are
// checked where their operands' rules fire inside them.
#include "../common/reference.hpp"
#include "../common/support.hpp"

#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include <kops/kops.hpp>

namespace {

using namespace kops;

// The arguments: index, category, dim (every draw fills maxdim values of each).
using X = Var<category::i, 0, 3>;      // vectors
using Y = Var<category::j, 1, 3>;
using U = Var<category::i, 11, 3>;
using B = Var<category::j, 2, 1>;      // scalars
using S = Var<category::i, 3, 1>;
using G = Var<category::param, 4, 1>;  // invariants: scalar parameters
using H = Var<category::param, 5, 1>;
using P = Var<category::param, 6, 3>;  // a vector parameter
using M = Var<category::j, 7, 6>;      // a 2 x 3 matrix, or 3 complex numbers
using Z = Var<category::i, 8, 4>;      // 2 complex numbers
using W = Var<category::j, 9, 2>;      // a 2-vector, or one complex number
using Q = Var<category::j, 10, 9>;     // a 3 x 3 matrix
constexpr int nargs = 12, maxdim = 9;
constexpr X x;
constexpr Y y;
constexpr U u;
constexpr B b;
constexpr S s;
constexpr G g;
constexpr H h;
constexpr P p;
constexpr M m;
constexpr Z z;
constexpr W w;
constexpr Q q;

// Raw nodes, spelled short.
template <class A> using Neg = Unary<minus_op, A>;
template <class A> using Exp = Unary<exp_op, A>;
template <class A, class C> using Add = Binary<add_op, A, C>;
template <class A, class C> using Sub = Binary<subtract_op, A, C>;
template <class A, class C> using Mul = Binary<mult_op, A, C>;
template <class A, class C> using Div = Binary<divide_op, A, C>;
template <long long N, long long D> using R = Rational<N, D>;
template <long long N> using C = IntConst<N>;
// A commutative node with its operands the other way round.
template <class F> using swapped_t = rebind_t<F, type_list<operand_t<F, 1>, operand_t<F, 0>>>;

// Where the arguments' values are drawn.
struct domain {
  double lo, hi;
  bool zeros;  // the last draws set every third value to exactly 0
};
constexpr domain reals{-2, 2, true};
constexpr domain nonzero{-2, 2, false};  // zero-crossing, never exactly 0 (divisors)
constexpr domain small{-1, 1, true};
constexpr domain unit{-0.95, 0.95, true};  // inside asin's domain

// |simplified - raw| <= rel (|raw| + floor): relative, with an absolute floor
// near 0 (a rewrite may move a cancellation, e.g. a b + a c = a (b + c)).
struct tol {
  double rel, floor;
};
constexpr tol exact{1e-12, 1};

constexpr int draws = 8, draws_with_zeros = 2;

struct draw_data {
  std::vector<std::vector<double>> values;
  std::vector<const double*> ptrs;
};

draw_data make_draw(int d, domain dom) {
  draw_data r;
  for (int a = 0; a < nargs; ++a) {
    auto v = kops_test::random_vector<double>(maxdim, dom.lo, dom.hi, 1000u * unsigned(d) + unsigned(a) + 17u);
    if (dom.zeros && d >= draws - draws_with_zeros)
      for (int k = (a + d) % 3; k < maxdim; k += 3) v[std::size_t(k)] = 0;
    r.values.push_back(std::move(v));
  }
  for (const auto& v : r.values) r.ptrs.push_back(v.data());
  return r;
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// One draw of one law, component by component.
void compare(const std::string& raw, const std::string& simplified, int draw, const double* r, const double* s,
             int dim, tol t) {
  for (int k = 0; k < dim; ++k) {
    INFO("draw " << draw << ", component " << k << " of " << dim);
    INFO("raw        " << raw << " = " << num(r[k]));
    INFO("simplified " << simplified << " = " << num(s[k]));
    CHECK(kops_test::close(s[k], r[k], t.rel, t.floor));
  }
}

// kops::scalar_math with the exp_scaled that some backends' math providers
// have (exp_scaled(a, b) = e^(a b), ops/exp.hpp), here with the product
// rounded: the laws of the scaled form check its operands and signs, not a
// backend's unrounded product (tests/unit/scaled_exp_test.cpp does).
struct scaled_math : kops::scalar_math {
  template <class T> static T exp_scaled(T a, T b) { return kops::scalar_math::exp(a * b); }
};
struct scaled_context : kops_test::reference_context<double> {
  using math = scaled_math;
};
// A backend target whose math provider has exp_scaled (lowering/lower.hpp).
struct scaled_target {
  static constexpr bool exp_scaled = true;
};

// The law raw == simplified, where simplified is what a builder returned for
// raw's operands. Ctx: the reference context of the tests, or one derived from
// it with another math provider.
template <class Ctx = kops_test::reference_context<double>, Formula Raw, Formula Simplified>
void law(Raw, Simplified, domain dom = reals, tol t = exact) {
  static_assert(!std::is_same_v<Raw, Simplified>,
                "simplify_laws: the builder returned the raw node, so the rule did not fire");
  static_assert(Raw::dim == Simplified::dim, "simplify_laws: a rewrite changed the dim");
  static_assert(max_index<Raw>() < nargs && max_index<Simplified>() < nargs, "simplify_laws: argument index");
  const std::string raw_s = kops::to_string(Raw{}), simplified_s = kops::to_string(Simplified{});
  for (int d = 0; d < draws; ++d) {
    const draw_data data = make_draw(d, dom);
    Ctx ctx{};
    ctx.args = data.ptrs.data();
    ctx.i = ctx.j = 0;
    const auto r = Raw::eval(ctx);
    const auto v = Simplified::eval(ctx);
    compare(raw_s, simplified_s, d, r.v, v.v, Raw::dim, t);
  }
}

} // namespace

TEST_CASE("simplify laws: mult", "[simplify_laws]") {
  SECTION("mult: 0 b = 0, b 0 = 0") {
    law(Mul<Zero<1>, X>{}, zero<1> * x);
    law(Mul<X, C<0>>{}, x * cst<0>);
    law(Mul<S, Zero<3>>{}, s * zero<3>);
  }
  SECTION("mult: 1 b = b, b 1 = b") {
    law(Mul<C<1>, X>{}, cst<1> * x);
    law(Mul<X, C<1>>{}, x * cst<1>);
  }
  SECTION("mult: constants fold exactly") {
    law(Mul<C<2>, C<-3>>{}, cst<2> * cst<-3>);
    law(Mul<R<1, 2>, R<2, 3>>{}, R<1, 2>{} * R<2, 3>{});
    law(Mul<C<2>, R<1, 3>>{}, cst<2> * R<1, 3>{});
    law(Mul<R<3, 2>, C<2>>{}, R<3, 2>{} * cst<2>);
  }
  SECTION("mult: a c = c a for a constant c (constants first)") {
    law(Mul<X, C<3>>{}, x * cst<3>);
    law(Mul<X, R<-1, 3>>{}, x * R<-1, 3>{});
  }
  SECTION("mult: c (d a) = (c d) a") {
    law(Mul<C<2>, Mul<C<3>, X>>{}, cst<2> * Mul<C<3>, X>{});
    law(Mul<R<1, 2>, Mul<C<4>, Y>>{}, R<1, 2>{} * Mul<C<4>, Y>{});
    law(Mul<C<-1>, Mul<C<-1>, X>>{}, cst<-1> * Mul<C<-1>, X>{});
  }
  SECTION("mult: (-1) b = -b") {
    law(Mul<C<-1>, X>{}, cst<-1> * x);
    law(Mul<C<-1>, G>{}, cst<-1> * g);
  }
  SECTION("mult: (-a) g = a (-g) for an invariant g") {
    law(Mul<Neg<X>, G>{}, Neg<X>{} * g);
    law(Mul<Neg<X>, P>{}, Neg<X>{} * p);
    law(Mul<Neg<S>, Mul<C<2>, G>>{}, Neg<S>{} * Mul<C<2>, G>{});
    law(Mul<Neg<S>, Exp<H>>{}, Neg<S>{} * Exp<H>{});
  }
  SECTION("mult: g (-a) = (-g) a for an invariant g") {
    law(Mul<G, Neg<X>>{}, g * Neg<X>{});
    law(Mul<P, Neg<S>>{}, p * Neg<S>{});
  }
  SECTION("mult: (-a) b = -(a b), a (-b) = -(a b)") {
    law(Mul<Neg<X>, Y>{}, Neg<X>{} * y);
    law(Mul<X, Neg<Y>>{}, x * Neg<Y>{});
    law(Mul<Neg<X>, Neg<B>>{}, Neg<X>{} * Neg<B>{});
  }
  SECTION("mult: (a g) h = a (g h) for invariants g, h") {
    law(Mul<Mul<X, G>, H>{}, Mul<X, G>{} * h);
    law(Mul<Mul<X, P>, G>{}, Mul<X, P>{} * g);
    law(Mul<Mul<S, G>, Mul<C<2>, H>>{}, Mul<S, G>{} * Mul<C<2>, H>{});
    law(Mul<Mul<S, G>, Exp<H>>{}, Mul<S, G>{} * Exp<H>{});
  }
  SECTION("mult: (g a) h = a (g h) for invariants g, h") {
    law(Mul<Mul<G, X>, H>{}, Mul<G, X>{} * h);
    law(Mul<Mul<P, S>, G>{}, Mul<P, S>{} * g);
  }
  SECTION("mult: h (a g) = a (g h) for invariants g, h") {
    law(Mul<H, Mul<X, G>>{}, h * Mul<X, G>{});
  }
  SECTION("mult: h (g a) = a (g h) for invariants g, h") {
    law(Mul<H, Mul<G, X>>{}, h * Mul<G, X>{});
    law(Mul<P, Mul<G, S>>{}, p * Mul<G, S>{});
  }
  SECTION("mult: a a = square(a)") {
    law(Mul<X, X>{}, x * x);
    law(Mul<Exp<S>, Exp<S>>{}, Exp<S>{} * Exp<S>{});
    law(Mul<G, G>{}, g * g);
  }
  SECTION("mult: exp(a) exp(b) = exp(a + b)") {
    law(Mul<Exp<X>, Exp<Y>>{}, Exp<X>{} * Exp<Y>{});
    law(Mul<Exp<X>, Exp<B>>{}, Exp<X>{} * Exp<B>{});
    law(Mul<Exp<S>, Exp<G>>{}, Exp<S>{} * Exp<G>{});
    law(Mul<Exp<Neg<X>>, Exp<Y>>{}, Exp<Neg<X>>{} * Exp<Y>{});
  }
  SECTION("mult: canonical operand order") {
    using XY = decltype(x * y);
    law(swapped_t<XY>{}, operand_t<XY, 1>{} * operand_t<XY, 0>{});
    using GS = decltype(g * s);
    law(swapped_t<GS>{}, operand_t<GS, 1>{} * operand_t<GS, 0>{});
  }
}

TEST_CASE("simplify laws: add", "[simplify_laws]") {
  SECTION("add: 0 + b = b, b + 0 = b") {
    law(Add<Zero<3>, X>{}, zero<3> + x);
    law(Add<X, Zero<3>>{}, x + zero<3>);
    law(Add<C<0>, S>{}, cst<0> + s);
  }
  SECTION("add: constants fold exactly") {
    law(Add<C<2>, C<3>>{}, cst<2> + cst<3>);
    law(Add<R<1, 3>, R<1, 6>>{}, R<1, 3>{} + R<1, 6>{});
    law(Add<R<1, 2>, C<-1>>{}, R<1, 2>{} + cst<-1>);
    law(Add<R<1, 2>, R<-1, 2>>{}, R<1, 2>{} + R<-1, 2>{});
  }
  SECTION("add: a + a = 2 a") {
    law(Add<X, X>{}, x + x);
    law(Add<Exp<S>, Exp<S>>{}, Exp<S>{} + Exp<S>{});
  }
  SECTION("add: a + (-b) = a - b") {
    law(Add<X, Neg<Y>>{}, x + Neg<Y>{});
    law(Add<X, Neg<B>>{}, x + Neg<B>{});
  }
  SECTION("add: (-a) + b = b - a") {
    law(Add<Neg<X>, Y>{}, Neg<X>{} + y);
    law(Add<Neg<S>, G>{}, Neg<S>{} + g);
  }
  SECTION("add: c a + d a = (c + d) a") {
    law(Add<Mul<C<2>, X>, Mul<R<1, 2>, X>>{}, Mul<C<2>, X>{} + Mul<R<1, 2>, X>{});
    law(Add<Mul<C<2>, X>, Mul<C<-2>, X>>{}, Mul<C<2>, X>{} + Mul<C<-2>, X>{});
  }
  SECTION("add: a + c a = (1 + c) a") {
    law(Add<X, Mul<C<3>, X>>{}, x + Mul<C<3>, X>{});
  }
  SECTION("add: c a + a = (c + 1) a") {
    law(Add<Mul<R<-1, 2>, X>, X>{}, Mul<R<-1, 2>, X>{} + x);
  }
  SECTION("add: a b + a c = a (b + c), the common factor in each position") {
    law(Add<Mul<X, Y>, Mul<X, B>>{}, Mul<X, Y>{} + Mul<X, B>{});
    law(Add<Mul<Y, X>, Mul<B, X>>{}, Mul<Y, X>{} + Mul<B, X>{});
    law(Add<Mul<X, Y>, Mul<B, X>>{}, Mul<X, Y>{} + Mul<B, X>{});
    law(Add<Mul<Y, X>, Mul<X, B>>{}, Mul<Y, X>{} + Mul<X, B>{});
    law(Add<Mul<G, X>, Mul<G, Y>>{}, Mul<G, X>{} + Mul<G, Y>{});
  }
  SECTION("add: canonical operand order") {
    using XY = decltype(x + y);
    law(swapped_t<XY>{}, operand_t<XY, 1>{} + operand_t<XY, 0>{});
    using GS = decltype(s + g);
    law(swapped_t<GS>{}, operand_t<GS, 1>{} + operand_t<GS, 0>{});
  }
}

TEST_CASE("simplify laws: subtract and minus", "[simplify_laws]") {
  SECTION("subtract: a - 0 = a") {
    law(Sub<X, Zero<3>>{}, x - zero<3>);
    law(Sub<S, C<0>>{}, s - cst<0>);
  }
  SECTION("subtract: 0 - b = -b") {
    law(Sub<Zero<3>, X>{}, zero<3> - x);
  }
  SECTION("subtract: a - a = 0") {
    law(Sub<X, X>{}, x - x);
    law(Sub<Exp<S>, Exp<S>>{}, Exp<S>{} - Exp<S>{});
  }
  SECTION("subtract: constants fold exactly") {
    law(Sub<R<1, 2>, C<3>>{}, R<1, 2>{} - cst<3>);
    law(Sub<C<2>, C<5>>{}, cst<2> - cst<5>);
    law(Sub<R<1, 3>, R<1, 6>>{}, R<1, 3>{} - R<1, 6>{});
  }
  SECTION("subtract: a - (-b) = a + b") {
    law(Sub<X, Neg<Y>>{}, x - Neg<Y>{});
  }
  SECTION("subtract: c a - d a = (c - d) a") {
    law(Sub<Mul<C<3>, X>, Mul<R<1, 2>, X>>{}, Mul<C<3>, X>{} - Mul<R<1, 2>, X>{});
  }
  SECTION("subtract: c a - a = (c - 1) a") {
    law(Sub<Mul<C<3>, X>, X>{}, Mul<C<3>, X>{} - x);
  }
  SECTION("subtract: a - c a = (1 - c) a") {
    law(Sub<X, Mul<R<1, 3>, X>>{}, x - Mul<R<1, 3>, X>{});
  }
  SECTION("minus: -0 = 0") {
    law(Neg<Zero<3>>{}, -zero<3>);
  }
  SECTION("minus: -c folds") {
    law(Neg<C<3>>{}, -cst<3>);
    law(Neg<R<1, 3>>{}, -R<1, 3>{});
  }
  SECTION("minus: -(-a) = a") {
    law(Neg<Neg<X>>{}, -Neg<X>{});
  }
  SECTION("minus: -(c a) = (-c) a") {
    law(Neg<Mul<C<2>, X>>{}, -Mul<C<2>, X>{});
    law(Neg<Mul<R<-1, 3>, X>>{}, -Mul<R<-1, 3>, X>{});
  }
  SECTION("minus: -(a - b) = b - a") {
    law(Neg<Sub<X, Y>>{}, -Sub<X, Y>{});
  }
}

TEST_CASE("simplify laws: divide", "[simplify_laws]") {
  SECTION("divide: 0 / b = 0") {
    law(Div<Zero<3>, X>{}, zero<3> / x, nonzero);
    law(Div<C<0>, S>{}, cst<0> / s, nonzero);
  }
  SECTION("divide: a / 1 = a") {
    law(Div<X, C<1>>{}, x / cst<1>);
  }
  SECTION("divide: constants fold to exact rationals") {
    law(Div<C<6>, C<-4>>{}, cst<6> / cst<-4>);
    law(Div<C<2>, C<4>>{}, cst<2> / cst<4>);
    law(Div<C<4>, C<2>>{}, cst<4> / cst<2>);
    law(Div<R<1, 3>, R<2, 9>>{}, R<1, 3>{} / R<2, 9>{});
  }
  SECTION("divide: a / c = (1/c) a") {
    law(Div<X, C<3>>{}, x / cst<3>);
    law(Div<X, R<2, 3>>{}, x / R<2, 3>{});
    law(Div<X, C<-1>>{}, x / cst<-1>);
  }
  SECTION("divide: (-a) / b = -(a / b)") {
    law(Div<Neg<X>, Y>{}, Neg<X>{} / y);
    law(Div<Neg<S>, G>{}, Neg<S>{} / g);
  }
}

TEST_CASE("simplify laws: exp, exp2, log, pow, square, sqrt, rsqrt, inv", "[simplify_laws]") {
  SECTION("exp: exp(0) = 1") {
    law(Exp<Zero<1>>{}, exp(zero<1>));
    law(Exp<C<0>>{}, exp(cst<0>));
  }
  SECTION("exp2: exp2(0) = 1") {
    law(Unary<exp2_op, Zero<1>>{}, exp2(zero<1>));
  }
  SECTION("log: log(1) = 0") {
    law(Unary<log_op, C<1>>{}, log(cst<1>));
  }
  SECTION("log: log(exp a) = a") {
    law(Unary<log_op, Exp<X>>{}, log(Exp<X>{}));
  }
  SECTION("pow: pow<0>(a) = 1") {
    law(Unary<pow_op<0>, S>{}, pow<0>(s));
  }
  SECTION("pow: pow<1>(a) = a") {
    law(Unary<pow_op<1>, X>{}, pow<1>(x));
  }
  SECTION("pow: pow<2>(a) = square(a)") {
    law(Unary<pow_op<2>, X>{}, pow<2>(x));
  }
  SECTION("pow: pow<-1>(a) = inv(a)") {
    law(Unary<pow_op<-1>, X>{}, pow<-1>(x));
  }
  SECTION("pow: constants fold") {
    law(Unary<pow_op<3>, R<2, 3>>{}, pow<3>(R<2, 3>{}));
    law(Unary<pow_op<5>, C<-2>>{}, pow<5>(cst<-2>));
  }
  SECTION("square: square(0) = 0") {
    law(Unary<square_op, Zero<3>>{}, square(zero<3>));
  }
  SECTION("square: constants fold") {
    law(Unary<square_op, R<-1, 3>>{}, square(R<-1, 3>{}));
    law(Unary<square_op, C<-4>>{}, square(cst<-4>));
  }
  SECTION("square: square(-a) = square(a)") {
    law(Unary<square_op, Neg<X>>{}, square(Neg<X>{}));
  }
  SECTION("sqrt: sqrt(0) = 0, sqrt(1) = 1") {
    law(Unary<sqrt_op, Zero<3>>{}, sqrt(zero<3>));
    law(Unary<sqrt_op, C<1>>{}, sqrt(cst<1>));
  }
  SECTION("rsqrt: rsqrt(0) = 0, rsqrt(1) = 1") {
    law(Unary<rsqrt_op, Zero<3>>{}, rsqrt(zero<3>));
    law(Unary<rsqrt_op, C<1>>{}, rsqrt(cst<1>));
  }
  SECTION("inv: constants fold to exact rationals") {
    law(Unary<inv_op, C<4>>{}, inv(cst<4>));
    law(Unary<inv_op, R<-2, 3>>{}, inv(R<-2, 3>{}));
  }
  SECTION("inv: inv(inv a) = a") {
    law(Unary<inv_op, Unary<inv_op, X>>{}, inv(Unary<inv_op, X>{}));
  }
}

TEST_CASE("simplify laws: sum, sum_t and the compositions over them", "[simplify_laws]") {
  SECTION("sum: sum of a dim-1 formula is the formula") {
    law(Sum<B>{}, sum(b));
  }
  SECTION("sum: sum(0) = 0") {
    law(Sum<Zero<4>>{}, sum(zero<4>));
  }
  SECTION("sum: sum(-a) = -sum(a)") {
    law(Sum<Neg<X>>{}, sum(Neg<X>{}));
  }
  SECTION("sum_t: sum_t<1>(a) = a") {
    law(SumT<1, B>{}, sum_t<1>(b));
  }
  SECTION("sum_t: sum_t(0) = 0") {
    law(SumT<3, Zero<1>>{}, sum_t<3>(zero<1>));
  }
  SECTION("sum_t: sum_t(-a) = -sum_t(a)") {
    law(SumT<3, Neg<B>>{}, sum_t<3>(Neg<B>{}));
  }
  SECTION("dot: dot(a, a) = sqnorm2(a); dim-1 operands give their product") {
    law(Sum<Mul<X, X>>{}, dot(x, x));
    law(Sum<Mul<S, B>>{}, dot(s, b));
  }
  SECTION("sqnorm2: sqnorm2(-a) = sqnorm2(a); dim 1 is square") {
    law(Sum<Unary<square_op, Neg<X>>>{}, sqnorm2(Neg<X>{}));
    law(Sum<Unary<square_op, B>>{}, sqnorm2(b));
  }
  SECTION("sqdist: sqdist(a, a) = 0, sqdist(a, 0) = sqnorm2(a)") {
    law(Sum<Unary<square_op, Sub<X, X>>>{}, sqdist(x, x));
    law(Sum<Unary<square_op, Sub<X, Zero<3>>>>{}, sqdist(x, zero<3>));
  }
  SECTION("norm2: norm2(0) = 0, norm2(-a) = norm2(a)") {
    law(Unary<sqrt_op, Sum<Unary<square_op, Zero<3>>>>{}, norm2(zero<3>));
    law(Unary<sqrt_op, Sum<Unary<square_op, Neg<X>>>>{}, norm2(Neg<X>{}));
  }
  SECTION("normalize: normalize(0) = 0, normalize(-a) = -normalize(a)") {
    law(Mul<Unary<rsqrt_op, Sum<Unary<square_op, Zero<3>>>>, Zero<3>>{}, normalize(zero<3>));
    law(Mul<Unary<rsqrt_op, Sum<Unary<square_op, Neg<X>>>>, Neg<X>>{}, normalize(Neg<X>{}));
  }
  SECTION("weighted_sqnorm: full s, a^T s a = sum(s tensorprod(a, a)) (KeOps' form)") {
    law(Sum<Mul<Q, TensorProd<X, X>>>{}, weighted_sqnorm(q, x));
    law(Sum<Mul<Q, TensorProd<Sub<X, Y>, Sub<X, Y>>>>{}, weighted_sqdist(q, x, y));
  }
}

TEST_CASE("simplify laws: elementary functions", "[simplify_laws]") {
  SECTION("abs: abs(0) = 0") {
    law(Unary<abs_op, Zero<3>>{}, abs(zero<3>));
  }
  SECTION("abs: abs(-a) = abs(a)") {
    law(Unary<abs_op, Neg<X>>{}, abs(Neg<X>{}));
  }
  SECTION("asin: asin(0) = 0") {
    law(Unary<asin_op, Zero<3>>{}, asin(zero<3>));
  }
  SECTION("asin: asin(-a) = -asin(a)") {
    law(Unary<asin_op, Neg<X>>{}, asin(Neg<X>{}), unit);
  }
  SECTION("atan: atan(0) = 0") {
    law(Unary<atan_op, Zero<3>>{}, atan(zero<3>));
  }
  SECTION("atan: atan(-a) = -atan(a)") {
    law(Unary<atan_op, Neg<X>>{}, atan(Neg<X>{}));
  }
  SECTION("atan2: atan2(-y, x) = -atan2(y, x)") {
    law(Binary<atan2_op, Neg<X>, Y>{}, atan2(Neg<X>{}, y));
    law(Binary<atan2_op, Neg<B>, X>{}, atan2(Neg<B>{}, x));
  }
  SECTION("sin: sin(0) = 0") {
    law(Unary<sin_op, Zero<3>>{}, sin(zero<3>));
  }
  SECTION("sin: sin(-a) = -sin(a)") {
    law(Unary<sin_op, Neg<X>>{}, sin(Neg<X>{}));
  }
  SECTION("cos: cos(-a) = cos(a)") {
    law(Unary<cos_op, Neg<X>>{}, cos(Neg<X>{}));
  }
  SECTION("sinxdivx: sinxdivx(0) = 1") {
    law(Unary<sinxdivx_op, Zero<1>>{}, sinxdivx(zero<1>));
  }
  SECTION("sinxdivx: sinxdivx(-a) = sinxdivx(a)") {
    law(Unary<sinxdivx_op, Neg<X>>{}, sinxdivx(Neg<X>{}));
  }
  SECTION("xlogx: xlogx(0) = 0, xlogx(1) = 0") {
    law(Unary<xlogx_op, Zero<3>>{}, xlogx(zero<3>));
    law(Unary<xlogx_op, C<1>>{}, xlogx(cst<1>));
  }
  SECTION("sign: sign(0) = 0") {
    law(Unary<sign_op, Zero<3>>{}, sign(zero<3>));
  }
  SECTION("step: constants fold (step(0) = 1)") {
    law(Unary<step_op, R<-1, 2>>{}, step(R<-1, 2>{}));
    law(Unary<step_op, Zero<1>>{}, step(zero<1>));
    law(Unary<step_op, C<3>>{}, step(cst<3>));
  }
  SECTION("relu: relu(0) = 0") {
    law(Unary<relu_op, Zero<3>>{}, relu(zero<3>));
  }
  SECTION("relu: constants fold") {
    law(Unary<relu_op, C<-2>>{}, relu(cst<-2>));
    law(Unary<relu_op, R<3, 2>>{}, relu(R<3, 2>{}));
  }
  SECTION("floor: floor(0) = 0") {
    law(Unary<floor_op, Zero<3>>{}, floor(zero<3>));
  }
  SECTION("floor: constants fold exactly") {
    law(Unary<floor_op, R<-7, 2>>{}, floor(R<-7, 2>{}));
    law(Unary<floor_op, R<7, 2>>{}, floor(R<7, 2>{}));
    law(Unary<floor_op, C<-3>>{}, floor(cst<-3>));
  }
  SECTION("floor: floor(floor a) = floor(a)") {
    law(Unary<floor_op, Unary<floor_op, X>>{}, floor(Unary<floor_op, X>{}));
  }
  SECTION("round: round<d>(0) = 0") {
    law(Unary<round_op<2>, Zero<3>>{}, round<2>(zero<3>));
  }
  SECTION("round: an integer constant is unchanged for d >= 0") {
    law(Unary<round_op<1>, C<-3>>{}, round<1>(cst<-3>));
    law(Unary<round_op<0>, C<5>>{}, round(cst<5>));
  }
  SECTION("powf: an integer constant exponent n gives pow<n>") {
    law(Binary<powf_op, X, C<3>>{}, powf(x, cst<3>));
    law(Binary<powf_op, X, C<-2>>{}, powf(x, cst<-2>));
    law(Binary<powf_op, X, C<2>>{}, powf(x, cst<2>));
    law(Binary<powf_op, X, Zero<1>>{}, powf(x, zero<1>));
  }
  SECTION("powf: powf(1, b) = 1 for a dim-1 b") {
    law(Binary<powf_op, C<1>, B>{}, powf(cst<1>, b));
  }
}

TEST_CASE("simplify laws: clamp, comparisons, ifelse, extremum, one_hot", "[simplify_laws]") {
  SECTION("clamp: integer constant bounds a <= b give clampint<a, b>") {
    law(Ternary<clamp_op, X, C<-1>, C<1>>{}, clamp(x, cst<-1>, cst<1>));
    law(Ternary<clamp_op, X, Zero<1>, C<2>>{}, clamp(x, zero<1>, cst<2>));
  }
  SECTION("clampint: constants fold") {
    law(Unary<clampint_op<-1, 1>, C<3>>{}, clampint<-1, 1>(cst<3>));
    law(Unary<clampint_op<-1, 1>, C<-5>>{}, clampint<-1, 1>(cst<-5>));
    law(Unary<clampint_op<-1, 1>, R<1, 2>>{}, clampint<-1, 1>(R<1, 2>{}));
  }
  SECTION("comparisons: two constants fold to 0 or 1") {
    law(Binary<equal_op, R<1, 2>, R<1, 2>>{}, equal(R<1, 2>{}, R<1, 2>{}));
    law(Binary<equal_op, R<1, 3>, R<1, 2>>{}, equal(R<1, 3>{}, R<1, 2>{}));
    law(Binary<not_equal_op, C<2>, R<1, 2>>{}, not_equal(cst<2>, R<1, 2>{}));
    law(Binary<less_than_op, R<1, 3>, R<1, 2>>{}, less_than(R<1, 3>{}, R<1, 2>{}));
    law(Binary<less_or_equal_op, C<2>, R<3, 2>>{}, less_or_equal(cst<2>, R<3, 2>{}));
    law(Binary<less_or_equal_op, C<2>, C<2>>{}, less_or_equal(cst<2>, cst<2>));
  }
  SECTION("ifelse: ifelse(c, a, a) = a") {
    law(Ternary<ifelse_op, S, X, X>{}, ifelse(s, x, x));
  }
  SECTION("ifelse: ifelse(c, 0, 0) = 0") {
    law(Ternary<ifelse_op, X, Zero<1>, Zero<3>>{}, ifelse(x, zero<1>, zero<3>));
  }
  SECTION("ifelse: a constant c >= 0 picks a, c < 0 picks b") {
    law(Ternary<ifelse_op, C<2>, X, Y>{}, ifelse(cst<2>, x, y));
    law(Ternary<ifelse_op, Zero<1>, X, Y>{}, ifelse(zero<1>, x, y));
    law(Ternary<ifelse_op, R<-1, 2>, X, Y>{}, ifelse(R<-1, 2>{}, x, y));
  }
  SECTION("max, min: a dim-1 operand is its own extremum") {
    law(Extremum<true, false, B>{}, max(b));
    law(Extremum<false, false, B>{}, min(b));
  }
  SECTION("argmax, argmin: of a dim-1 operand is 0") {
    law(Extremum<true, true, B>{}, argmax(b));
    law(Extremum<false, true, B>{}, argmin(b));
  }
  SECTION("max, min, argmax, argmin: of zero are 0") {
    law(Extremum<true, false, Zero<3>>{}, max(zero<3>));
    law(Extremum<false, false, Zero<3>>{}, min(zero<3>));
    law(Extremum<true, true, Zero<3>>{}, argmax(zero<3>));
    law(Extremum<false, true, Zero<3>>{}, argmin(zero<3>));
  }
  SECTION("max, min: of sum_t(a) are a; argmax, argmin: 0") {
    law(Extremum<true, false, SumT<3, B>>{}, max(SumT<3, B>{}));
    law(Extremum<false, false, SumT<3, B>>{}, min(SumT<3, B>{}));
    law(Extremum<true, true, SumT<3, B>>{}, argmax(SumT<3, B>{}));
    law(Extremum<false, true, SumT<3, B>>{}, argmin(SumT<3, B>{}));
  }
  SECTION("max(-a) = -min(a), min(-a) = -max(a)") {
    law(Extremum<true, false, Neg<X>>{}, max(Neg<X>{}));
    law(Extremum<false, false, Neg<X>>{}, min(Neg<X>{}));
  }
  SECTION("argmax(-a) = argmin(a), argmin(-a) = argmax(a)") {
    law(Extremum<true, true, Neg<X>>{}, argmax(Neg<X>{}));
    law(Extremum<false, true, Neg<X>>{}, argmin(Neg<X>{}));
  }
  SECTION("one_hot: a constant index folds to elem_t<D, k>(1) or zero<D>") {
    law(OneHot<4, C<2>>{}, one_hot<4>(cst<2>));
    law(OneHot<4, Zero<1>>{}, one_hot<4>(zero<1>));
    law(OneHot<4, R<3, 2>>{}, one_hot<4>(R<3, 2>{}));
    law(OneHot<4, R<-1, 2>>{}, one_hot<4>(R<-1, 2>{}));
    law(OneHot<4, R<-3, 2>>{}, one_hot<4>(R<-3, 2>{}));
    law(OneHot<4, C<7>>{}, one_hot<4>(cst<7>));
  }
}

TEST_CASE("simplify laws: extract, matvecmult, vecmatmult, tensorprod, tensordot, kron", "[simplify_laws]") {
  SECTION("extract: the whole vector is itself") {
    law(Extract<0, 3, X>{}, extract<0, 3>(x));
    law(Extract<0, 1, B>{}, elem<0>(b));
  }
  SECTION("extract: zeros stay zeros") {
    law(Extract<1, 2, Zero<4>>{}, extract<1, 2>(zero<4>));
  }
  SECTION("extract: extract of extract_t at the same place is the operand") {
    law(Extract<1, 3, ExtractT<1, 5, X>>{}, extract<1, 3>(ExtractT<1, 5, X>{}));
    law(Extract<2, 1, ExtractT<2, 4, B>>{}, elem<2>(ExtractT<2, 4, B>{}));
  }
  SECTION("extract_t: the whole vector is itself") {
    law(ExtractT<0, 3, X>{}, extract_t<0, 3>(x));
    law(ExtractT<0, 1, B>{}, elem_t<1, 0>(b));
  }
  SECTION("extract_t: zeros stay zeros") {
    law(ExtractT<1, 4, Zero<2>>{}, extract_t<1, 4>(zero<2>));
  }
  SECTION("matvecmult: a zero operand gives zero") {
    law(MatVecMult<Zero<6>, X>{}, matvecmult(zero<6>, x));
    law(MatVecMult<M, Zero<3>>{}, matvecmult(m, zero<3>));
  }
  SECTION("matvecmult: dim b = 1 is a b") {
    law(MatVecMult<X, B>{}, matvecmult(x, b));
  }
  SECTION("matvecmult: n = 1 is dot(a, b)") {
    law(MatVecMult<Y, X>{}, matvecmult(y, x));
  }
  SECTION("vecmatmult: a zero operand gives zero") {
    law(VecMatMult<W, Zero<6>>{}, vecmatmult(w, zero<6>));
    law(VecMatMult<Zero<2>, M>{}, vecmatmult(zero<2>, m));
  }
  SECTION("vecmatmult: dim b = 1 is b a") {
    law(VecMatMult<B, X>{}, vecmatmult(b, x));
  }
  SECTION("vecmatmult: m = 1 is dot(b, a)") {
    law(VecMatMult<X, Y>{}, vecmatmult(x, y));
  }
  SECTION("tensorprod: a zero operand gives zero") {
    law(TensorProd<Zero<3>, W>{}, tensorprod(zero<3>, w));
    law(TensorProd<X, Zero<2>>{}, tensorprod(x, zero<2>));
  }
  SECTION("tensorprod: p = 1 or q = 1 is a b") {
    law(TensorProd<B, X>{}, tensorprod(b, x));
    law(TensorProd<X, B>{}, tensorprod(x, b));
  }
  SECTION("tensordot: a zero operand gives zero") {
    law(TensorDot<dims<2, 3>, dims<3>, axes<1>, axes<0>, void, Zero<6>, X>{},
        tensordot<dims<2, 3>, dims<3>, axes<1>, axes<0>>(zero<6>, x));
  }
  SECTION("tensordot: no contraction is tensorprod(a, b)") {
    law(TensorDot<dims<3>, dims<2>, axes<>, axes<>, void, X, W>{}, tensordot<dims<3>, dims<2>, axes<>, axes<>>(x, w));
  }
  SECTION("tensordot: (n).(n) is dot(a, b)") {
    law(TensorDot<dims<3>, dims<3>, axes<0>, axes<0>, void, X, Y>{}, tensordot<dims<3>, dims<3>, axes<0>, axes<0>>(x, y));
  }
  SECTION("tensordot: (n,m).(m) over (1),(0) is matvecmult(a, b)") {
    law(TensorDot<dims<2, 3>, dims<3>, axes<1>, axes<0>, void, M, X>{},
        tensordot<dims<2, 3>, dims<3>, axes<1>, axes<0>>(m, x));
  }
  SECTION("tensordot: (n,m).(n) over (0),(0) is vecmatmult(b, a)") {
    law(TensorDot<dims<2, 3>, dims<2>, axes<0>, axes<0>, void, M, W>{},
        tensordot<dims<2, 3>, dims<2>, axes<0>, axes<0>>(m, w));
  }
  SECTION("tensordot: (n).(n,m) over (0),(0) is vecmatmult(a, b)") {
    law(TensorDot<dims<2>, dims<2, 3>, axes<0>, axes<0>, void, W, M>{},
        tensordot<dims<2>, dims<2, 3>, axes<0>, axes<0>>(w, m));
  }
  SECTION("tensordot: (n).(m,n) over (0),(1) is matvecmult(b, a)") {
    law(TensorDot<dims<3>, dims<2, 3>, axes<0>, axes<1>, void, X, M>{},
        tensordot<dims<3>, dims<2, 3>, axes<0>, axes<1>>(x, m));
  }
  SECTION("tensordot: an identity permutation is dropped") {
    law(TensorDot<dims<2, 3>, dims<3, 3>, axes<1>, axes<0>, axes<0, 1>, M, Q>{},
        tensordot<dims<2, 3>, dims<3, 3>, axes<1>, axes<0>, axes<0, 1>>(m, q));
  }
  SECTION("kron: of two vectors is tensorprod(a, b)") {
    law(TensorDot<dims<3>, dims<2>, axes<>, axes<>, axes<0, 1>, X, W>{}, kron<dims<3>, dims<2>>(x, w));
  }
}

TEST_CASE("simplify laws: complex ops", "[simplify_laws]") {
  SECTION("real: real(0) = 0") {
    law(ComplexReal<Zero<4>>{}, real(zero<4>));
  }
  SECTION("real: real(real2complex a) = a, real(imag2complex a) = 0") {
    law(ComplexReal<Real2Complex<X>>{}, real(Real2Complex<X>{}));
    law(ComplexReal<Imag2Complex<X>>{}, real(Imag2Complex<X>{}));
  }
  SECTION("real: real(conj a) = real(a), real(-a) = -real(a)") {
    law(ComplexReal<Conj<Z>>{}, real(Conj<Z>{}));
    law(ComplexReal<Neg<Z>>{}, real(Neg<Z>{}));
  }
  SECTION("imag: imag(0) = 0") {
    law(ComplexImag<Zero<4>>{}, imag(zero<4>));
  }
  SECTION("imag: imag(imag2complex a) = a, imag(real2complex a) = 0") {
    law(ComplexImag<Imag2Complex<X>>{}, imag(Imag2Complex<X>{}));
    law(ComplexImag<Real2Complex<X>>{}, imag(Real2Complex<X>{}));
  }
  SECTION("imag: imag(conj a) = -imag(a), imag(-a) = -imag(a)") {
    law(ComplexImag<Conj<Z>>{}, imag(Conj<Z>{}));
    law(ComplexImag<Neg<Z>>{}, imag(Neg<Z>{}));
  }
  SECTION("real2complex: real2complex(0) = 0, real2complex(-a) = -real2complex(a)") {
    law(Real2Complex<Zero<3>>{}, real2complex(zero<3>));
    law(Real2Complex<Neg<X>>{}, real2complex(Neg<X>{}));
  }
  SECTION("imag2complex: imag2complex(0) = 0, imag2complex(-a) = -imag2complex(a)") {
    law(Imag2Complex<Zero<3>>{}, imag2complex(zero<3>));
    law(Imag2Complex<Neg<X>>{}, imag2complex(Neg<X>{}));
  }
  SECTION("conj: conj(0) = 0, conj(conj a) = a") {
    law(Conj<Zero<4>>{}, conj(zero<4>));
    law(Conj<Conj<Z>>{}, conj(Conj<Z>{}));
  }
  SECTION("conj: conj(real2complex a) = real2complex(a), conj(imag2complex a) = -imag2complex(a)") {
    law(Conj<Real2Complex<X>>{}, conj(Real2Complex<X>{}));
    law(Conj<Imag2Complex<X>>{}, conj(Imag2Complex<X>{}));
  }
  SECTION("conj: conj(-a) = -conj(a)") {
    law(Conj<Neg<Z>>{}, conj(Neg<Z>{}));
  }
  SECTION("complex_square_abs: of 0 is 0; |-a|^2 = |conj a|^2 = |a|^2") {
    law(ComplexSquareAbs<Zero<4>>{}, complex_square_abs(zero<4>));
    law(ComplexSquareAbs<Neg<Z>>{}, complex_square_abs(Neg<Z>{}));
    law(ComplexSquareAbs<Conj<Z>>{}, complex_square_abs(Conj<Z>{}));
  }
  SECTION("complex_square_abs: |real2complex a|^2 = |imag2complex a|^2 = square(a)") {
    law(ComplexSquareAbs<Real2Complex<X>>{}, complex_square_abs(Real2Complex<X>{}));
    law(ComplexSquareAbs<Imag2Complex<X>>{}, complex_square_abs(Imag2Complex<X>{}));
  }
  SECTION("complex_abs: |real2complex a| = |imag2complex a| = abs(a)") {
    law(Unary<sqrt_op, ComplexSquareAbs<Real2Complex<X>>>{}, complex_abs(Real2Complex<X>{}));
    law(Unary<sqrt_op, ComplexSquareAbs<Imag2Complex<X>>>{}, complex_abs(Imag2Complex<X>{}));
  }
  SECTION("complex_angle: angle(conj a) = -angle(a)") {
    law(Binary<atan2_op, ComplexImag<Conj<Z>>, ComplexReal<Conj<Z>>>{}, complex_angle(Conj<Z>{}));
  }
  SECTION("complex_sum: of a dim-2 formula is the formula; of 0 is 0; signs move out") {
    law(ComplexSum<W>{}, complex_sum(w));
    law(ComplexSum<Zero<4>>{}, complex_sum(zero<4>));
    law(ComplexSum<Neg<Z>>{}, complex_sum(Neg<Z>{}));
  }
  SECTION("complex_sum_t: complex_sum_t<2>(a) = a; of 0 is 0; signs move out") {
    law(ComplexSumT<2, W>{}, complex_sum_t<2>(w));
    law(ComplexSumT<4, Zero<2>>{}, complex_sum_t<4>(zero<2>));
    law(ComplexSumT<4, Neg<W>>{}, complex_sum_t<4>(Neg<W>{}));
  }
  SECTION("complex_mult: 0 b = 0") {
    law(ComplexMult<Zero<4>, Z>{}, complex_mult(zero<4>, z));
    law(ComplexMult<Z, Zero<2>>{}, complex_mult(z, zero<2>));
  }
  SECTION("complex_mult: real2complex(s) z = s z for a real scalar s") {
    law(ComplexMult<Real2Complex<B>, Z>{}, complex_mult(Real2Complex<B>{}, z));
    law(ComplexMult<Z, Real2Complex<G>>{}, complex_mult(z, Real2Complex<G>{}));
    law(ComplexMult<Real2Complex<Unary<inv_op, ComplexSquareAbs<W>>>, ComplexMult<Z, Conj<W>>>{},
        complex_divide(z, w), nonzero);
  }
  SECTION("complex_mult: real2complex(a) real2complex(b) = real2complex(a b)") {
    law(ComplexMult<Real2Complex<X>, Real2Complex<Y>>{}, complex_mult(Real2Complex<X>{}, Real2Complex<Y>{}));
  }
  SECTION("complex_mult: signs move out") {
    law(ComplexMult<Neg<Z>, W>{}, complex_mult(Neg<Z>{}, w));
    law(ComplexMult<Z, Neg<W>>{}, complex_mult(z, Neg<W>{}));
  }
  SECTION("complex_mult: canonical operand order") {
    using ZW = decltype(complex_mult(z, w));
    law(swapped_t<ZW>{}, complex_mult(operand_t<ZW, 1>{}, operand_t<ZW, 0>{}));
  }
  SECTION("complex_exp: complex_exp(0) = real2complex(1, ..., 1)") {
    law(ComplexExp<Zero<4>>{}, complex_exp(zero<4>));
  }
  SECTION("complex_exp: complex_exp(real2complex a) = real2complex(exp a)") {
    law(ComplexExp<Real2Complex<X>>{}, complex_exp(Real2Complex<X>{}));
  }
  SECTION("complex_exp: complex_exp(imag2complex a) = complex_exp1j(a)") {
    law(ComplexExp<Imag2Complex<X>>{}, complex_exp(Imag2Complex<X>{}));
  }
  SECTION("complex_exp1j: complex_exp1j(0) = real2complex(1, ..., 1)") {
    law(ComplexExp1j<Zero<3>>{}, complex_exp1j(zero<3>));
  }
  SECTION("complex_exp1j: complex_exp1j(-a) = conj(complex_exp1j(a))") {
    law(ComplexExp1j<Neg<X>>{}, complex_exp1j(Neg<X>{}));
  }
}

namespace {
constexpr auto gauss = exp(-cst<3> * sqdist(x, y));
// The Gaussian's Hessian-vector product: exp(-3 |x - y|^2) appears twice.
using Hessian = decltype(grad(grad(gauss, x, b), x, u));
} // namespace

TEST_CASE("simplify laws: factorization", "[simplify_laws]") {
  SECTION("factorize: k sin(k) + k, k read from one evaluation of k") {
    constexpr auto f = gauss * sin(gauss) + gauss;
    law(f, factorize(f, gauss), small);
  }
  SECTION("auto_factorize: the Gaussian Hessian-vector product") {
    law(Hessian{}, auto_factorize_t<Hessian>{}, small);
  }
  SECTION("auto_factorize: nested repeats, the inner one reading the outer one's slot") {
    constexpr auto e = exp(dot(x, y));
    constexpr auto r = sqrt(e + b);
    using F = decltype(r * sin(r) + e);
    using AF = auto_factorize_t<F>;
    // Two rounds: exp(x.y) first (the smallest), then sqrt(slot + b) in the body.
    static_assert(std::is_same_v<typename AF::shared, std::remove_const_t<decltype(e)>>);
    static_assert(detail::is_factorized_v<typename AF::body>);
    law(F{}, AF{}, small);
  }
  SECTION("evaluated_formula_t: the formula a backend evaluates for a reduction") {
    using Red = decltype(sum_reduction(Hessian{}, axis_j));
    law(typename Red::formula{}, evaluated_formula_t<Red>{}, small);
  }
}

TEST_CASE("simplify laws: fast exp, exp(a) = exp2(a log2 e)", "[simplify_laws]") {
  // exp2 of the rounded product a log2 e: a relative error of about |a| 2^-53
  // on top of exp2's own, so 1e-14 relative for |a| below about 30.
  constexpr tol fast{1e-14, 0};
  SECTION("fast_exp: exp(a) = exp2(a log2 e)") {
    law(Exp<X>{}, fast_exp_t<Exp<X>>{}, reals, fast);
    law(Exp<Neg<X>>{}, fast_exp_t<Exp<Neg<X>>>{}, reals, fast);
  }
  SECTION("fast_exp: the Gaussian, log2 e grouped with the invariant -g") {
    using F = decltype(exp(-g * sqdist(x, y)) * b);
    static_assert(detail::contains_v<fast_exp_t<F>, decltype(log2e * -g)>);
    law(F{}, fast_exp_t<F>{}, small, fast);
  }
  SECTION("fast_exp: nested exps and exps inside other ops") {
    using F = decltype(exp(exp(s) * g) + sin(exp(x)));
    law(F{}, fast_exp_t<F>{}, small, fast);
  }
  SECTION("policy_formula_t: precision::fast = factorized, with the fast exp") {
    using Red = decltype(sum_reduction(Hessian{}, axis_j));
    law(typename Red::formula{}, policy_formula_t<Red, precision::fast>{}, small, tol{1e-13, 1});
  }
}

TEST_CASE("simplify laws: scaled exp, exp(a b) = exp_scaled(a, b) for an invariant b", "[simplify_laws]") {
  // The accurate policy's form on a backend whose math provider has exp_scaled.
  const auto scaled = [](auto f) {
    using Red = decltype(sum_reduction(f, axis_j));
    return policy_formula_t<Red, precision::accurate, scaled_target>{};
  };
  SECTION("scaled exp: exp(a b) with b invariant") {
    law<scaled_context>(Exp<Mul<X, G>>{}, scaled(Exp<Mul<X, G>>{}));
    law<scaled_context>(Exp<Mul<X, Neg<P>>>{}, scaled(Exp<Mul<X, Neg<P>>>{}));
  }
  SECTION("scaled exp: exp(b a) with b invariant") {
    law<scaled_context>(Exp<Mul<G, X>>{}, scaled(Exp<Mul<G, X>>{}));
  }
  SECTION("scaled exp: exp(-(a b)) and exp(-(b a)) with b invariant") {
    law<scaled_context>(Exp<Neg<Mul<X, G>>>{}, scaled(Exp<Neg<Mul<X, G>>>{}));
    law<scaled_context>(Exp<Neg<Mul<G, X>>>{}, scaled(Exp<Neg<Mul<G, X>>>{}));
  }
  SECTION("scaled exp: the Gaussian, and after factorization") {
    using F = decltype(exp(-g * sqdist(x, y)) * b);
    law<scaled_context>(F{}, scaled(F{}), small);
    law<scaled_context>(Hessian{}, scaled(Hessian{}), small);
  }
}
