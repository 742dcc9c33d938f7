#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/complex_mult.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/square.hpp>

namespace kops {

template <Formula F>
struct ComplexSquareAbs : formula_node {
  static_assert(F::dim % 2 == 0,
                "kops::complex_square_abs: the operand must have an even dim (complex (re, im) pairs)");
  static constexpr int dim = F::dim / 2;
  static constexpr const char* name = "complex_square_abs";
  static constexpr const char* keops_name = "ComplexSquareAbs";
  using children = type_list<F>;
  template <class C> using rebind = ComplexSquareAbs<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim; ++k) r[k] = a[2 * k] * a[2 * k] + a[2 * k + 1] * a[2 * k + 1];
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, complex_mult(real2complex(cst<2> * g), F{}));
  }
};

/// complex_square_abs(a): the squared moduli of the complex numbers of a,
/// dim 2n -> n: complex_square_abs(a)_k = a_{2k}^2 + a_{2k+1}^2  (KeOps: ComplexSquareAbs).
/// Derivative: d|z|^2 = 2 (re dre + im dim), so the adjoint scales each complex
/// number by its real gradient input:
/// ```text
///   [d_V |A|^2]^T g = [d_V A]^T complex_mult(real2complex(2 g), A)
/// ```
/// (for a single complex number, plainly 2 g A).
/// Simplifications: complex_square_abs(0) = 0; |-a|^2 = |conj a|^2 = |a|^2;
/// |real2complex a|^2 = |imag2complex a|^2 = square(a).
template <Formula F>
constexpr auto complex_square_abs([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0,
                "kops::complex_square_abs: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0) return Zero<1>{};
  else if constexpr (is_zero_v<F>) return Zero<F::dim / 2>{};
  else if constexpr (detail::is_neg_v<F> || detail::is_conj_v<F>) return complex_square_abs(operand_t<F, 0>{});
  else if constexpr (detail::is_real2complex_v<F> || detail::is_imag2complex_v<F>) return square(operand_t<F, 0>{});
  else return ComplexSquareAbs<F>{};
}

} // namespace kops
