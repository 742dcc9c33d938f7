// A total order on formula types, used to put the operands of commutative ops
// in one canonical order (so x*y and y*x are one type) and constants first.
// Host-side constexpr only (it compares the compiler's spelling of the types).
#pragma once

#include <string_view>

#include <kops/core/constant.hpp>

namespace kops::detail {

template <class T>
constexpr std::string_view type_spelling() {
  return __PRETTY_FUNCTION__;
}

template <class A, class B>
constexpr bool type_less() {
  if constexpr (is_constant_v<A> != is_constant_v<B>) return is_constant_v<A>;
  else return type_spelling<A>() < type_spelling<B>();
}

} // namespace kops::detail
