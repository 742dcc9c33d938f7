#pragma once

#include <kops/ops/floor.hpp>

namespace kops {

struct mod_op {
  static constexpr const char* name = "mod";
  static constexpr const char* keops_name = "Mod";
  template <class Math, class V> KOPS_HD KOPS_INLINE static V apply(const V& x, const V& n, const V& o) {
    return x - n * Math::floor((x - o) / n);
  }
  template <class X, class N, class O, class G> static constexpr auto backward_a(X, N, O, G g) { return g; }
  template <class X, class N, class O, class G> static constexpr auto backward_b(X x, N n, O o, G g) {
    return -(floor((x - o) / n) * g);
  }
  template <class X, class N, class O, class G> static constexpr auto backward_c(X, N, O, G) {
    return Zero<O::dim>{};
  }
};

/// mod: mod(x, n, o)_k = x_k - n_k floor((x_k - o_k) / n_k), the representative of
/// x_k modulo n_k in [o_k, o_k + n_k) (for n_k > 0; KeOps' Mod(x, n, o)); mod(x, n)
/// has offset o = 0. Dims: each of x, n, o is 1 or the result's dim.
/// Derivative (floor contributes nothing):
/// ```text
///   [d_V mod(X, N, O)]^T g = [d_V X]^T g - [d_V N]^T (floor((X - O) / N) g);  O: none.
/// ```
/// Simplifications: none.
template <Formula X, Formula N, Formula O>
constexpr auto mod(X, N, O) {
  static_assert(broadcastable(X::dim, N::dim, O::dim),
                "kops::mod: operand dims must each be 1 or the largest of the three (broadcasting)");
  return Ternary<mod_op, X, N, O>{};
}

/// mod(x, n) = mod(x, n, 0): the representative of x_k modulo n_k in [0, n_k).
template <Formula X, Formula N>
constexpr auto mod(X x, N n) {
  return mod(x, n, Zero<1>{});
}

} // namespace kops
