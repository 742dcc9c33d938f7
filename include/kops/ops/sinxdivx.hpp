#pragma once

#include <kops/ops/comparisons.hpp>
#include <kops/ops/cos.hpp>
#include <kops/ops/ifelse.hpp>
#include <kops/ops/minus.hpp>
#include <kops/ops/sin.hpp>

namespace kops {

struct sinxdivx_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "sinxdivx";
  static constexpr const char* keops_name = "SinXDivX";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
    return Math::select(a == V(0), V(1), Math::sin(a) / a);
  }
  // At 0 the value is the constant 1: the derivative is that of the constant, 0,
  // selected, not (cos 0 - 1) / 0 = NaN.
  template <class F, class G> static constexpr auto backward(F f, G g) {
    return detail::select_where(equal(f, Zero<1>{}), Zero<1>{}, (cos(f) - sinxdivx(f)) / f) * g;
  }
};

/// sinxdivx: sinxdivx(a)_k = sin(a_k) / a_k, with sinxdivx(0) = 1 (its limit).
/// Derivative: [d_V sinxdivx A]^T g = [d_V A]^T ((cos(A) - sinxdivx(A)) / A g), i.e.
/// (cos A / A - sin A / A^2) g as KeOps, but 0 at A = 0 (the derivative of the
/// constant 1 taken there, and the limit; KeOps gives NaN).
/// Simplifications: sinxdivx(0) = 1 (dim 1); sinxdivx(-a) = sinxdivx(a).
template <Formula F>
constexpr auto sinxdivx([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> && F::dim == 1) return cst<1>;
  else if constexpr (detail::is_neg_v<F>) return sinxdivx(operand_t<F, 0>{});
  else return Unary<sinxdivx_op, F>{};
}

} // namespace kops
