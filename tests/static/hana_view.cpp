// kops::hana::variables / signature (kops/hana.hpp): the Boost.Hana views of a
// formula's variables agree with the constexpr data the library uses.
#include <boost/hana/equal.hpp>
#include <boost/hana/length.hpp>

#include <kops/hana.hpp>
#include <kops/kops.hpp>

namespace {
namespace hana = boost::hana;
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<2, 3>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto f = kops::exp(-g * kops::sqdist(x, y)) * kops::sum(x);

// Tree order with repeats (after the builders' canonical ordering): x twice.
static_assert(kops::hana::variables(f) ==
              hana::make_tuple(hana::type_c<kops::Var<kops::category::i, 0, 3>>,
                               hana::type_c<kops::Var<kops::category::i, 0, 3>>,
                               hana::type_c<kops::Var<kops::category::j, 2, 3>>,
                               hana::type_c<kops::Var<kops::category::param, 3, 1>>));
static_assert(hana::length(kops::hana::variables(kops::cst<2>)) == hana::size_c<0>);

// Index 1 is not read: Unused<1>.
static_assert(kops::hana::signature(f) ==
              hana::make_tuple(hana::type_c<kops::Var<kops::category::i, 0, 3>>, hana::type_c<kops::Unused<1>>,
                               hana::type_c<kops::Var<kops::category::j, 2, 3>>,
                               hana::type_c<kops::Var<kops::category::param, 3, 1>>));
static_assert(kops::max_index<decltype(f)>() == 3);
static_assert(kops::consistent_v<decltype(f)>);
// One index with two categories: not consistent (the builders reject such
// formulas; the raw node type is built here to test the predicate).
static_assert(!kops::consistent_v<kops::Binary<kops::add_op, kops::Var<kops::category::i, 0, 3>,
                                               kops::Var<kops::category::j, 0, 3>>>);
static_assert(!kops::consistent_v<kops::Binary<kops::add_op, kops::Var<kops::category::i, 0, 3>,
                                               kops::Var<kops::category::i, 0, 2>>>);
static_assert(kops::uses_category<decltype(f), kops::category::param>());
static_assert(!kops::uses_category<decltype(kops::sum(x)), kops::category::j>());
} // namespace

int main() {}
