// Boost.Hana views of a formula's variables, for code that manipulates kops
// formulas as types with Hana (test generators, JIT-engine bridges).
//
// The library itself computes variables and signatures with plain constexpr
// code (core/variables.hpp): a Hana tuple of types built for every node cost
// a quarter of the front end's time on a Gaussian gradient, in each of nvcc's
// three front-end passes. These views are built from that data on request and
// are not included by <kops/kops.hpp>.
#pragma once

#include <cstddef>
#include <utility>

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <kops/core/variables.hpp>

namespace kops {

/// \brief Boost.Hana views of formulas (include <kops/hana.hpp>).
namespace hana {

/// \brief The variables of `f` in tree order, with repeats, as a
/// `boost::hana::tuple` of `boost::hana::type<Var<C, I, D>>`.
template <Formula F>
constexpr auto variables(F) {
  constexpr auto& vs = detail::vars_of<F>::value;
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return boost::hana::make_tuple(boost::hana::type_c<Var<vs[K].cat, vs[K].index, vs[K].dim>>...);
  }(std::make_index_sequence<vs.size()>{});
}

/// \brief One entry per argument index 0 .. max_index(f): the `Var` read at that
/// index, or `Unused<I>` (the pointer eval accepts and ignores), as a
/// `boost::hana::tuple` of `boost::hana::type`s.
template <Formula F>
constexpr auto signature(F) {
  return []<class... S>(type_list<S...>) {
    return boost::hana::make_tuple(boost::hana::type_c<S>...);
  }(signature_t<F>{});
}

} // namespace hana
} // namespace kops
