#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/complex/complex_exp1j.hpp>
#include <kops/ops/complex/complex_mult.hpp>
#include <kops/ops/complex/conj.hpp>
#include <kops/ops/complex/real2complex.hpp>
#include <kops/ops/cos.hpp>
#include <kops/ops/exp.hpp>
#include <kops/ops/sin.hpp>
#include <kops/ops/sum.hpp>

namespace kops {

struct complex_exp_op {
  static constexpr bool expensive = true;  // worth evaluating once (core/factorize.hpp)
  static constexpr const char* name = "complex_exp";
  static constexpr const char* keops_name = "ComplexExp";
};

template <Formula F>
struct ComplexExp : formula_node {
  static_assert(F::dim % 2 == 0, "kops::complex_exp: the operand must have an even dim (complex (re, im) pairs)");
  static constexpr int dim = F::dim;
  using op = complex_exp_op;  // names, and the cost hint read by core/factorize.hpp
  using children = type_list<F>;
  template <class C> using rebind = ComplexExp<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using Math = math_t<Ctx>;
    auto a = F::eval(ctx);
    for (int k = 0; k < dim; k += 2) {
      const auto m = Math::exp(a[k]);
      const auto c = Math::cos(a[k + 1]);
      const auto s = Math::sin(a[k + 1]);
      a[k] = m * c;
      a[k + 1] = m * s;
    }
    return a;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, complex_mult(conj(complex_exp(F{})), g));
  }
};

/// complex_exp(a): the complex exponentials of the complex numbers of a,
/// dim 2n -> 2n: complex_exp(a)_k = e^{ar} (cos ai, sin ai)  (KeOps: ComplexExp).
/// Derivative: d e^z = e^z dz is complex-linear, so its real adjoint is
/// multiplication by conj(e^z):
/// ```text
///   [d_V complex_exp A]^T g = [d_V A]^T complex_mult(conj(complex_exp A), g).
/// ```
/// Simplifications: complex_exp(0) = real2complex(1, ..., 1);
/// complex_exp(real2complex a) = real2complex(exp a);
/// complex_exp(imag2complex a) = complex_exp1j(a).
template <Formula F>
constexpr auto complex_exp([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0, "kops::complex_exp: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0) return f;
  else if constexpr (is_zero_v<F>) return real2complex(sum_t<F::dim / 2>(cst<1>));
  else if constexpr (detail::is_real2complex_v<F>) return real2complex(exp(operand_t<F, 0>{}));
  else if constexpr (detail::is_imag2complex_v<F>) return complex_exp1j(operand_t<F, 0>{});
  else return ComplexExp<F>{};
}

} // namespace kops
