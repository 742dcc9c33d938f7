#pragma once

#include <kops/ops/extremum.hpp>

namespace kops {

/// argmin: the within-vector arg-minimum, dim D -> 1: argmin(a) = the first k with a_k = min(a), as a value.
/// NaN: a NaN component wins (the first one); ties keep the first index.
/// Derivative: 0 (piecewise constant).
/// See ops/extremum.hpp for the node, the NaN rule and the simplifications.
template <Formula F>
constexpr auto argmin(F f) {
  return detail::extremum<false, true>(f);
}

} // namespace kops
