#pragma once

#include <kops/ops/sqnorm2.hpp>
#include <kops/ops/subtract.hpp>

namespace kops {

/// sqdist: squared Euclidean distance of two vectors of the same dim D, D -> 1:
/// sqdist(a, b) = sum_k (a_k - b_k)^2.
/// A composition (sqnorm2 of the difference); derivative 2 (A - B) g w.r.t. A.
template <Formula A, Formula B>
constexpr auto sqdist(A a, B b) {
  static_assert(A::dim == B::dim, "kops::sqdist: both operands must have the same dim");
  return sqnorm2(a - b);
}

} // namespace kops
