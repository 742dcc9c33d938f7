#pragma once

#include <kops/ops/complex/common.hpp>
#include <kops/ops/minus.hpp>

namespace kops {

template <Formula F>
struct ComplexSum : formula_node {
  static_assert(F::dim % 2 == 0, "kops::complex_sum: the operand must have an even dim (complex (re, im) pairs)");
  static constexpr int dim = 2;
  static constexpr const char* name = "complex_sum";
  static constexpr const char* keops_name = "ComplexSum";
  using children = type_list<F>;
  template <class C> using rebind = ComplexSum<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, 2> r{{a[0], a[1]}};
    for (int k = 2; k < F::dim; k += 2) {
      r[0] = r[0] + a[k];
      r[1] = r[1] + a[k + 1];
    }
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, complex_sum_t<F::dim>(g));
  }
};

template <int D, Formula F>
struct ComplexSumT : formula_node {
  static_assert(F::dim == 2 && D % 2 == 0 && D >= 2,
                "kops::complex_sum_t: the operand must have dim 2 (one complex number) and D must be even");
  static constexpr int dim = D;
  static constexpr const char* name = "complex_sum_t";
  static constexpr const char* keops_name = "ComplexSumT";
  using print_params = int_params<D>;
  using children = type_list<F>;
  template <class C> using rebind = ComplexSumT<D, C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, D> r;
    for (int k = 0; k < D; k += 2) {
      r[k] = a[0];
      r[k + 1] = a[1];
    }
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g) {
    return grad(F{}, v, complex_sum(g));
  }
};

/// complex_sum(a): the sum of the complex numbers of a, dim 2n -> 2:
/// complex_sum(a) = (sum_k a_{2k}, sum_k a_{2k+1})  (KeOps: ComplexSum).
/// complex_sum_t<D>(a): its adjoint, dim 2 -> D (D even): a repeated D/2 times,
/// (a_0, a_1, a_0, a_1, ...)  (KeOps: ComplexSumT(a, D)).
/// Derivatives: [d_V complex_sum A]^T g = [d_V A]^T complex_sum_t<dim A>(g);
/// [d_V complex_sum_t A]^T g = [d_V A]^T complex_sum(g).
/// Simplifications: complex_sum of a dim-2 formula is the formula;
/// complex_sum_t<2>(a) = a; zeros stay zeros; signs move out.
template <Formula F>
constexpr auto complex_sum([[maybe_unused]] F f) {
  static_assert(F::dim % 2 == 0, "kops::complex_sum: the operand must have an even dim (complex (re, im) pairs)");
  if constexpr (F::dim % 2 != 0 || F::dim == 2) return f;
  else if constexpr (is_zero_v<F>) return Zero<2>{};
  else if constexpr (detail::is_neg_v<F>) return -complex_sum(operand_t<F, 0>{});
  else return ComplexSum<F>{};
}

/// `complex_sum_t<D>(a)`: the adjoint of complex_sum(), dim 2 -> D (D even): a repeated
/// D/2 times, (a_0, a_1, a_0, a_1, ...) (KeOps: ComplexSumT(a, D)). See complex_sum().
template <int D, Formula F>
constexpr auto complex_sum_t([[maybe_unused]] F f) {
  static_assert(F::dim == 2 && D % 2 == 0 && D >= 2,
                "kops::complex_sum_t: the operand must have dim 2 (one complex number) and D must be even");
  if constexpr (F::dim != 2 || D % 2 != 0 || D < 2 || D == 2) return f;
  else if constexpr (is_zero_v<F>) return Zero<D>{};
  else if constexpr (detail::is_neg_v<F>) return -complex_sum_t<D>(operand_t<F, 0>{});
  else return ComplexSumT<D, F>{};
}

} // namespace kops
