#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>

namespace kops {

template <Formula F>
struct Sum : formula_node {
  static constexpr int dim = 1;
  static constexpr const char* name = "sum";
  static constexpr const char* keops_name = "Sum";
  // The sum of its operand's components: evaluated in chunks when wide (lowering/chunk.hpp).
  static constexpr bool coordinate_sum = true;
  using children = type_list<F>;
  template <class C> using rebind = Sum<C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    auto s = a[0];
    for (int k = 1; k < F::dim; ++k) s = s + a[k];
    return vec<value_t<Ctx>, 1>{{s}};
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g);
};

template <int D, Formula F>
struct SumT : formula_node {
  static_assert(F::dim == 1, "kops::sum_t: the operand must have dim 1");
  static constexpr int dim = D;
  static constexpr const char* name = "sum_t";
  static constexpr const char* keops_name = "SumT";
  using print_params = int_params<D>;
  using children = type_list<F>;
  template <class C> using rebind = SumT<D, C>;
  // The broadcast of its operand to D components: over fewer, in chunks of the
  // dimension (lowering/chunk.hpp), sum_t<D2> of the same operand.
  static constexpr bool broadcast = true;
  template <int D2> using resized = SumT<D2, F>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, D> r;
    for (int k = 0; k < D; ++k) r[k] = a[0];
    return r;
  }

  template <class V, class G>
  static constexpr auto vjp(V v, G g);
};

struct minus_op;

/// sum: the within-vector sum, dim D -> 1: sum(a) = a_0 + ... + a_{D-1}.
/// sum_t<D>: its adjoint, dim 1 -> D: sum_t<D>(a) = (a, ..., a).
/// Derivatives: [d_V sum A]^T g = [d_V A]^T sum_t(g);  [d_V sum_t A]^T g = [d_V A]^T sum(g).
/// Simplifications: sum of a dim-1 formula is the formula; sum(0) = 0;
/// sum_t<1>(a) = a; sum_t(0) = 0; signs move out: sum(-a) = -sum(a), sum_t likewise.
template <Formula F>
constexpr auto sum([[maybe_unused]] F f) {
  if constexpr (F::dim == 1) return f;
  else if constexpr (is_zero_v<F>) return Zero<1>{};
  else if constexpr (is_op_v<F, minus_op>) return -sum(operand_t<F, 0>{});
  else return Sum<F>{};
}

/// `sum_t<D>(a)` = (a, ..., a), dim 1 -> D: the adjoint of sum(). See sum().
template <int D, Formula F>
constexpr auto sum_t([[maybe_unused]] F f) {
  static_assert(F::dim == 1, "kops::sum_t: the operand must have dim 1");
  if constexpr (D == 1) return f;
  else if constexpr (is_zero_v<F>) return Zero<D>{};
  else if constexpr (is_op_v<F, minus_op>) return -sum_t<D>(operand_t<F, 0>{});
  else return SumT<D, F>{};
}

// h as a gradient for an operand of dim D: h itself, or, when that operand was
// broadcast (D = 1 < dim h), the sum of h over the broadcast components.
template <int D, Formula H>
constexpr auto fit_dim(H h) {
  if constexpr (H::dim == D) return h;
  else {
    static_assert(D == 1, "kops: internal error, gradient dims do not fit");
    return sum(h);
  }
}

template <Formula F>
template <class V, class G>
constexpr auto Sum<F>::vjp(V v, G g) {
  return grad(F{}, v, sum_t<F::dim>(g));
}

template <int D, Formula F>
template <class V, class G>
constexpr auto SumT<D, F>::vjp(V v, G g) {
  return grad(F{}, v, sum(g));
}

} // namespace kops
