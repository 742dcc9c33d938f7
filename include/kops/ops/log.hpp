#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct log_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "log";
  static constexpr const char* keops_name = "Log";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::log(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return g / f; }
};

/// log: log(a)_k = ln a_k (NaN for a_k < 0, -inf at 0).
/// Simplifications: log(1) = 0; log(exp a) = a.
/// Derivative: [d_V log A]^T g = [d_V A]^T (g / A).
template <Formula F>
constexpr auto log([[maybe_unused]] F f) {
  if constexpr (is_one_v<F>) return Zero<1>{};
  else if constexpr (detail::is_exp_v<F>) return operand_t<F, 0>{};
  else return Unary<log_op, F>{};
}

} // namespace kops
