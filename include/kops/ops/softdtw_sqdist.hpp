#pragma once

#include <kops/core/constant.hpp>
#include <kops/core/elementwise.hpp>
#include <kops/ops/add.hpp>
#include <kops/ops/extract.hpp>
#include <kops/ops/mult.hpp>

namespace kops {

namespace detail {
// The soft-DTW recursions, on values V of the math provider Math.
template <class Math, class V>
struct softdtw {
  KOPS_HD KOPS_INLINE static V min2(const V& a, const V& b) { return Math::select(b < a, b, a); }
  KOPS_HD KOPS_INLINE static V sqdiff(const V& a, const V& b) {
    const V d = a - b;
    return d * d;
  }
  // softmin(a, b, c) = mn - gamma log(sum_k e^{(mn - a_k)/gamma}), mn = min(a, b, c);
  // with the weights w_k = e^{(mn - a_k)/gamma} / sum (its gradient) when asked.
  KOPS_HD KOPS_INLINE static V softmin(const V& a, const V& b, const V& c, const V& gamma, const V& inv_gamma,
                                       V* w = nullptr) {
    const V mn = min2(min2(a, b), c);
    const V ea = Math::exp((mn - a) * inv_gamma), eb = Math::exp((mn - b) * inv_gamma), ec = Math::exp((mn - c) * inv_gamma);
    const V s = ea + eb + ec;
    if (w) {
      const V inv_s = V(1) / s;
      w[0] = ea * inv_s;
      w[1] = eb * inv_s;
      w[2] = ec * inv_s;
    }
    return mn - gamma * Math::log(s);
  }

  // The forward recursion r_{i,j} (see softdtw_sqdist below) over x (dim n) and
  // y (dim m), column by column (j outer, i inner), holding one column; returns
  // r_{n-1,m-1}. What the evaluators differ in is passed in:
  //   inner(i, a, b, c): the softmin term of inner cell (i, j), from
  //     a = r_{i-1,j-1}, b = r_{i,j-1}, c = r_{i-1,j}; called once per inner
  //     cell in this order, so it may carry its own state down the column;
  //   keep(i, j, r_{i,j}): sees every cell once, in the same order.
  template <int Nx, int Ny, class Inner, class Keep>
  KOPS_HD KOPS_INLINE static V forward(const vec<V, Nx>& x, const vec<V, Ny>& y, Inner inner, Keep keep) {
    vec<V, Nx> col;  // r_{., j}
    col[0] = sqdiff(x[0], y[0]);
    keep(0, 0, col[0]);
    for (int i = 1; i < Nx; ++i) {
      col[i] = sqdiff(x[i], y[0]) + col[i - 1];
      keep(i, 0, col[i]);
    }
    for (int j = 1; j < Ny; ++j) {
      V diag = col[0];  // r_{i-1,j-1}
      col[0] = sqdiff(x[0], y[j]) + col[0];
      keep(0, j, col[0]);
      for (int i = 1; i < Nx; ++i) {
        const V up = col[i];  // r_{i,j-1}
        col[i] = sqdiff(x[i], y[j]) + inner(i, diag, up, col[i - 1]);
        keep(i, j, col[i]);
        diag = up;
      }
    }
    return col[Nx - 1];
  }
  // inner for forward: the plain softmin.
  struct inner_softmin {
    const V& gamma;
    const V& inv_gamma;
    KOPS_HD KOPS_INLINE V operator()(int, const V& a, const V& b, const V& c) const {
      return softmin(a, b, c, gamma, inv_gamma);
    }
  };
  // keep for forward when only r_{n-1,m-1} is wanted.
  struct keep_none {
    KOPS_HD KOPS_INLINE void operator()(int, int, const V&) const {}
  };
};
} // namespace detail

template <Formula X, Formula Y, Formula G>
struct SoftDtwSqDist : formula_node {
  static_assert(G::dim == 1, "kops::softdtw_sqdist: gamma must have dim 1");
  static constexpr int dim = 1;
  static constexpr bool expensive = true;
  static constexpr const char* name = "softdtw_sqdist";
  static constexpr const char* keops_name = "SoftDTW_SqDist";
  using children = type_list<X, Y, G>;
  template <class C1, class C2, class C3> using rebind = SoftDtwSqDist<C1, C2, C3>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    using R = detail::softdtw<math_t<Ctx>, V>;
    const auto x = X::eval(ctx);
    const auto y = Y::eval(ctx);
    const V gamma = G::eval(ctx)[0];
    const V inv_gamma = V(1) / gamma;
    return vec<V, 1>{{R::forward(x, y, typename R::inner_softmin{gamma, inv_gamma}, typename R::keep_none{})}};
  }

  template <class V, class Gin>
  static constexpr auto vjp(V v, Gin g);
};

// softdtw_sqdist_grad(x, y, gamma): (G_x, G_y), dim n + m (see above).
template <Formula X, Formula Y, Formula G>
struct SoftDtwSqDistGrad : formula_node {
  static constexpr int dim = X::dim + Y::dim;
  static constexpr bool expensive = true;
  static constexpr const char* name = "softdtw_sqdist_grad";
  static constexpr const char* keops_name = "GradSoftDTW_SqDist";
  using children = type_list<X, Y, G>;
  template <class C1, class C2, class C3> using rebind = SoftDtwSqDistGrad<C1, C2, C3>;

  // KeOps has GradSoftDTW_SqDist only inside its autodiff, not in its syntax: with
  // variables x and y, (G_x, G_y) is Concat(Grad(SoftDTW_SqDist(x,y,g),x,IntCst(1)), ... y ...).
  // Of expressions, the node prints as GradSoftDTW_SqDist(x,y,g), which pykeops
  // does not parse (KeOps can only differentiate w.r.t. a variable).
  template <class S, class P>
  static S print(P p) {
    const S args = p(X{}) + "," + p(Y{}) + "," + p(G{});
    if constexpr (P::keops && is_variable_v<X> && is_variable_v<Y>) {
      const S f = "SoftDTW_SqDist(" + args + ")";
      return "Concat(Grad(" + f + "," + p(X{}) + ",IntCst(1)),Grad(" + f + "," + p(Y{}) + ",IntCst(1)))";
    } else {
      return S(P::keops ? keops_name : name) + "(" + args + ")";
    }
  }

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    using S = typename Ctx::scalar_type;
    using Math = math_t<Ctx>;
    using R = detail::softdtw<Math, V>;
    constexpr int n = X::dim, m = Y::dim;
    const auto x = X::eval(ctx);
    const auto y = Y::eval(ctx);
    const V gamma = G::eval(ctx)[0];
    const V inv_gamma = V(S(1)) / gamma;
    // Forward: the whole table r_{i,j} at r[j n + i].
    vec<V, n * m> r;
    R::forward(x, y, typename R::inner_softmin{gamma, inv_gamma},
               [&](int i, int j, const V& rij) { r[j * n + i] = rij; });
    // Backward: e_{i,j} = sum over the cells (k, l) that r_{i,j} feeds of
    // e_{k,l} d r_{k,l} / d r_{i,j}: 1 along the borders (plain sums), else the
    // softmin weight e^{(r_{k,l} - d_{k,l} - r_{i,j})/gamma}. Two columns of e.
    vec<V, n + m> out;
    for (int k = 0; k < n + m; ++k) out[k] = V(S(0));
    vec<V, n> next, cur;  // e_{., j+1}, e_{., j}
    for (int i = 0; i < n; ++i) next[i] = cur[i] = V(S(0));
    for (int j = m - 1; j >= 0; --j) {
      for (int i = n - 1; i >= 0; --i) {
        V e = V(S(0));
        if (i == n - 1 && j == m - 1) e = V(S(1));
        if (i + 1 < n) e = e + cur[i + 1] * (j == 0 ? V(S(1)) : weight<Math>(r, x, y, inv_gamma, i + 1, j, i, j));
        if (j + 1 < m) e = e + next[i] * (i == 0 ? V(S(1)) : weight<Math>(r, x, y, inv_gamma, i, j + 1, i, j));
        if (i + 1 < n && j + 1 < m) e = e + next[i + 1] * weight<Math>(r, x, y, inv_gamma, i + 1, j + 1, i, j);
        cur[i] = e;
        const V t = V(S(2)) * (x[i] - y[j]) * e;
        out[i] = out[i] + t;
        out[n + j] = out[n + j] - t;
      }
      next = cur;
    }
    return out;
  }

  // d r_{k,l} / d r_{i,j} for an inner cell (k, l) fed by (i, j): its softmin weight.
  template <class Math, class V>
  KOPS_HD KOPS_INLINE static V weight(const vec<V, X::dim * Y::dim>& r, const vec<V, X::dim>& x,
                                      const vec<V, Y::dim>& y, const V& inv_gamma, int k, int l, int i, int j) {
    constexpr int n = X::dim;
    const V d = x[k] - y[l];
    return Math::exp((r[l * n + k] - d * d - r[j * n + i]) * inv_gamma);
  }

  template <class V, class Gin>
  static constexpr auto vjp(V, Gin) {
    static_assert(sizeof(V) == 0, "kops::softdtw_sqdist: second derivatives are not implemented");
    return Zero<V::dim>{};
  }
};

// softdtw_sqdist_grad_gamma(x, y, gamma): d r_{n-1,m-1} / d gamma, dim 1, by
// forward mode: q = d r / d gamma is 0 on the borders and, inside,
//   q_{i,j} = sum_k w_k q_k + (softmin - sum_k w_k a_k) / gamma
// over the three predecessors a_k with their softmin weights w_k.
template <Formula X, Formula Y, Formula G>
struct SoftDtwSqDistGradGamma : formula_node {
  static constexpr int dim = 1;
  static constexpr bool expensive = true;
  static constexpr const char* name = "softdtw_sqdist_grad_gamma";
  static constexpr const char* keops_name = "GradSoftDTW_SqDist_Gamma";  // (no KeOps counterpart)
  using children = type_list<X, Y, G>;
  template <class C1, class C2, class C3> using rebind = SoftDtwSqDistGradGamma<C1, C2, C3>;

  template <class Ctx>
  KOPS_HD KOPS_INLINE static constexpr auto eval(const Ctx& ctx) {
    using V = value_t<Ctx>;
    using S = typename Ctx::scalar_type;
    using R = detail::softdtw<math_t<Ctx>, V>;
    constexpr int n = X::dim;
    const auto x = X::eval(ctx);
    const auto y = Y::eval(ctx);
    const V gamma = G::eval(ctx)[0];
    const V inv_gamma = V(S(1)) / gamma;
    // q_{., j}, carried down each column by the softmin step next to r_{., j}.
    vec<V, n> q;
    for (int i = 0; i < n; ++i) q[i] = V(S(0));
    V qdiag = q[0];  // q_{i-1,j-1}
    const auto inner = [&](int i, const V& diag, const V& up, const V& left) {
      if (i == 1) qdiag = q[0];  // a new column
      const V qup = q[i];
      V wts[3];
      const V s = R::softmin(diag, up, left, gamma, inv_gamma, wts);
      q[i] = wts[0] * qdiag + wts[1] * qup + wts[2] * q[i - 1] +
             (s - (wts[0] * diag + wts[1] * up + wts[2] * left)) * inv_gamma;
      qdiag = qup;
      return s;
    };
    R::forward(x, y, inner, typename R::keep_none{});
    return vec<V, 1>{{q[n - 1]}};
  }

  template <class V, class Gin>
  static constexpr auto vjp(V, Gin) {
    static_assert(sizeof(V) == 0, "kops::softdtw_sqdist: second derivatives are not implemented");
    return Zero<V::dim>{};
  }
};

/// softdtw_sqdist(x, y, gamma): the soft dynamic time warping discrepancy
/// between x (dim n) and y (dim m), read as the 1-D sequences x_0..x_{n-1} and
/// y_0..y_{m-1}, with the squared difference as cost and the soft minimum of
/// temperature gamma (dim 1, > 0); dim 1 (KeOps' SoftDTW_SqDist(x, y, gamma)):
/// ```text
///   r_{0,0} = d_{0,0},  r_{i,0} = d_{i,0} + r_{i-1,0},  r_{0,j} = d_{0,j} + r_{0,j-1},
///   r_{i,j} = d_{i,j} + softmin(r_{i-1,j-1}, r_{i-1,j}, r_{i,j-1})   (i, j >= 1),
///   d_{i,j} = (x_i - y_j)^2,  softmin(a, b, c) = -gamma log(e^{-a/gamma} + e^{-b/gamma} + e^{-c/gamma}),
///   softdtw_sqdist(x, y, gamma) = r_{n-1,m-1}
/// ```
/// (the usual recursion with r_{-1,-1} = 0 and +inf on the other borders;
/// softmin is evaluated shifted by the hard minimum, so it does not underflow).
/// Derivatives (O(n m) values per pair, in registers: meant for short sequences):
/// ```text
///   [d_V sdtw]^T g = [d_V x]^T (G_x g) + [d_V y]^T (G_y g) + [d_V gamma]^T (G_gamma g)
/// ```
/// with (G_x, G_y) = softdtw_sqdist_grad(x, y, gamma) (KeOps' GradSoftDTW_SqDist):
/// G_x,i = sum_j 2 (x_i - y_j) e_{i,j}, G_y,j = -sum_i 2 (x_i - y_j) e_{i,j}, where
/// e_{i,j} = d r_{n-1,m-1} / d r_{i,j} by the backward recursion (the soft
/// alignment matrix); and G_gamma = d r_{n-1,m-1} / d gamma by forward mode
/// (KeOps has no gamma derivative). Second derivatives are not implemented (a
/// compile error, as in KeOps).
template <Formula X, Formula Y, Formula G>
constexpr auto softdtw_sqdist(X, Y, G) {
  static_assert(G::dim == 1, "kops::softdtw_sqdist: gamma must have dim 1");
  if constexpr (G::dim == 1) return SoftDtwSqDist<X, Y, G>{};
  else return Zero<1>{};  // (after the failed assertion: no second error)
}

template <Formula X, Formula Y, Formula G>
template <class V, class Gin>
constexpr auto SoftDtwSqDist<X, Y, G>::vjp(V v, Gin g) {
  constexpr int n = X::dim, m = Y::dim;
  constexpr SoftDtwSqDistGrad<X, Y, G> gxy{};
  return grad(X{}, v, extract<0, n>(gxy) * g) + grad(Y{}, v, extract<n, m>(gxy) * g) +
         grad(G{}, v, SoftDtwSqDistGradGamma<X, Y, G>{} * g);
}

} // namespace kops
