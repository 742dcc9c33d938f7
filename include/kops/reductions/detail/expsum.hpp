// Shifted exponential sums: the stable engine of logsumexp, its weighted form,
// sumsoftmaxweight and their gradients.
//
// The reduced formula is concat(f, h) with f of dim 1 and h of dim H >= 0. Over
// the range the accumulator keeps the running maximum m = max f and the sums
//   s_0 = sum exp(f - m),   s_{1+k} = sum exp(f - m) h_k   (k < H),
// rescaled whenever m grows, so no exponential ever overflows. A term costs one
// exp: with d = -|f - m| the larger of (f, m) becomes the new m and exp(d)
// rescales the other side. Ranges merge the same way (combine: m and s of the
// other range as one term); the factor exp(f - m) is flushed to 0 below e^-80
// (float) / e^-700 (double) (see merge). An empty range has m = -inf and s = 0. A policy
// Fin turns (m, s) into the output row, in the element type T of the lane:
//   template <int H> static constexpr int out_dim;
//   template <int H, class T> static void finish(T m, const T* s, T* out);  // s: H + 1 sums
#pragma once

#include <limits>
#include <type_traits>
#include <kops/core/elementwise.hpp>
#include <kops/core/scalar_math.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::detail {

template <class Fin>
struct expsum_op {
  template <int D> static constexpr int out_dim = Fin::template out_dim<D - 1>;
  template <class T> using out_t = T;

  template <class V, class IV, int D>
  struct acc {
    V m;
    vec<V, D> s;  // s_0 and the H = D - 1 weighted sums
  };

  template <class Math, class V, int D>
  KOPS_HD KOPS_INLINE static auto init(std::int64_t) {
    using S = decltype(Math::lane(V{}, 0));
    acc<V, typename Math::template index_t<V>, D> a;
    a.m = V(-std::numeric_limits<S>::infinity());
    for (int k = 0; k < D; ++k) a.s[k] = V(S(0));
    return a;
  }

  // Merge a term exp(f) * (1, h) given as (f, w) with w = (w_0, ..., w_{D-1})
  // the sums it carries (w_0 = 1 and w_{1+k} = h_k for a single term).
  template <class Math, class V, class IV, int D, class W>
  KOPS_HD KOPS_INLINE static void merge(acc<V, IV, D>& a, const V& f, const W& w) {
    using S = decltype(Math::lane(V{}, 0));
    constexpr S tiny = sizeof(S) == 4 ? S(-80) : S(-700);
    if constexpr (std::is_floating_point_v<V>) {
      // Scalars (the GPU backend): most terms of a long range lie below the
      // running maximum, f < m, and then the general code below reduces to
      // s += exp(f - m) w, m unchanged: that case is branched off, the others
      // (a new maximum, f == m, NaN) take the general code. The test is
      // d = f - m < 0, which implies f < m for all f, m (infinities and NaN
      // included), and is implied by it unless a flush-to-zero mode makes d
      // 0; the general code is exact for every case anyway.
      const V d = f - a.m;
      if (d < V(0)) {
        V t;
        if constexpr (sizeof(S) == 4) {
          // The flush below as exp(-inf) = 0: one select instead of two.
          const V e = d < tiny ? -std::numeric_limits<S>::infinity() : d;
          // A scalar provider other than scalar_math is the fast policy's
          // (cuda::fast_math), whose exp(x) is 2^(x log2 e) (core/precision.hpp):
          // on the device __expf, an ex2.approx of x * float(log2 e) that
          // handles subnormal results. Here 2^(e log2 e) >= 2^-115.5 is never
          // one, so its exp2 (ex2.approx.ftz) gives the same bits, 3
          // instructions per term fewer. (On the host, kops::cuda_emulated,
          // exp2f of the product: within the fast policy's error bound.)
          if constexpr (std::is_same_v<Math, scalar_math>) t = Math::exp(e);
          else t = Math::exp2(e * S(1.4426950408889634));
        } else {
          // In double exp(-inf) would take exp's slow out-of-range path.
          const auto negligible = d < V(tiny);
          t = Math::select(negligible, V(S(0)), Math::exp(Math::select(negligible, V(tiny), d)));
        }
        for (int k = 0; k < D; ++k) a.s[k] = a.s[k] + t * w[k];
        return;
      }
    }
    const auto up = f > a.m;
    // f == m (both infinite included) rescales nothing; otherwise -|f - m|.
    const V d = Math::select(f == a.m, V(0), Math::select(up, a.m - f, f - a.m));
    // The factor exp(d) is flushed to 0 below e^tiny (e^-80 ~ 2e-35 in float,
    // e^-700 ~ 1e-304 in double), as a flush-to-zero mode would do for the
    // subnormal range, without one: exp is never asked for a subnormal
    // result, which costs a microcode assist per lane on x86 cores (Sinkhorn at
    // small blur ran 5x slower with them). The arithmetic is otherwise
    // unchanged (0 * inf is NaN, as for exp(-inf) * inf). Exact for s_0 (it
    // holds the maximum's own 1); a weighted sum differs from exact arithmetic
    // only when its weights span more than e^80 (e^700).
    const auto negligible = d < V(tiny);
    const V t = Math::select(negligible, V(S(0)), Math::exp(Math::select(negligible, V(tiny), d)));
    for (int k = 0; k < D; ++k) a.s[k] = Math::select(up, a.s[k] * t + w[k], a.s[k] + t * w[k]);
    a.m = Math::select(up, f, a.m);
  }

  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void accumulate(acc<V, IV, D>& a, const vec<V, D>& x, const IV&) {
    vec<V, D> w;
    w[0] = V(1);
    for (int k = 1; k < D; ++k) w[k] = x[k];
    merge<Math>(a, x[0], w);
  }
  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void combine(acc<V, IV, D>& a, const acc<V, IV, D>& b) {
    merge<Math>(a, b.m, b.s);
  }
  template <class Math, class V, class IV, int D, class O>
  KOPS_HD KOPS_INLINE static void finalize(const acc<V, IV, D>& a, int lane, O* row) {
    O s[D];
    for (int k = 0; k < D; ++k) s[k] = Math::lane(a.s[k], lane);
    Fin::template finish<D - 1>(O(Math::lane(a.m, lane)), s, row);
  }
};

// log sum exp(f) = m + log s_0 (H = 0);  weighted: log sum exp(f) h_k = m + log s_{1+k}.
struct lse_fin {
  template <int H> static constexpr int out_dim = H == 0 ? 1 : H;
  template <int H, class T>
  KOPS_HD KOPS_INLINE static void finish(T m, const T* s, T* out) {
    if constexpr (H == 0) out[0] = m + scalar_math::log(s[0]);
    else for (int k = 0; k < H; ++k) out[k] = m + scalar_math::log(s[1 + k]);
  }
};

// a / s_0 for the ratios below, 0 over an empty range (s_0 = 0: no term at
// all; a range with a term has s_0 >= 1). A row a block-sparse call leaves
// without terms gets a softmax-weighted sum and gradients of 0, not 0/0.
template <class T>
KOPS_HD KOPS_INLINE T ratio_or_zero(T a, T s0) {
  return s0 != T(0) ? a / s0 : T(0);
}

// sum softmax(f) h = s_{1+k} / s_0 (an empty range gives 0).
struct softmax_fin {
  template <int H> static constexpr int out_dim = H;
  template <int H, class T>
  KOPS_HD KOPS_INLINE static void finish(T, const T* s, T* out) {
    for (int k = 0; k < H; ++k) out[k] = ratio_or_zero(s[1 + k], s[0]);
  }
};

// Both log sum exp(f) and sum softmax(f) h at once: (m + log s_0, s_{1+k} / s_0),
// the first pass of sumsoftmaxweight's gradient w.r.t. reduced-axis variables.
struct lse_softmax_fin {
  template <int H> static constexpr int out_dim = 1 + H;
  template <int H, class T>
  KOPS_HD KOPS_INLINE static void finish(T m, const T* s, T* out) {
    out[0] = m + scalar_math::log(s[0]);
    for (int k = 0; k < H; ++k) out[1 + k] = ratio_or_zero(s[1 + k], s[0]);
  }
};
struct lse_softmax_op : expsum_op<lse_softmax_fin> {
  static constexpr const char* name = "logsumexp_sumsoftmaxweight_reduction";
  static constexpr const char* keops_name = "LogSumExpSumSoftMaxWeight";
  // pykeops (kops::keops_calls): LogSumExp(f) and SumSoftMaxWeight(f, g), concatenated.
  template <class F, class B>
  static auto keops_calls(B b) {
    using G = operand_t<F, 1>;
    const auto f = b(operand_t<F, 0>{});
    const auto l = b.call(f, "", "LogSumExp", 1, 1);
    return "Concat(" + l + "," + b.call(f, b(G{}), "SumSoftMaxWeight", G::dim, G::dim) + ")";
  }
};

// Gradient of the weighted logsumexp w.r.t. a variable of dim Dv, h = (g, n_0, ..., n_{Dg-1})
// with n_k = [d g_k]^T e_k + [d f]^T (e_k g_k):  out = sum_k (sum exp(f) n_k) / (sum exp(f) g_k).
template <int Dg, int Dv>
struct lse_weight_grad_fin {
  template <int H> static constexpr int out_dim = Dv;
  template <int H, class T>
  KOPS_HD KOPS_INLINE static void finish(T, const T* s, T* out) {
    static_assert(H == Dg + Dg * Dv, "kops: internal error, logsumexp gradient layout");
    for (int c = 0; c < Dv; ++c) {
      T r = T(0);
      for (int k = 0; k < Dg; ++k) r += s[0] != T(0) ? s[1 + Dg + k * Dv + c] / s[1 + k] : T(0);
      out[c] = r;
    }
  }
};

// Forward derivative of the weighted logsumexp (kops::diff), h = (g, m) with
// m_k = g_k df + dg_k:  out_k = (sum exp(f) m_k) / (sum exp(f) g_k).
template <int Dg>
struct lse_weight_diff_fin {
  template <int H> static constexpr int out_dim = Dg;
  template <int H, class T>
  KOPS_HD KOPS_INLINE static void finish(T, const T* s, T* out) {
    static_assert(H == 2 * Dg, "kops: internal error, logsumexp forward-derivative layout");
    for (int k = 0; k < Dg; ++k) out[k] = s[0] != T(0) ? s[1 + Dg + k] / s[1 + k] : T(0);
  }
};

// Gradient of sumsoftmaxweight w.r.t. a variable of dim Dv, h = (g . e, a, c) with
// a = (g . e) [d f]^T 1 + [d g]^T e and c = [d f]^T 1:  out = <a> - <g . e> <c>,
// <u> = sum exp(f) u / sum exp(f) the softmax average.
template <int Dv>
struct softmax_grad_fin {
  template <int H> static constexpr int out_dim = Dv;
  template <int H, class T>
  KOPS_HD KOPS_INLINE static void finish(T, const T* s, T* out) {
    static_assert(H == 1 + 2 * Dv, "kops: internal error, sumsoftmaxweight gradient layout");
    const T ge = ratio_or_zero(s[1], s[0]);
    for (int c = 0; c < Dv; ++c) out[c] = ratio_or_zero(s[2 + c], s[0]) - ge * ratio_or_zero(s[2 + Dv + c], s[0]);
  }
};

// The pykeops terms of the ratios over a weighted logsumexp (formula
// concat(f, h), h = (g, ...)): L = LogSumExp(f, weight g) as a call of its own,
// then the terms Exp(f - L_k) * part(h, k), k < Dg, joined by join(acc, k, term)
// (kops::keops_calls of logsumexp_grad_op and logsumexp_diff_op).
template <class F, int Dg, class B, class Part, class Join>
auto lse_ratio_terms(B b, Part part, Join join) {
  const auto f = b(operand_t<F, 0>{});
  const auto h = b(operand_t<F, 1>{});
  const auto l = b.call(f, "Extract(" + h + ",0," + b.num(Dg) + ")", "LogSumExp", 1, Dg);
  std::remove_cvref_t<decltype(f)> s{};
  for (int k = 0; k < Dg; ++k) s = join(s, k, "(Exp((" + f + "-Elem(" + l + "," + b.num(k) + ")))*" + part(h, k) + ")");
  return s;
}

template <int Dg, int Dv>
struct logsumexp_grad_op : expsum_op<lse_weight_grad_fin<Dg, Dv>> {
  static constexpr const char* name = "logsumexp_grad_reduction";
  static constexpr const char* keops_name = "LogSumExpGrad";
  // pykeops (kops::keops_calls): L = LogSumExp(f, weight g), then
  // Sum(sum_c Exp(f - L_c) * n_c), h = (g, n_0, ...): sum exp(f - L_c) = 1 / sum exp(f) g_c.
  template <class F, class B>
  static auto keops_calls(B b) {
    const auto s = lse_ratio_terms<F, Dg>(
        b, [&](const auto& h, int c) { return "Extract(" + h + "," + b.num(Dg + c * Dv) + "," + b.num(Dv) + ")"; },
        [](const auto& acc, int c, const auto& t) { return c ? acc + "+" + t : t; });
    return b.call(Dg > 1 ? "(" + s + ")" : s, "", "Sum", Dv, Dv);
  }
};
template <int Dg>
struct logsumexp_diff_op : expsum_op<lse_weight_diff_fin<Dg>> {
  static constexpr const char* name = "logsumexp_diff_reduction";
  static constexpr const char* keops_name = "LogSumExpDiff";
  // pykeops (kops::keops_calls): L = LogSumExp(f, weight g), then
  // Sum(Exp(f - L_k) * m_k) for every k: sum exp(f - L_k) = 1 / sum exp(f) g_k.
  template <class F, class B>
  static auto keops_calls(B b) {
    const auto s = lse_ratio_terms<F, Dg>(
        b, [&](const auto& h, int k) { return "Elem(" + h + "," + b.num(Dg + k) + ")"; },
        [](const auto& acc, int k, const auto& t) { return k ? "Concat(" + acc + "," + t + ")" : t; });
    return b.call(s, "", "Sum", Dg, Dg);
  }
};
template <int Dv>
struct sumsoftmaxweight_grad_op : expsum_op<softmax_grad_fin<Dv>> {
  static constexpr const char* name = "sumsoftmaxweight_grad_reduction";
  static constexpr const char* keops_name = "SumSoftMaxWeightGrad";
  // pykeops (kops::keops_calls): L = LogSumExp(f), P = <g . e> = Sum(Exp(f - L) * (g . e)),
  // then Sum(Exp(f - L) * (a - P * c)), h = (g . e, a, c).
  template <class F, class B>
  static auto keops_calls(B b) {
    const auto f = b(operand_t<F, 0>{});
    const auto h = b(operand_t<F, 1>{});
    const auto l = b.call(f, "", "LogSumExp", 1, 1);
    const auto p = "Exp((" + f + "-" + l + "))";
    const auto ge = b.call("(" + p + "*Extract(" + h + ",0,1))", "", "Sum", 1, 1);
    return b.call("(" + p + "*(Extract(" + h + ",1," + b.num(Dv) + ")-(" + ge + "*Extract(" + h + "," +
                      b.num(1 + Dv) + "," + b.num(Dv) + "))))",
                  "", "Sum", Dv, Dv);
  }
};

// The exponent f and the weight g (1 when unweighted) of an expsum reduction's
// formula (what the gradient rules of logsumexp and sumsoftmaxweight read).
template <bool Weighted, class F> struct expsum_parts {
  using f = F;
  using g = IntConst<1>;
};
template <class F> struct expsum_parts<true, F> {
  using f = operand_t<F, 0>;
  using g = operand_t<F, 1>;
};

} // namespace kops::detail
