#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>

namespace kops {

template <int P, Formula T, Formula X>
struct BSpline : formula_node {
  static_assert(P >= 0 && X::dim == 1 && T::dim >= P + 2,
                "kops::bspline: order p >= 0, dim x = 1 and at least p + 2 knots");
  static constexpr int dim = T::dim - P - 1;
  static constexpr const char* name = "bspline";
  static constexpr const char* keops_name = "BSpline";
  using print_params = int_params<P>;
  using children = type_list<T, X>;
  template <class C1, class C2> using rebind = BSpline<P, C1, C2>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    using S = typename Ctx::scalar_type;
    using Math = math_t<Ctx>;
    constexpr int n = T::dim - 1;  // order-0 functions; the recursion works in place
    const auto t = T::eval(ctx);
    const V x = X::eval(ctx)[0];
    const V one = V(S(1)), zero = V(S(0));
    vec<V, n> b;
    for (int j = 0; j < n; ++j) b[j] = Math::select(t[j] <= x, Math::select(x < t[j + 1], one, zero), zero);
    for (int k = 1; k <= P; ++k) {
      V wi = weight<Math>(t, x, 0, k);
      for (int i = 0; i < n - k; ++i) {
        const V wnext = weight<Math>(t, x, i + 1, k);
        b[i] = wi * b[i] + (one - wnext) * b[i + 1];
        wi = wnext;
      }
    }
    vec<V, dim> r;
    for (int i = 0; i < dim; ++i) r[i] = b[i];
    return r;
  }

  // w_{i,k}, 0 for a zero-length knot span (where the division is kept finite).
  template <class Math, class V>
  KOPS_HD KOPS_INLINE static V weight(const vec<V, T::dim>& t, const V& x, int i, int k) {
    const auto span = t[i] < t[i + k];
    return Math::select(span, (x - t[i]) / Math::select(span, t[i + k] - t[i], V(1)), V(0));
  }

  template <class V, class G>
  static constexpr auto vjp(V, G) {
    static_assert(sizeof(V) == 0,
                  "kops::bspline: no derivative (as in KeOps); only variables that bspline does not read can be "
                  "differentiated");
    return Zero<V::dim>{};
  }
};

/// `bspline<p>(t, x)`: the B-spline basis functions of order (degree) p on the knot
/// vector t (dim K, non-decreasing), at the scalar x (dim 1), dim K - p - 1
/// (KeOps' BSpline(t, x, p)), by the Cox-de Boor recursion:
/// ```text
///   B_{i,0}(x) = 1 if t_i <= x < t_{i+1}, else 0            (half-open: 0 at x = t_{K-1})
///   B_{i,k}(x) = w_{i,k} B_{i,k-1}(x) + (1 - w_{i+1,k}) B_{i+1,k-1}(x),
///   w_{i,k} = (x - t_i) / (t_{i+k} - t_i), and 0 where t_i = t_{i+k} (repeated knots).
/// ```
/// Dims: K >= p + 2, p >= 0, dim x = 1.
/// Derivative: none, as in KeOps: differentiating through bspline is a compile
/// error (variables it does not read differentiate as usual).
template <int P, Formula T, Formula X>
constexpr auto bspline(T, X) {
  static_assert(P >= 0, "kops::bspline: the order must be >= 0");
  static_assert(X::dim == 1, "kops::bspline: x must have dim 1");
  static_assert(T::dim >= P + 2, "kops::bspline: order p needs at least p + 2 knots");
  if constexpr (P >= 0 && X::dim == 1 && T::dim >= P + 2) return BSpline<P, T, X>{};
  else return Zero<1>{};  // (after a failed assertion: no second error)
}

} // namespace kops
