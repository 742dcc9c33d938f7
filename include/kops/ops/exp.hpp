#pragma once

#include <kops/ops/divide.hpp>

namespace kops {

struct exp_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "exp";
  static constexpr const char* keops_name = "Exp";
  template <class M, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return M::exp(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return exp(f) * g; }
};

/// exp: exp(a)_k = e^{a_k}.
/// Simplifications: exp(0) = 1 (dim 1); exp(log a) is kept (a may be negative).
/// Derivative: [d_V exp A]^T g = [d_V A]^T (exp(A) g).
template <Formula F>
constexpr auto exp([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> && F::dim == 1) return cst<1>;
  else return Unary<exp_op, F>{};
}

} // namespace kops
