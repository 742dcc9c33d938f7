#pragma once

#include <kops/ops/minus.hpp>
#include <kops/ops/rsqrt.hpp>
#include <kops/ops/square.hpp>

namespace kops {

struct asin_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "asin";
  static constexpr const char* keops_name = "Asin";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::asin(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) {
    return rsqrt(cst<1> - square(f)) * g;
  }
};

/// asin: asin(a)_k = arcsin a_k, in [-pi/2, pi/2] (NaN outside [-1, 1]).
/// Derivative: [d_V asin A]^T g = [d_V A]^T (rsqrt(1 - A^2) g), i.e. g / sqrt(1 - A^2)
/// except at A = +-1, where rsqrt(0) = 0 makes it 0 (as in KeOps).
/// Simplifications: asin(0) = 0; asin(-a) = -asin(a).
template <Formula F>
constexpr auto asin([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (detail::is_neg_v<F>) return -asin(operand_t<F, 0>{});
  else return Unary<asin_op, F>{};
}

} // namespace kops
