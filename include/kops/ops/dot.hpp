#pragma once

#include <kops/ops/mult.hpp>
#include <kops/ops/sum.hpp>

namespace kops {

/// dot: scalar product of two vectors of the same dim D, D -> 1:
/// dot(a, b) = sum_k a_k b_k (KeOps' `(a|b)`). No broadcasting: a dim-1
/// operand is almost always a mistake here, so dims must be equal.
/// A composition (sum of the product); derivative [d_V A]^T (B g) + [d_V B]^T (A g).
template <Formula A, Formula B>
constexpr auto dot(A a, B b) {
  static_assert(A::dim == B::dim, "kops::dot: both operands must have the same dim");
  return sum(a * b);
}

} // namespace kops
