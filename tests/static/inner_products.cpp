// lowering/inner_products.hpp: which sums over coordinates the tensor-core path
// recognises as inner products between an i- and a j-variable, what the rest of
// the formula reads, and what it leaves alone.
#include <kops/kops.hpp>
#include <kops/lowering/inner_products.hpp>

#include <type_traits>

namespace {

using namespace kops;
using kops::detail::inner_kind;
using kops::detail::inner_product;
using kops::detail::inner_product_plan;

constexpr auto x = vi<0, 64>;
constexpr auto y = vj<1, 64>;
constexpr auto b = vj<2, 1>;
constexpr auto g = pm<3, 1>;
using X = Var<category::i, 0, 64>;
using Y = Var<category::j, 1, 64>;

template <class F> using plan = inner_product_plan<F>;
template <class P, int S> using term = typename P::terms::template at<S>;

// The Gaussian sum: one sqdist term; the rest is exp(-g * slot) * b and reads no wide variable.
using gauss = decltype(exp(-g * sqdist(x, y)) * b);
static_assert(plan<gauss>::ok && plan<gauss>::terms::size == 1 && !plan<gauss>::wide_rest);
static_assert(term<plan<gauss>, 0>::kind == inner_kind::sqdist);
static_assert(std::is_same_v<typename term<plan<gauss>, 0>::product, inner_product<X, Y, void>>);
static_assert(std::is_same_v<plan<gauss>::outer, decltype(exp(-g * kops::Slot<1, 1>{}) * b)>);
// The same after the fast policy's lowering (exp2 and log2 e around the sum).
using gauss_fast = policy_formula_t<decltype(sum_reduction(exp(-g * sqdist(x, y)) * b, axis_j)), precision::fast>;
static_assert(plan<gauss_fast>::ok && term<plan<gauss_fast>, 0>::kind == inner_kind::sqdist);

// Either order of the operands: the i-variable is x, the j-variable y.
static_assert(std::is_same_v<typename term<plan<decltype(sqdist(y, x))>, 0>::product, inner_product<X, Y, void>>);
static_assert(std::is_same_v<typename term<plan<decltype(dot(y, x))>, 0>::product, inner_product<X, Y, void>>);

// Attention: the exponent's dot(q, k) is a term; the values v stay wide, per pair.
constexpr auto v = vj<2, 64>;
using attention = decltype(sumsoftmaxweight_reduction(dot(x, y), v, axis_j))::formula;
static_assert(plan<attention>::ok && term<plan<attention>, 0>::kind == inner_kind::dot && plan<attention>::wide_rest);

// dot and sqdist of the same pair share one inner product.
using both = decltype(exp(-sqdist(x, y)) * dot(x, y));
static_assert(plan<both>::terms::size == 2 && plan<both>::products::size == 1);

// The diagonal weighted distance: <x, w y> with the weight a parameter of dim D.
using weighted = decltype(weighted_sqdist(pm<3, 64>, x, y));
static_assert(plan<weighted>::ok && term<plan<weighted>, 0>::kind == inner_kind::weighted_sqdist);
static_assert(std::is_same_v<typename term<plan<weighted>, 0>::product, inner_product<X, Y, Var<category::param, 3, 64>>>);

// Not recognised: below the threshold, an L1 distance, two variables of one axis,
// a full-matrix weight.
static_assert(!plan<decltype(exp(-sqdist(vi<0, 3>, vj<1, 3>)))>::ok);
static_assert(inner_product_plan<decltype(sqdist(vi<0, 16>, vj<1, 16>)), 16>::ok);  // the threshold is a parameter
static_assert(!plan<decltype(sum(abs(x - y)))>::ok);
static_assert(!plan<decltype(dot(x, vi<1, 64>))>::ok);
static_assert(!plan<decltype(weighted_sqdist(pm<3, 64 * 64>, x, y))>::ok);

} // namespace
