#pragma once

#include <kops/ops/dot.hpp>
#include <kops/ops/matvecmult.hpp>
#include <kops/ops/sqnorm2.hpp>

namespace kops {

/// weighted_sqnorm(s, a): the squared norm of a (dim D) weighted by s, dim 1,
/// by the dim of s (KeOps' WeightedSqNorm(s, a)):
/// ```text
///   dim s = 1      isotropic   s |a|^2                    (s sqnorm2(a))
///   dim s = D      diagonal    sum_k s_k a_k^2             (sum(s square(a)))
///   dim s = D^2    full        a^T S a, S row-major D x D  (dot(a, matvecmult(s, a)))
/// ```
/// (for D = 1 the three agree). The full form costs D^2 + D products, against
/// KeOps' 2 D^2 for sum(s tensorprod(a, a)); S is meant symmetric, but any S
/// gives a^T S a (the quadratic form of its symmetric part).
/// A composition; derivatives follow: w.r.t. a, 2 s a g, 2 s a g, (S + S^T) a g;
/// w.r.t. s, |a|^2 g, square(a) g, tensorprod(a, a) g.
template <Formula S, Formula F>
constexpr auto weighted_sqnorm([[maybe_unused]] S s, [[maybe_unused]] F f) {
  constexpr int D = F::dim;
  static_assert(S::dim == 1 || S::dim == D || S::dim == D * D,
                "kops::weighted_sqnorm: dim s must be 1 (isotropic), dim a (diagonal) or (dim a)^2 (full matrix)");
  if constexpr (S::dim == 1) return s * sqnorm2(f);
  else if constexpr (S::dim == D) return sum(s * square(f));
  else if constexpr (S::dim == D * D) return dot(f, matvecmult(s, f));
  else return Zero<1>{};  // (after the failed assertion: no second error)
}

} // namespace kops
