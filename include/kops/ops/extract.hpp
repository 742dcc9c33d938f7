#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>

namespace kops {

template <int S, int D, Formula F>
struct Extract : formula_node {
  static_assert(S >= 0 && D >= 1 && S + D <= F::dim, "kops::extract: the block must lie inside the operand");
  static constexpr int dim = D;
  static constexpr int start = S;
  static constexpr const char* name = "extract";
  static constexpr const char* keops_name = "Extract";
  using print_params = int_params<S, D>;
  using children = type_list<F>;
  template <class C> using rebind = Extract<S, D, C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    const auto a = F::eval(ctx);
    vec<value_t<Ctx>, D> r;
    for (int k = 0; k < D; ++k) r[k] = a[S + k];
    return r;
  }
  template <class V, class G> static constexpr auto vjp(V v, G g);
};

template <int S, int N, Formula F>
struct ExtractT : formula_node {
  static_assert(S >= 0 && S + F::dim <= N, "kops::extract_t: the operand must fit at that place");
  static constexpr int dim = N;
  static constexpr int start = S;
  static constexpr const char* name = "extract_t";
  static constexpr const char* keops_name = "ExtractT";
  using print_params = int_params<S, N>;
  using children = type_list<F>;
  template <class C> using rebind = ExtractT<S, N, C>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    const auto a = F::eval(ctx);
    vec<V, N> r;
    for (int k = 0; k < N; ++k) r[k] = V(typename Ctx::scalar_type(0));
    for (int k = 0; k < F::dim; ++k) r[S + k] = a[k];
    return r;
  }
  template <class V, class G> static constexpr auto vjp(V v, G g);
};

namespace detail {
// F = extract_t<S, N>(a) with dim a = D: extract<S, D>(F) is a.
template <class F, int S, int D> inline constexpr bool is_extract_t_at_v = false;
template <int S, int N, class A, int D>
inline constexpr bool is_extract_t_at_v<ExtractT<S, N, A>, S, D> = A::dim == D;
} // namespace detail

/// extract<S, D>(a) = (a_S, ..., a_{S+D-1}), dim D (a block of components);
/// extract_t<S, N>(a) = the dim-N vector with a at components S..S+dim a-1 and
/// zeros elsewhere (its adjoint). elem<m>(a) = extract<m, 1>(a);
/// elem_t<n, m>(a) = extract_t<m, n>(a) for a dim-1 a.
/// Derivatives: [d_V extract<S,D> A]^T g = [d_V A]^T extract_t<S, dim A>(g), and
/// [d_V extract_t<S,N> A]^T g = [d_V A]^T extract<S, dim A>(g).
/// Simplifications: the whole vector is itself; zeros stay zeros;
/// extract of extract_t at the same place is the operand.
template <int S, int D, Formula F>
constexpr auto extract([[maybe_unused]] F f) {
  static_assert(S >= 0 && D >= 1 && S + D <= F::dim, "kops::extract: the block must lie inside the operand");
  if constexpr (S == 0 && D == F::dim) return f;
  else if constexpr (is_zero_v<F>) return Zero<D>{};
  else if constexpr (detail::is_extract_t_at_v<F, S, D>) return operand_t<F, 0>{};
  else return Extract<S, D, F>{};
}

/// `extract_t<S, N>(a)`: the dim-N vector with a at components S..S+dim a-1 and
/// zeros elsewhere, the adjoint of extract(): see extract().
template <int S, int N, Formula F>
constexpr auto extract_t([[maybe_unused]] F f) {
  static_assert(S >= 0 && S + F::dim <= N, "kops::extract_t: the operand must fit at that place");
  if constexpr (S == 0 && N == F::dim) return f;
  else if constexpr (is_zero_v<F>) return Zero<N>{};
  else return ExtractT<S, N, F>{};
}

/// `elem<m>(a)` = `extract<m, 1>(a)`: component m of a, dim 1. See extract().
template <int M, Formula F>
constexpr auto elem(F f) {
  static_assert(M >= 0 && M < F::dim, "kops::elem: the index must be below the operand's dim");
  return extract<M, 1>(f);
}

/// `elem_t<n, m>(a)` = `extract_t<m, n>(a)` for a dim-1 a: the dim-n vector with a at
/// component m and zeros elsewhere, the adjoint of elem(). See extract().
template <int N, int M, Formula F>
constexpr auto elem_t(F f) {
  static_assert(F::dim == 1 && M >= 0 && M < N, "kops::elem_t: a dim-1 operand and 0 <= m < n");
  return extract_t<M, N>(f);
}

template <int S, int D, Formula F>
template <class V, class G>
constexpr auto Extract<S, D, F>::vjp(V v, G g) {
  return grad(F{}, v, extract_t<S, F::dim>(g));
}
template <int S, int N, Formula F>
template <class V, class G>
constexpr auto ExtractT<S, N, F>::vjp(V v, G g) {
  return grad(F{}, v, extract<S, F::dim>(g));
}

} // namespace kops
