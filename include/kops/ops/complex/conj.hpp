#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/imag2complex.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/minus.hpp>

namespace kops {

template <Formula F>
struct Conj : formula_node {
  static_assert(F::dim % 2 == 0, "kops::conj: the operand must have an even dim (complex (re, im) pairs)");
  static constexpr int dim = F::dim;
  static constexpr const char* name = "conj";
  static constexpr const char* keops_name = "Conj";
  using children = type_list<F>;
  template <class C> using rebind = Conj<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    auto a = F::eval(ctx);
    for (int k = 1; k < dim; k += 2) a[k] = -a[k];
    return a;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, conj(g));
  }
};

/// conj(a): the complex conjugates of the complex numbers of a, dim 2n -> 2n:
/// conj(a) = (a_0, -a_1, a_2, -a_3, ...)  (KeOps: Conj).
/// Derivative: [d_V conj A]^T g = [d_V A]^T conj(g) (conjugation is real-linear
/// and its real Jacobian, diag(1, -1, ...), is symmetric).
/// Simplifications: conj(0) = 0; conj(conj a) = a; conj(real2complex a) =
/// real2complex(a); conj(imag2complex a) = -imag2complex(a); conj(-a) = -conj(a).
template <Formula F>
constexpr auto conj([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0, "kops::conj: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0 || is_zero_v<F>) return f;
  else if constexpr (detail::is_conj_v<F>) return operand_t<F, 0>{};
  else if constexpr (detail::is_real2complex_v<F>) return f;
  else if constexpr (detail::is_imag2complex_v<F>) return -f;
  else if constexpr (detail::is_neg_v<F>) return -conj(operand_t<F, 0>{});
  else return Conj<F>{};
}

} // namespace kops
