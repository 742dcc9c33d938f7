#pragma once

#include <kops/ops/atan2.hpp>
#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/imag.hpp>
#include <kops/ops/complex/real.hpp>

namespace kops {

/// complex_angle(a): the arguments of the complex numbers of a, in [-pi, pi],
/// dim 2n -> n: complex_angle(a)_k = atan2(a_{2k+1}, a_{2k})  (KeOps: ComplexAngle).
/// A composition, as in KeOps: atan2(imag(a), real(a)), with atan2's conventions
/// (angle(0) = 0, the negative real axis gives +-pi by the sign of the zero
/// imaginary part). Its derivative follows: [d_V angle A]^T g =
/// [d_V A]^T (g / |A|^2) (-ai, ar) per complex number (not defined at 0).
template <Formula F>
constexpr auto complex_angle([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0, "kops::complex_angle: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0) return Zero<1>{};
  else return atan2(imag(f), real(f));
}

} // namespace kops
