#pragma once

#include <kops/ops/log.hpp>

namespace kops {

struct xlogx_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "xlogx";
  static constexpr const char* keops_name = "XLogX";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
    return Math::select(a == V(0), V(0), a * Math::log(a));
  }
  template <class F, class G> static constexpr auto backward(F f, G g) { return (log(f) + cst<1>) * g; }
};

/// xlogx: xlogx(a)_k = a_k ln a_k, with xlogx(0) = 0 (its limit; NaN for a_k < 0).
/// Derivative: [d_V xlogx A]^T g = [d_V A]^T ((log(A) + 1) g) (-inf at A = 0, as KeOps).
/// Simplifications: xlogx(0) = 0; xlogx(1) = 0.
template <Formula F>
constexpr auto xlogx([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (is_one_v<F>) return Zero<1>{};
  else return Unary<xlogx_op, F>{};
}

} // namespace kops
