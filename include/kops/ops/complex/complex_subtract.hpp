#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/complex_sum.hpp>
#include <kops/ops/subtract.hpp>

namespace kops {

/// complex_subtract(a, b): the differences of the complex numbers of a and b,
/// pair by pair with complex broadcasting (dims even, and equal or one of them 2)
/// (KeOps: ComplexSubtract).
/// A composition: with equal dims it is the real difference a - b; a single
/// complex number against 2n components is first repeated with complex_sum_t<2n>.
/// Its derivative follows (the broadcast operand receives +-complex_sum(g)).
template <Formula A, Formula B>
constexpr auto complex_subtract([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(complex_broadcastable(A::dim, B::dim),
                "kops::complex_subtract: operand dims must be even, and equal or one of them 2 (complex broadcasting)");
  if constexpr (!complex_broadcastable(A::dim, B::dim)) return a;
  else if constexpr (A::dim == B::dim) return a - b;
  else if constexpr (A::dim == 2) return complex_sum_t<B::dim>(a) - b;
  else return a - complex_sum_t<A::dim>(b);
}

} // namespace kops
