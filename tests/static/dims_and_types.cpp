// static_assert-only tests: compiling this file is the test.
#include <kops/kops.hpp>

#include <cstdint>
#include <type_traits>

namespace {
using namespace kops;
constexpr auto x = vi<0, 3>;
constexpr auto y = vj<1, 3>;
constexpr auto b = vj<2, 1>;
constexpr auto g = pm<3, 1>;
using X = Var<category::i, 0, 3>;
using Y = Var<category::j, 1, 3>;
using B = Var<category::j, 2, 1>;
using G = Var<category::param, 3, 1>;

// Variables carry their category, index and dim.
static_assert(std::is_same_v<decltype(x), const X>);
static_assert(X::dim == 3 && X::index == 0 && X::cat == category::i);
static_assert(Variable<X> && Formula<X>);
static_assert(!Formula<int> && !Formula<float>);

// Element-wise ops keep the dim; broadcasting takes the larger one.
static_assert(decltype(exp(x))::dim == 3);
static_assert(decltype(x + b)::dim == 3);
static_assert(decltype(b * y)::dim == 3);
static_assert(decltype(x / g)::dim == 3);
static_assert(decltype(-x)::dim == 3);
static_assert(decltype(pow<3>(x))::dim == 3);

// Within-vector ops go to dim 1.
static_assert(decltype(sum(x))::dim == 1);
static_assert(decltype(sqnorm2(x))::dim == 1);
static_assert(decltype(norm2(x))::dim == 1);
static_assert(decltype(dot(x, y))::dim == 1);
static_assert(decltype(sqdist(x, y))::dim == 1);

// The formula is its type: building it twice gives the same type.
static_assert(std::is_same_v<decltype(exp(-g * sqdist(x, y)) * b), decltype(exp(-g * sqdist(x, y)) * b)>);
static_assert(std::is_same_v<decltype(x - y), Binary<subtract_op, X, Y>>);

// Reductions: dim, axis categories, arity, signature.
constexpr auto conv = sum_reduction(exp(-g * sqdist(x, y)) * b, axis_j);
static_assert(conv.dim == 1);
static_assert(decltype(conv)::row_cat == category::i && decltype(conv)::red_cat == category::j);
static_assert(decltype(conv)::nargs == 4);
static_assert(std::is_same_v<decltype(conv)::signature, type_list<X, Y, B, G>>);
static_assert(decltype(sum_reduction(x - y, axis_i))::row_cat == category::j);
static_assert(decltype(min_reduction(x - y, axis_j))::dim == 3);

// Arg reductions write int64 indices; value reductions write the element type.
static_assert(std::is_same_v<argmin_op::out_t<float>, std::int64_t>);
static_assert(std::is_same_v<argmax_op::out_t<double>, std::int64_t>);
static_assert(std::is_same_v<min_op::out_t<float>, float>);
static_assert(std::is_same_v<sum_op::out_t<double>, double>);

// Unused argument indices are placeholders in the signature.
static_assert(std::is_same_v<signature_t<decltype(vj<2, 1> * g)>,
                             type_list<Unused<0>, Unused<1>, B, G>>);
static_assert(max_index<decltype(cst<2> * cst<3>)>() == -1);

// One index with two meanings is detected.
static_assert(!consistent_v<decltype(vi<0, 3> + vj<0, 3>)>);
static_assert(!consistent_v<decltype(vi<0, 3> + vi<0, 1>)>);
static_assert(consistent_v<decltype(x + x * y)>);
} // namespace
