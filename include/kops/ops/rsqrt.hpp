#pragma once

#include <kops/ops/divide.hpp>
#include <kops/ops/pow.hpp>
namespace kops {

struct rsqrt_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "rsqrt";
  static constexpr const char* keops_name = "Rsqrt";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& a) { return Math::rsqrt(a); }
  template <class F, class G> static constexpr auto backward(F f, G g) { return make_constant<-1, 2>() * (pow<3>(rsqrt(f)) * g); }
};

/// rsqrt: rsqrt(a)_k = a_k^{-1/2}, with rsqrt(0) = 0 (KeOps convention).
/// Simplifications: rsqrt(1) = 1; rsqrt(0) = 0.
/// Derivative: [d_V rsqrt A]^T g = [d_V A]^T (-rsqrt(A)^3 g / 2).
template <Formula F>
constexpr auto rsqrt([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F> || is_one_v<F>) return f;
  else return Unary<rsqrt_op, F>{};
}

} // namespace kops
