// The variables of a formula, computed with Boost.Hana on the host (never in
// device code: Hana's function objects are not usable there, see DESIGN.md).
//
//   all_variables<F>()   hana::tuple of hana::type<Var...> in tree order, with repeats
//   signature_t<F>       type_list<Slot0, ..., Slot{n-1}>, one slot per argument
//                        index 0..max: the Var used there, or Unused<I>
//   consistent_v<F>      every index names one (category, dim)
#pragma once

#include <boost/hana/all_of.hpp>
#include <boost/hana/any_of.hpp>
#include <boost/hana/bool.hpp>
#include <boost/hana/filter.hpp>
#include <boost/hana/flatten.hpp>
#include <boost/hana/fold_left.hpp>
#include <boost/hana/front.hpp>
#include <boost/hana/is_empty.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <utility>

#include <kops/core/variable.hpp>

namespace kops {

// Placeholder for an argument index that the formula does not read (its pointer
// is accepted and ignored; it may be null).
template <int I>
struct Unused {
  static constexpr int index = I;
  static constexpr int dim = 0;
};

namespace detail {
namespace hana = boost::hana;

template <class F> constexpr auto all_variables();

template <class... C>
constexpr auto variables_of_children(type_list<C...>) {
  return hana::flatten(hana::make_tuple(all_variables<C>()...));
}

template <class F>
constexpr auto all_variables() {
  if constexpr (is_variable_v<F>) return hana::make_tuple(hana::type_c<F>);
  else return variables_of_children(typename F::children{});
}

template <class F, int I>
constexpr auto variables_with_index() {
  return hana::filter(all_variables<F>(), [](auto t) {
    return hana::bool_c<decltype(t)::type::index == I>;
  });
}

template <class F, int I>
constexpr bool index_consistent() {
  constexpr auto vs = variables_with_index<F, I>();
  if constexpr (hana::is_empty(vs)) {
    return true;
  } else {
    using first = typename decltype(+hana::front(vs))::type;
    return hana::all_of(vs, [](auto t) {
      return hana::bool_c<std::is_same_v<typename decltype(t)::type, first>>;
    });
  }
}

template <class F, int I>
constexpr auto slot() {
  constexpr auto vs = variables_with_index<F, I>();
  if constexpr (hana::is_empty(vs)) return hana::type_c<Unused<I>>;
  else return hana::front(vs);
}

template <class F, int... I>
constexpr auto make_signature(std::integer_sequence<int, I...>) {
  return type_list<typename decltype(+slot<F, I>())::type...>{};
}

template <class F, int... I>
constexpr bool all_consistent(std::integer_sequence<int, I...>) {
  return (index_consistent<F, I>() && ...);
}

} // namespace detail

// Largest argument index used by F, or -1 when F reads no variable.
template <Formula F>
constexpr int max_index() {
  return boost::hana::fold_left(detail::all_variables<F>(), -1, [](int m, auto t) {
    constexpr int i = decltype(t)::type::index;
    return m > i ? m : i;
  });
}

template <Formula F>
using signature_t =
    decltype(detail::make_signature<F>(std::make_integer_sequence<int, max_index<F>() + 1>{}));

template <Formula F>
inline constexpr bool consistent_v =
    detail::all_consistent<F>(std::make_integer_sequence<int, max_index<F>() + 1>{});

template <Formula F, category C>
constexpr bool uses_category() {
  return boost::hana::any_of(detail::all_variables<F>(), [](auto t) {
    return boost::hana::bool_c<decltype(t)::type::cat == C>;
  });
}

} // namespace kops
