#pragma once

#include <kops/ops/extremum.hpp>

namespace kops {

/// max: the within-vector maximum, dim D -> 1: max(a) = max_k a_k.
/// NaN: a NaN component wins (the first one); ties keep the first index.
/// Derivative: [d_V max A]^T g = [d_V A]^T (one_hot<D>(argmax A) g), selected rather
/// than multiplied where A is componentwise in V (ops/extremum.hpp).
/// See ops/extremum.hpp for the node, the NaN rule and the simplifications.
template <Formula F>
constexpr auto max(F f) {
  return detail::extremum<true, false>(f);
}

} // namespace kops
