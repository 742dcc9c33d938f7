#pragma once

#include <kops/ops/extremum.hpp>

namespace kops {

/// argmax: the within-vector arg-maximum, dim D -> 1: argmax(a) = the first k with a_k = max(a), as a value.
/// NaN: a NaN component wins (the first one); ties keep the first index.
/// Derivative: 0 (piecewise constant).
/// See ops/extremum.hpp for the node, the NaN rule and the simplifications.
template <Formula F>
constexpr auto argmax(F f) {
  return detail::extremum<true, true>(f);
}

} // namespace kops
