#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

template <int D>
struct round_op {
  static constexpr const char* name = "round";
  static constexpr const char* keops_name = "Round";
  using print_params = int_params<D>;

  // 10^|D|, exact in double for |D| <= 22.
  KOPS_HD static constexpr double scale() {
    double s = 1;
    for (int k = 0; k < (D < 0 ? -D : D); ++k) s *= 10;
    return s;
  }

  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) {
    if constexpr (D == 0) {
      return Math::round(a);
    } else {
      constexpr double s = scale();
      if constexpr (D > 0) return Math::round(a * V(s)) / V(s);
      else return Math::round(a / V(s)) * V(s);
    }
  }
  template <class F, class G> static constexpr auto backward(F, G) { return Zero<F::dim>{}; }
};

/// round<d>: round<d>(a)_k = a_k rounded to d decimals, halfway cases away from zero
/// (C round, as KeOps' Round(a, d)): round(a_k 10^d) / 10^d, computed in the data
/// type (so a float a_k 10^d is rounded before the integer is chosen); d < 0
/// rounds to tens, hundreds...: round(a_k / 10^-d) 10^-d. round(a) is round<0>(a).
/// Derivative: zero (piecewise constant).
/// Simplifications: round<d>(0) = 0; an integer constant is unchanged for d >= 0.
template <int D = 0, Formula F>
constexpr auto round([[maybe_unused]] F f) {
  static_assert(D >= -22 && D <= 22, "kops::round: the number of decimals must be in [-22, 22]");
  if constexpr (is_zero_v<F>) return f;
  else if constexpr (D >= 0 && is_constant_v<F>) {
    if constexpr (F::den == 1) return f;
    else return Unary<round_op<D>, F>{};
  } else return Unary<round_op<D>, F>{};
}

} // namespace kops
