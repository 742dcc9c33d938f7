#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct floor_op {
  static constexpr const char* name = "floor";
  static constexpr const char* keops_name = "Floor";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::floor(a); }
  template <class F, class G> static constexpr auto backward(F, G) { return Zero<F::dim>{}; }
};

namespace detail {
// floor(p / q) for q > 0, rounding toward -infinity.
constexpr long long floor_div(long long p, long long q) { return p / q - (p % q != 0 && p < 0 ? 1 : 0); }
} // namespace detail

/// floor: floor(a)_k = the largest integer <= a_k (floor(-0) = -0; inf and NaN
/// unchanged).
/// Derivative: zero (piecewise constant).
/// Simplifications: floor(0) = 0; constants fold exactly; floor(floor(a)) = floor(a).
template <Formula F>
constexpr auto floor([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (is_constant_v<F>) return make_constant<detail::floor_div(F::num, F::den), 1>();
  else if constexpr (is_op_v<F, floor_op>) return f;
  else return Unary<floor_op, F>{};
}

} // namespace kops
