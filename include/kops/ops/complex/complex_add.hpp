#pragma once

#include <kops/ops/add.hpp>
#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/complex_sum.hpp>

namespace kops {

/// complex_add(a, b): the sums of the complex numbers of a and b, pair by pair
/// with complex broadcasting (dims even, and equal or one of them 2)  (KeOps: ComplexAdd).
/// A composition: with equal dims it is the real sum a + b; a single complex
/// number against 2n components is first repeated, complex_sum_t<2n>(a) + b.
/// Its derivative follows (the broadcast operand receives complex_sum(g)).
template <Formula A, Formula B>
constexpr auto complex_add([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(complex_broadcastable(A::dim, B::dim),
                "kops::complex_add: operand dims must be even, and equal or one of them 2 (complex broadcasting)");
  if constexpr (!complex_broadcastable(A::dim, B::dim)) return a;
  else if constexpr (A::dim == B::dim) return a + b;
  else if constexpr (A::dim == 2) return complex_sum_t<B::dim>(a) + b;
  else return a + complex_sum_t<A::dim>(b);
}

} // namespace kops
