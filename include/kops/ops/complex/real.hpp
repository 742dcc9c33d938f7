#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/minus.hpp>

namespace kops {

template <Formula F>
struct ComplexReal : formula_node {
  static_assert(F::dim % 2 == 0, "kops::real: the operand must have an even dim (complex (re, im) pairs)");
  static constexpr int dim = F::dim / 2;
  static constexpr const char* name = "real";
  static constexpr const char* keops_name = "ComplexReal";
  using children = type_list<F>;
  template <class C> using rebind = ComplexReal<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < dim; ++k) r[k] = a[2 * k];
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, real2complex(g));
  }
};

/// real(a): the real parts of the complex numbers of a, dim 2n -> n:
/// real(a)_k = a_{2k}  (KeOps: ComplexReal).
/// Derivative: [d_V real A]^T g = [d_V A]^T real2complex(g) (g in the real slots).
/// Simplifications: real(0) = 0; real(real2complex a) = a;
/// real(imag2complex a) = 0; real(conj a) = real(a); real(-a) = -real(a).
template <Formula F>
constexpr auto real([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0, "kops::real: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0) return Zero<1>{};
  else if constexpr (is_zero_v<F>) return Zero<F::dim / 2>{};
  else if constexpr (detail::is_real2complex_v<F>) return operand_t<F, 0>{};
  else if constexpr (detail::is_imag2complex_v<F>) return Zero<F::dim / 2>{};
  else if constexpr (detail::is_conj_v<F>) return real(operand_t<F, 0>{});
  else if constexpr (detail::is_neg_v<F>) return -real(operand_t<F, 0>{});
  else return ComplexReal<F>{};
}

} // namespace kops
