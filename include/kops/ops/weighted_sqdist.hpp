#pragma once

#include <kops/ops/subtract.hpp>
#include <kops/ops/weighted_sqnorm.hpp>

namespace kops {

/// weighted_sqdist(s, a, b) = weighted_sqnorm(s, a - b), dim 1 (KeOps'
/// WeightedSqDist(s, a, b)): dim a = dim b = D and dim s = 1 (isotropic), D
/// (diagonal) or D^2 (full row-major matrix); see weighted_sqnorm.hpp.
/// A composition; derivatives follow from weighted_sqnorm and subtract.
template <Formula S, Formula A, Formula B>
constexpr auto weighted_sqdist([[maybe_unused]] S s, [[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(A::dim == B::dim, "kops::weighted_sqdist: both points must have the same dim");
  static_assert(S::dim == 1 || S::dim == A::dim || S::dim == A::dim * A::dim,
                "kops::weighted_sqdist: dim s must be 1 (isotropic), dim a (diagonal) or (dim a)^2 (full matrix)");
  constexpr int D = A::dim;
  if constexpr (A::dim == B::dim && (S::dim == 1 || S::dim == D || S::dim == D * D)) return weighted_sqnorm(s, a - b);
  else return Zero<1>{};  // (after a failed assertion: no second error)
}

} // namespace kops
