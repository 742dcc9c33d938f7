#pragma once

#include <kops/core/named_constant.hpp>
#include <kops/ops/mult.hpp>

namespace kops {

struct exp2_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "exp2";
  static constexpr const char* keops_name = "Exp2";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::exp2(a); }
  template <class F, class G> static constexpr auto backward(F f, G g);
};

/// exp2: exp2(a)_k = 2^{a_k}.
/// Derivative: [d_V exp2 A]^T g = [d_V A]^T (ln 2 exp2(A) g).
/// Backends evaluate exp(a) as exp2(a log2 e) under the fast precision policy
/// (exp_op::fast_form in ops/exp.hpp, applied by lowering/lower.hpp), with
/// log2 e grouped into the invariant factors of a so that it costs nothing per pair.
template <Formula F>
constexpr auto exp2([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> && F::dim == 1) return cst<1>;
  else return Unary<exp2_op, F>{};
}

template <class F, class G>
constexpr auto exp2_op::backward(F f, G g) {
  return ln2 * (exp2(f) * g);
}

} // namespace kops
