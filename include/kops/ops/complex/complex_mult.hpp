#pragma once

#include <kops/core/order.hpp>
#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/complex_sum.hpp>
#include <kops/ops/complex/conj.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/mult.hpp>

namespace kops {

template <Formula A, Formula B>
struct ComplexMult : formula_node {
  static_assert(complex_broadcastable(A::dim, B::dim),
                "kops::complex_mult: operand dims must be even, and equal or one of them 2 (complex broadcasting)");
  static constexpr int dim = A::dim > B::dim ? A::dim : B::dim;
  static constexpr const char* name = "complex_mult";
  static constexpr const char* keops_name = "ComplexMult";
  using children = type_list<A, B>;
  template <class C1, class C2> using rebind = ComplexMult<C1, C2>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = A::eval(ctx);
    const auto b = B::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim / 2; ++k) {
      const auto ar = detail::cre(a, k), ai = detail::cim(a, k);
      const auto br = detail::cre(b, k), bi = detail::cim(b, k);
      r[2 * k] = ar * br - ai * bi;
      r[2 * k + 1] = ar * bi + ai * br;
    }
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(A{}, v, detail::complex_fit_dim<A::dim>(complex_mult(conj(B{}), g))) +
           grad(B{}, v, detail::complex_fit_dim<B::dim>(complex_mult(conj(A{}), g)));
  }
};

namespace detail {
// F = real2complex(s) with s of dim 1: a real scalar as a complex number.
template <class F> inline constexpr bool is_real_scalar_complex_v = false;
template <class S> inline constexpr bool is_real_scalar_complex_v<Real2Complex<S>> = S::dim == 1;
} // namespace detail

/// complex_mult(a, b): the products of the complex numbers of a and b, pair by
/// pair with complex broadcasting (dims equal and even, or one of them 2):
/// (a b)_k = (ar br - ai bi, ar bi + ai br)  (KeOps: ComplexMult).
/// Derivative: multiplication by b is complex-linear, so its real adjoint is
/// multiplication by conj(b):
/// ```text
///   [d_V (A B)]^T g = [d_V A]^T (conj(B) g) + [d_V B]^T (conj(A) g),
/// ```
/// each summed over the pairs a dim-2 operand was broadcast to (complex_sum).
/// Simplifications: 0 b = 0; real2complex(s) z = s z for a real scalar s
/// (dim 1: plain real broadcasting); real2complex(a) real2complex(b) =
/// real2complex(a b); signs move out; operands in canonical order.
template <Formula A, Formula B>
constexpr auto complex_mult([[maybe_unused]] A a, [[maybe_unused]] B b) {
  static_assert(complex_broadcastable(A::dim, B::dim),
                "kops::complex_mult: operand dims must be even, and equal or one of them 2 (complex broadcasting)");
  constexpr int D = A::dim > B::dim ? A::dim : B::dim;
  if constexpr (!complex_broadcastable(A::dim, B::dim)) return Zero<D>{};
  else if constexpr (is_zero_v<A> || is_zero_v<B>) return Zero<D>{};
  else if constexpr (detail::is_real_scalar_complex_v<A>) return operand_t<A, 0>{} * b;
  else if constexpr (detail::is_real_scalar_complex_v<B>) return operand_t<B, 0>{} * a;
  else if constexpr (detail::is_real2complex_v<A> && detail::is_real2complex_v<B>)
    return real2complex(operand_t<A, 0>{} * operand_t<B, 0>{});
  else if constexpr (detail::is_neg_v<A>) return -complex_mult(operand_t<A, 0>{}, b);
  else if constexpr (detail::is_neg_v<B>) return -complex_mult(a, operand_t<B, 0>{});
  else if constexpr (detail::type_less<B, A>()) return ComplexMult<B, A>{};
  else return ComplexMult<A, B>{};
}

} // namespace kops
