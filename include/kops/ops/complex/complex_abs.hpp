#pragma once

#include <kops/ops/abs.hpp>
#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/complex_square_abs.hpp>
#include <kops/ops/sqrt.hpp>

namespace kops {

/// complex_abs(a): the moduli of the complex numbers of a, dim 2n -> n:
/// complex_abs(a)_k = sqrt(a_{2k}^2 + a_{2k+1}^2)  (KeOps: ComplexAbs).
/// A composition, as in KeOps: sqrt(complex_square_abs(a)); its derivative
/// follows, [d_V |A|]^T g = [d_V A]^T (g / |A|) A per complex number (not
/// defined at 0, like sqrt's).
/// Simplifications: |real2complex a| = |imag2complex a| = abs(a) (and those of
/// sqrt and complex_square_abs).
template <Formula F>
constexpr auto complex_abs([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0, "kops::complex_abs: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0) return Zero<1>{};
  else if constexpr (detail::is_real2complex_v<F> || detail::is_imag2complex_v<F>) return abs(operand_t<F, 0>{});
  else return sqrt(complex_square_abs(f));
}

} // namespace kops
