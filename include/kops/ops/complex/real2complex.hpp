#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/real.hpp>
#include <kops/ops/minus.hpp>

namespace kops {

template <Formula F>
struct Real2Complex : formula_node {
  static constexpr int dim = 2 * F::dim;
  static constexpr const char* name = "real2complex";
  static constexpr const char* keops_name = "Real2Complex";
  using children = type_list<F>;
  template <class C> using rebind = Real2Complex<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    const auto a = F::eval(ctx);
    vec<V, dim> r;
    for (int k = 0; k < F::dim; ++k) {
      r[2 * k] = a[k];
      r[2 * k + 1] = V(typename Ctx::scalar_type(0));
    }
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, real(g));
  }
};

/// real2complex(a): the complex numbers with real parts a and zero imaginary
/// parts, dim n -> 2n: real2complex(a) = (a_0, 0, a_1, 0, ...)  (KeOps: Real2Complex).
/// Derivative: [d_V real2complex A]^T g = [d_V A]^T real(g) (the adjoint of the embedding).
/// Simplifications: real2complex(0) = 0; real2complex(-a) = -real2complex(a).
template <Formula F>
constexpr auto real2complex([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return Zero<2 * F::dim>{};
  else if constexpr (detail::is_neg_v<F>) return -real2complex(operand_t<F, 0>{});
  else return Real2Complex<F>{};
}

} // namespace kops
