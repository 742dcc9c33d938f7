#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/conj.hpp>
#include <kops/ops/complex/imag.hpp>
#include <kops/ops/complex/real.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/cos.hpp>
#include <kops/ops/sin.hpp>
#include <kops/ops/subtract.hpp>
#include <kops/ops/sum.hpp>

namespace kops {

struct complex_exp1j_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "complex_exp1j";
  static constexpr const char* keops_name = "ComplexExp1j";
};

template <Formula F>
struct ComplexExp1j : formula_node {
  static constexpr int dim = 2 * F::dim;
  using op = complex_exp1j_op;  // names, and the cost hint read by core/factorize.hpp
  using children = type_list<F>;
  template <class C> using rebind = ComplexExp1j<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using Math = math_t<Ctx>;
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, dim> r;
    for (int k = 0; k < F::dim; ++k) {
      r[2 * k] = Math::cos(a[k]);
      r[2 * k + 1] = Math::sin(a[k]);
    }
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, cos(F{}) * imag(g) - sin(F{}) * real(g));
  }
};

/// complex_exp1j(a): e^{i a} for a real vector a, dim n -> 2n:
/// complex_exp1j(a)_k = (cos a_k, sin a_k)  (KeOps: ComplexExp1j).
/// Derivative: d(cos a, sin a) = (-sin a, cos a) da, whose adjoint is
/// ```text
///   [d_V complex_exp1j A]^T g = [d_V A]^T (cos(A) imag(g) - sin(A) real(g)).
/// ```
/// Simplifications: complex_exp1j(0) = real2complex(1, ..., 1);
/// complex_exp1j(-a) = conj(complex_exp1j(a)).
template <Formula F>
constexpr auto complex_exp1j([[maybe_unused]] F f) {
  if constexpr (is_zero_v<F>) return real2complex(sum_t<F::dim>(cst<1>));
  else if constexpr (detail::is_neg_v<F>) return conj(complex_exp1j(operand_t<F, 0>{}));
  else return ComplexExp1j<F>{};
}

} // namespace kops
