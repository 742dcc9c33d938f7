#pragma once

#include <kops/ops/sqnorm2.hpp>
#include <kops/ops/sqrt.hpp>

namespace kops {

/// norm2: Euclidean norm, dim D -> 1: norm2(a) = sqrt(sum_k a_k^2).
/// A composition (sqrt of sqnorm2); derivative A g / |A|.
template <Formula F>
constexpr auto norm2(F f) { return sqrt(sqnorm2(f)); }

} // namespace kops
