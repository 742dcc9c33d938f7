#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/imag.hpp>
#include <kops/ops/minus.hpp>

namespace kops {

template <Formula F>
struct Imag2Complex : formula_node {
  static constexpr int dim = 2 * F::dim;
  static constexpr const char* name = "imag2complex";
  static constexpr const char* keops_name = "Imag2Complex";
  using children = type_list<F>;
  template <class C> using rebind = Imag2Complex<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    const auto a = F::eval(ctx);
    vec<V, dim> r;
    for (int k = 0; k < F::dim; ++k) {
      r[2 * k] = V(typename Ctx::scalar_type(0));
      r[2 * k + 1] = a[k];
    }
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, imag(g));
  }
};

/// imag2complex(a): the complex numbers with zero real parts and imaginary
/// parts a, dim n -> 2n: imag2complex(a) = (0, a_0, 0, a_1, ...)  (KeOps: Imag2Complex).
/// Derivative: [d_V imag2complex A]^T g = [d_V A]^T imag(g) (the adjoint of the embedding).
/// Simplifications: imag2complex(0) = 0; imag2complex(-a) = -imag2complex(a).
template <Formula F>
constexpr auto imag2complex([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return Zero<2 * F::dim>{};
  else if constexpr (detail::is_neg_v<F>) return -imag2complex(operand_t<F, 0>{});
  else return Imag2Complex<F>{};
}

} // namespace kops
