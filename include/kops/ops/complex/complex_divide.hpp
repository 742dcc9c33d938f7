#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/complex_mult.hpp>
#include <kops/ops/complex/complex_square_abs.hpp>
#include <kops/ops/complex/conj.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/inv.hpp>

namespace kops {

/// complex_divide(a, b): the quotients of the complex numbers of a by those of
/// b, pair by pair with complex broadcasting (dims even, and equal or one of
/// them 2): a / b = a conj(b) / |b|^2  (KeOps: ComplexDivide).
/// A composition, as in KeOps:
/// ```text
///   complex_mult(real2complex(inv(complex_square_abs(b))), complex_mult(a, conj(b)))
/// ```
/// which, for a single complex divisor (dim b = 2), simplifies to the real
/// broadcast inv(|b|^2) * complex_mult(a, conj(b)). Its derivative follows.
template <Formula A, Formula B>
constexpr auto complex_divide([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(complex_broadcastable(A::dim, B::dim),
                "kops::complex_divide: operand dims must be even, and equal or one of them 2 (complex broadcasting)");
  if constexpr (!complex_broadcastable(A::dim, B::dim)) return a;
  else return complex_mult(real2complex(inv(complex_square_abs(b))), complex_mult(a, conj(b)));
}

} // namespace kops
