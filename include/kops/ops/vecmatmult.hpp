#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/dot.hpp>
#include <kops/ops/mult.hpp>

namespace kops {

template <Formula B, Formula A>
struct VecMatMult : formula_node {
  static_assert(A::dim % B::dim == 0, "kops::vecmatmult: dim A must be a multiple of dim b");
  static constexpr int dim = A::dim / B::dim;
  static constexpr const char* name = "vecmatmult";
  static constexpr const char* keops_name = "VecMatMult";
  using children = type_list<B, A>;
  template <class C1, class C2> using rebind = VecMatMult<C1, C2>;

  // b:(n), A:(n, m) row-major -> (m)
  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    constexpr int n = B::dim;
    const auto b = B::eval(ctx);
    const auto a = A::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim; ++k) r[k] = b[0] * a[k];
    for (int i = 1; i < n; ++i)
      for (int k = 0; k < dim; ++k) r[k] = r[k] + b[i] * a[i * dim + k];
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g);
};

/// vecmatmult(b, A): the vector-matrix product of a vector b (dim n) and a flat
/// row-major n x m matrix A (dim n m), dim m: vecmatmult(b, A)_k = sum_i b_i A_{i m + k}.
/// m is dim A / dim b, as in KeOps' VecMatMult, so dim A must be a multiple of dim b.
/// Derivative (linear in each operand):
/// ```text
///   [d_V b A]^T g = [d_V b]^T matvecmult(A, g) + [d_V A]^T tensorprod(b, g).
/// ```
/// Simplifications: a zero operand gives zero<m>; dim b = 1 is b A (a scaled
/// vector); m = 1 is dot(b, A).
template <Formula B, Formula A>
constexpr auto vecmatmult([[maybe_unused]] B b, [[maybe_unused]] A a) {
  static_assert(A::dim % B::dim == 0,
                "kops::vecmatmult: dim A must be a multiple of dim b (b has dim n, A is n x m row-major)");
  constexpr int m = A::dim / B::dim;
  if constexpr (A::dim % B::dim != 0) return Zero<1>{};  // (after the failed assertion: no second error)
  else if constexpr (is_zero_v<A> || is_zero_v<B>) return Zero<m>{};
  else if constexpr (B::dim == 1) return b * a;
  else if constexpr (m == 1) return dot(b, a);
  else return VecMatMult<B, A>{};
}

} // namespace kops

// The adjoints' builders (they include this header back).
#include <kops/ops/matvecmult.hpp>
#include <kops/ops/tensorprod.hpp>

namespace kops {

template <Formula B, Formula A>
template <class V, class G>
constexpr auto VecMatMult<B, A>::vjp(V v, G g) {
  return grad(B{}, v, matvecmult(A{}, g)) + grad(A{}, v, tensorprod(B{}, g));
}

} // namespace kops
