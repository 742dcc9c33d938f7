#pragma once

#include <kops/ops/rsqrt.hpp>
#include <kops/ops/sqnorm2.hpp>

namespace kops {

/// normalize(a) = a / |a|, dim D -> D, computed as rsqrt(sqnorm2(a)) a (KeOps'
/// Normalize), so normalize(0) = 0 by the rsqrt(0) = 0 convention.
/// A composition; its derivative follows: [d_V normalize A]^T g =
/// [d_V A]^T (g - u (u . g)) / |A| with u = normalize(A) (0 at A = 0).
template <Formula F>
constexpr auto normalize(F f) {
  return rsqrt(sqnorm2(f)) * f;
}

} // namespace kops
