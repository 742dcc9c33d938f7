#pragma once

#include <kops/ops/mult.hpp>

namespace kops {

/// complex_real_scal(s, a): the complex numbers of a scaled by the real scalar
/// s, dims (1, 2n) -> 2n, either operand order: (s ar, s ai)_k  (KeOps: ComplexRealScal).
/// A composition: exactly the real product s * a with {1, D} broadcasting, so
/// its derivative and simplifications are those of mult.
template <Formula A, Formula B>
constexpr auto complex_real_scal([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert((A::dim == 1 && B::dim % 2 == 0) || (B::dim == 1 && A::dim % 2 == 0),
                "kops::complex_real_scal: one operand must have dim 1 (a real scalar) and the other an even dim "
                "(complex (re, im) pairs)");
  if constexpr ((A::dim == 1 && B::dim % 2 == 0) || (B::dim == 1 && A::dim % 2 == 0)) return a * b;
  else return a;
}

} // namespace kops
