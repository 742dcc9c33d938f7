// static_assert-only tests of the vector ops: dims and simplifications
// (compiling this file is the test).
#include <kops/kops.hpp>
#include <kops/ops/argmax.hpp>
#include <kops/ops/argmin.hpp>
#include <kops/ops/bspline.hpp>
#include <kops/ops/kron.hpp>
#include <kops/ops/matvecmult.hpp>
#include <kops/ops/max.hpp>
#include <kops/ops/min.hpp>
#include <kops/ops/normalize.hpp>
#include <kops/ops/one_hot.hpp>
#include <kops/ops/softdtw_sqdist.hpp>
#include <kops/ops/tensordot.hpp>
#include <kops/ops/tensorprod.hpp>
#include <kops/ops/vecmatmult.hpp>
#include <kops/ops/weighted_sqdist.hpp>
#include <kops/ops/weighted_sqnorm.hpp>

#include <type_traits>

namespace {
using namespace kops;
using X = Var<category::i, 0, 6>;
using Y = Var<category::j, 1, 3>;
using B = Var<category::j, 2, 1>;
using S = Var<category::param, 3, 9>;
constexpr X x;
constexpr Y y;
constexpr B b;
constexpr S s;
template <class A, class C> constexpr bool same = std::is_same_v<A, C>;

// Within-vector extrema: D -> 1.
static_assert(decltype(max(x))::dim == 1 && decltype(argmin(x))::dim == 1);
static_assert(same<decltype(max(x)), Extremum<true, false, X>>);
static_assert(same<decltype(argmin(y)), Extremum<false, true, Y>>);
// A dim-1 operand is its own extremum, at index 0; so are zero and sum_t(a).
static_assert(same<decltype(max(b)), B> && same<decltype(min(b)), B>);
static_assert(same<decltype(argmax(b)), Zero<1>> && same<decltype(argmin(b)), Zero<1>>);
static_assert(same<decltype(max(zero<4>)), Zero<1>> && same<decltype(argmax(zero<4>)), Zero<1>>);
static_assert(same<decltype(min(sum_t<4>(b))), B> && same<decltype(argmin(sum_t<4>(b))), Zero<1>>);
// Signs: max(-a) = -min(a), argmax(-a) = argmin(a).
static_assert(same<decltype(max(-x)), decltype(-min(x))>);
static_assert(same<decltype(min(-x)), decltype(-max(x))>);
static_assert(same<decltype(argmax(-x)), decltype(argmin(x))>);
// Their derivatives: for max, the derivative of the arg component, selected by the
// one_hot of the arg (issue 35: the other components' derivatives never enter the
// arithmetic; it was the product one_hot<6>(argmax(x)) * b); through a matrix
// product, which mixes components, the cotangent one_hot-selected; 0 for argmax.
static_assert(same<decltype(grad(max(x), x, b)), decltype(ifelse(-one_hot<6>(argmax(x)), zero<1>, sum_t<6>(b)))>);
constexpr auto arg = one_hot<3>(argmax(matvecmult(s, y)));
static_assert(same<decltype(grad(max(matvecmult(s, y)), y, b)),
                   decltype(ifelse(-less_than(zero<1>, sum(arg)), zero<1>,
                                   grad(matvecmult(s, y), y, ifelse(-arg, zero<1>, sum_t<3>(b)))))>);
static_assert(same<decltype(grad(argmax(x), x, b)), Zero<6>>);

// one_hot: dim 1 -> D; constant indices fold (rounded half up, out of range: zero).
static_assert(decltype(one_hot<5>(b))::dim == 5);
static_assert(same<decltype(one_hot<3>(b)), OneHot<3, B>>);
static_assert(same<decltype(one_hot<3>(cst<1>)), decltype(extract_t<1, 3>(cst<1>))>);
static_assert(same<decltype(one_hot<3>(zero<1>)), decltype(extract_t<0, 3>(cst<1>))>);
static_assert(same<decltype(one_hot<3>(cst<3> / cst<2>)), decltype(extract_t<2, 3>(cst<1>))>);
static_assert(same<decltype(one_hot<3>(cst<-1> / cst<2>)), decltype(extract_t<0, 3>(cst<1>))>);
static_assert(same<decltype(one_hot<3>(cst<5> / cst<2>)), Zero<3>>);
static_assert(same<decltype(one_hot<3>(cst<-1>)), Zero<3>>);
static_assert(same<decltype(one_hot<1>(cst<0>)), IntConst<1>>);
static_assert(same<decltype(grad(one_hot<3>(b), b, y)), Zero<1>>);

// Norms: normalize keeps the dim; the weighted norms go to dim 1 for each kind of s.
static_assert(decltype(normalize(y))::dim == 3);
static_assert(same<decltype(normalize(zero<3>)), Zero<3>>);
static_assert(decltype(weighted_sqnorm(b, y))::dim == 1);
static_assert(decltype(weighted_sqnorm(pm<4, 3>, y))::dim == 1);
static_assert(decltype(weighted_sqnorm(s, y))::dim == 1);
static_assert(decltype(weighted_sqdist(s, y, vi<5, 3>))::dim == 1);
static_assert(same<decltype(weighted_sqnorm(b, y)), decltype(b * sqnorm2(y))>);
static_assert(same<decltype(weighted_sqnorm(pm<4, 3>, y)), decltype(sum(pm<4, 3> * square(y)))>);
static_assert(same<decltype(weighted_sqnorm(s, y)), decltype(dot(y, matvecmult(s, y)))>);
static_assert(same<decltype(weighted_sqdist(s, y, vi<5, 3>)), decltype(weighted_sqnorm(s, y - vi<5, 3>))>);

// Matrix products: dims inferred as in KeOps.
static_assert(decltype(matvecmult(x, y))::dim == 2);     // (2 x 3) (3)
static_assert(decltype(vecmatmult(y, s))::dim == 3);     // (3) (3 x 3)
static_assert(decltype(vecmatmult(vj<4, 2>, x))::dim == 3);  // (2) (2 x 3)
static_assert(decltype(tensorprod(x, y))::dim == 18);
static_assert(same<decltype(matvecmult(x, y)), MatVecMult<X, Y>>);
static_assert(same<decltype(vecmatmult(y, s)), VecMatMult<Y, S>>);
static_assert(same<decltype(tensorprod(x, y)), TensorProd<X, Y>>);
// Degenerate shapes are simpler ops; zeros stay zeros.
static_assert(same<decltype(matvecmult(x, b)), decltype(x * b)>);
static_assert(same<decltype(matvecmult(vi<5, 3>, y)), decltype(dot(vi<5, 3>, y))>);
static_assert(same<decltype(vecmatmult(b, x)), decltype(b * x)>);
static_assert(same<decltype(vecmatmult(y, vi<5, 3>)), decltype(dot(y, vi<5, 3>))>);
static_assert(same<decltype(tensorprod(b, y)), decltype(b * y)>);
static_assert(same<decltype(matvecmult(zero<6>, y)), Zero<2>>);
static_assert(same<decltype(tensorprod(x, zero<3>)), Zero<18>>);
// The adjoints are the other two ops.
static_assert(same<decltype(grad(matvecmult(x, y), x, vi<6, 2>)), decltype(tensorprod(vi<6, 2>, y))>);
static_assert(same<decltype(grad(matvecmult(x, y), y, vi<6, 2>)), decltype(vecmatmult(vi<6, 2>, x))>);
static_assert(same<decltype(grad(tensorprod(x, y), y, vi<6, 18>)), decltype(vecmatmult(x, vi<6, 18>))>);

// tensordot: dims from the shapes; the rank-1/rank-2 cases are the simpler ops.
static_assert(decltype(tensordot<dims<2, 3>, dims<3, 3>, axes<1>, axes<0>>(x, s))::dim == 6);
static_assert(decltype(tensordot<dims<2, 3>, dims<3, 2>, axes<1, 0>, axes<0, 1>>(x, vj<7, 6>))::dim == 1);
static_assert(decltype(tensordot<dims<3, 2>, dims<3>, axes<>, axes<>, axes<2, 0, 1>>(x, y))::dim == 18);
static_assert(same<decltype(tensordot<dims<6>, dims<3>, axes<>, axes<>>(x, y)), decltype(tensorprod(x, y))>);
static_assert(same<decltype(tensordot<dims<2, 3>, dims<3>, axes<1>, axes<0>>(x, y)), decltype(matvecmult(x, y))>);
static_assert(same<decltype(tensordot<dims<3, 2>, dims<3>, axes<0>, axes<0>>(x, y)), decltype(vecmatmult(y, x))>);
static_assert(same<decltype(tensordot<dims<3>, dims<3, 2>, axes<0>, axes<0>>(y, x)), decltype(vecmatmult(y, x))>);
static_assert(same<decltype(tensordot<dims<3>, dims<2, 3>, axes<0>, axes<1>>(y, x)), decltype(matvecmult(x, y))>);
static_assert(same<decltype(tensordot<dims<3>, dims<3>, axes<0>, axes<0>>(y, vi<5, 3>)), decltype(dot(y, vi<5, 3>))>);
// An explicit identity permutation is no permutation.
static_assert(same<decltype(tensordot<dims<2, 3>, dims<3, 3>, axes<1>, axes<0>, axes<0, 1>>(x, s)),
                   decltype(tensordot<dims<2, 3>, dims<3, 3>, axes<1>, axes<0>>(x, s))>);

// kron: shapes multiply axis by axis; vectors give tensorprod.
static_assert(decltype(kron<dims<2, 3>, dims<3, 1>>(x, y))::dim == 18);
static_assert(same<decltype(kron<dims<6>, dims<3>>(x, y)), decltype(tensorprod(x, y))>);
static_assert(same<decltype(kron<dims<2, 3>, dims<1, 3>>(x, y)),
                   decltype(tensordot<dims<2, 3>, dims<1, 3>, axes<>, axes<>, axes<0, 2, 1, 3>>(x, y))>);

// Special functions.
static_assert(decltype(bspline<0>(x, b))::dim == 5);
static_assert(decltype(bspline<3>(x, b))::dim == 2);
static_assert(decltype(bspline<4>(x, b))::dim == 1);
static_assert(decltype(softdtw_sqdist(x, y, b))::dim == 1);
static_assert(decltype(softdtw_sqdist(b, b, b))::dim == 1);
static_assert(decltype(grad(softdtw_sqdist(x, y, b), x, b))::dim == 6);
static_assert(decltype(grad(softdtw_sqdist(x, y, b), b, b))::dim == 1);
// bspline is no obstacle to gradients w.r.t. variables it does not read.
static_assert(same<decltype(grad(bspline<2>(x, b) * y, y, vi<6, 3>)), decltype(bspline<2>(x, b) * vi<6, 3>)>);
} // namespace
