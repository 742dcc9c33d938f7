#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/dot.hpp>
#include <kops/ops/mult.hpp>

namespace kops {

template <Formula A, Formula B>
struct MatVecMult : formula_node {
  static_assert(A::dim % B::dim == 0, "kops::matvecmult: dim A must be a multiple of dim b");
  static constexpr int dim = A::dim / B::dim;
  static constexpr const char* name = "matvecmult";
  static constexpr const char* keops_name = "MatVecMult";
  using children = type_list<A, B>;
  template <class C1, class C2> using rebind = MatVecMult<C1, C2>;

  // A:(n, m) row-major, b:(m) -> (n)
  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    constexpr int m = B::dim;
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int i = 0; i < dim; ++i) {
      auto s = a[i * m] * b[0];
      for (int k = 1; k < m; ++k) s = s + a[i * m + k] * b[k];
      r[i] = s;
    }
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g);
};

/// matvecmult(A, b): the matrix-vector product of a flat row-major n x m matrix
/// A (dim n m) and a vector b (dim m), dim n: matvecmult(A, b)_i = sum_k A_{i m + k} b_k.
/// n is dim A / dim b, as in KeOps' MatVecMult, so dim A must be a multiple of dim b.
/// Derivative (linear in each operand):
/// ```text
///   [d_V A b]^T g = [d_V A]^T tensorprod(g, b) + [d_V b]^T vecmatmult(g, A).
/// ```
/// Simplifications: a zero operand gives zero<n>; dim b = 1 is A b (a scaled
/// vector); n = 1 is dot(A, b).
template <Formula A, Formula B>
constexpr auto matvecmult([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(A::dim % B::dim == 0,
                "kops::matvecmult: dim A must be a multiple of dim b (A is n x m row-major, b has dim m)");
  constexpr int n = A::dim / B::dim;
  if constexpr (A::dim % B::dim != 0) return Zero<1>{};  // (after the failed assertion: no second error)
  else if constexpr (is_zero_v<A> || is_zero_v<B>) return Zero<n>{};
  else if constexpr (B::dim == 1) return a * b;
  else if constexpr (n == 1) return dot(a, b);
  else return MatVecMult<A, B>{};
}

} // namespace kops

// The adjoints' builders (they include this header back; the vjp below is only
// instantiated once all three are declared).
#include <kops/ops/tensorprod.hpp>
#include <kops/ops/vecmatmult.hpp>

namespace kops {

template <Formula A, Formula B>
template <class V, class G>
constexpr auto MatVecMult<A, B>::vjp(V v, G g) {
  return grad(A{}, v, tensorprod(g, B{})) + grad(B{}, v, vecmatmult(g, A{}));
}

} // namespace kops
