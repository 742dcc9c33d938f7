#pragma once

#include <kops/ops/square.hpp>
#include <kops/ops/sum.hpp>

namespace kops {

/// sqnorm2: squared Euclidean norm, dim D -> 1: sqnorm2(a) = sum_k a_k^2.
/// A composition (sum of square); its derivative follows: 2 A g.
template <Formula F>
constexpr auto sqnorm2(F f) { return sum(square(f)); }

} // namespace kops
