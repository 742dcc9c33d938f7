#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/imag2complex.hpp>
#include <kops/ops/minus.hpp>

namespace kops {

template <Formula F>
struct ComplexImag : formula_node {
  static_assert(F::dim % 2 == 0, "kops::imag: the operand must have an even dim (complex (re, im) pairs)");
  static constexpr int dim = F::dim / 2;
  static constexpr const char* name = "imag";
  static constexpr const char* keops_name = "ComplexImag";
  using children = type_list<F>;
  template <class C> using rebind = ComplexImag<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim; ++k) r[k] = a[2 * k + 1];
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, imag2complex(g));
  }
};

/// imag(a): the imaginary parts of the complex numbers of a, dim 2n -> n:
/// imag(a)_k = a_{2k+1}  (KeOps: ComplexImag).
/// Derivative: [d_V imag A]^T g = [d_V A]^T imag2complex(g) (g in the imaginary slots).
/// Simplifications: imag(0) = 0; imag(imag2complex a) = a;
/// imag(real2complex a) = 0; imag(conj a) = -imag(a); imag(-a) = -imag(a).
template <Formula F>
constexpr auto imag([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0, "kops::imag: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0) return Zero<1>{};
  else if constexpr (is_zero_v<F>) return Zero<F::dim / 2>{};
  else if constexpr (detail::is_imag2complex_v<F>) return operand_t<F, 0>{};
  else if constexpr (detail::is_real2complex_v<F>) return Zero<F::dim / 2>{};
  else if constexpr (detail::is_conj_v<F>) return -imag(operand_t<F, 0>{});
  else if constexpr (detail::is_neg_v<F>) return -imag(operand_t<F, 0>{});
  else return ComplexImag<F>{};
}

} // namespace kops
