#pragma once

#include <kops/ops/extremum.hpp>

namespace kops {

/// min: the within-vector minimum, dim D -> 1: min(a) = min_k a_k.
/// NaN: a NaN component wins (the first one); ties keep the first index.
/// Derivative: [d_V min A]^T g = [d_V A]^T (one_hot<D>(argmin A) g), selected rather
/// than multiplied where A is componentwise in V (ops/extremum.hpp).
/// See ops/extremum.hpp for the node, the NaN rule and the simplifications.
template <Formula F>
constexpr auto min(F f) {
  return detail::extremum<false, false>(f);
}

} // namespace kops
