#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/mult.hpp>

namespace kops {

template <Formula A, Formula B>
struct TensorProd : formula_node {
  static constexpr int dim = A::dim * B::dim;
  static constexpr const char* name = "tensorprod";
  static constexpr const char* keops_name = "TensorProd";
  using children = type_list<A, B>;
  template <class C1, class C2> using rebind = TensorProd<C1, C2>;

  // a:(p), b:(q) -> (p, q) row-major
  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int i = 0; i < A::dim; ++i)
      for (int j = 0; j < B::dim; ++j) r[i * B::dim + j] = a[i] * b[j];
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g);
};

/// tensorprod(a, b): the outer product of a (dim p) and b (dim q), flat row-major,
/// dim p q: tensorprod(a, b)_{i q + j} = a_i b_j (KeOps' TensorProd).
/// Derivative (linear in each operand):
/// ```text
///   [d_V tensorprod(a, b)]^T g = [d_V a]^T matvecmult(g, b) + [d_V b]^T vecmatmult(a, g).
/// ```
/// Simplifications: a zero operand gives `zero<p q>`; p = 1 or q = 1 is a b (a
/// scaled vector).
template <Formula A, Formula B>
constexpr auto tensorprod([[maybe_unused]] A a, [[maybe_unused]] B b) {
  if constexpr (is_zero_v<A> || is_zero_v<B>) return Zero<A::dim * B::dim>{};
  else if constexpr (A::dim == 1 || B::dim == 1) return a * b;
  else return TensorProd<A, B>{};
}

} // namespace kops

// The adjoints' builders (they include this header back).
#include <kops/ops/matvecmult.hpp>
#include <kops/ops/vecmatmult.hpp>

namespace kops {

template <Formula A, Formula B>
template <class V, class G>
constexpr auto TensorProd<A, B>::vjp(V v, G g) {
  return grad(A{}, v, matvecmult(g, B{})) + grad(B{}, v, vecmatmult(A{}, g));
}

} // namespace kops
