// The running extremum with a payload, the reduction behind the gradients of
// min and max (KeOps has none): the formula is concat(f, p_0, ..., p_{D-1}),
// f of dim D the compared values and p_k (dim P each) the payload carried
// along with component k; the output is sum_k p_k taken where f_k is best
// (ties keep the first index, a NaN term wins and sticks, as for min/argmin).
// Over an empty range the output is 0.
#pragma once

#include <type_traits>
#include <utility>

#include <kops/ops/concat.hpp>
#include <kops/ops/extract.hpp>
#include <kops/reductions/detail/extremum.hpp>
#include <kops/reductions/sum.hpp>

namespace kops::detail {

template <bool IsMax, int D>
struct extremum_payload_op {
  static constexpr const char* name = IsMax ? "max_payload_reduction" : "min_payload_reduction";
  static constexpr const char* keops_name = IsMax ? "MaxPayload" : "MinPayload";
  template <int FD> static constexpr int out_dim = (FD - D) / D;
  template <class T> using out_t = T;

  // pykeops (kops::keops_calls): m = Min(f) (Max), then the payloads of the terms
  // equal to it, Sum(sum_k Equal(f_k, m_k) * p_k): kops's where the extremum is
  // attained once (tied terms add up there, kops takes the first).
  template <class F, class B>
  static auto keops_calls(B b) {
    constexpr int P = (F::dim - D) / D;
    const auto all = b(F{});
    const auto f = "Extract(" + all + ",0," + b.num(D) + ")";
    const auto m = b.call(f, "", IsMax ? "Max" : "Min", D, D);
    std::remove_cvref_t<decltype(all)> s{};
    for (int k = 0; k < D; ++k)
      s += (k ? "+" : "") + ("(Equal(Elem(" + f + "," + b.num(k) + "),Elem(" + m + "," + b.num(k) + "))*Extract(" + all +
                             "," + b.num(D + k * P) + "," + b.num(P) + "))");
    return b.call(D > 1 ? "(" + s + ")" : s, "", "Sum", P, P);
  }

  template <class V, class IV, int FD>
  struct acc {
    vec<V, D> best;
    vec<V, D> taken;  // 0 until a term was folded in: the first term is taken
                      // whatever its value (an all +inf range reports its first term)
    vec<V, FD - D> payload;
  };

  template <class Math, class V, int FD>
  KOPS_HD KOPS_INLINE static auto init(std::int64_t) {
    using S = decltype(Math::lane(V{}, 0));
    acc<V, typename Math::template index_t<V>, FD> a;
    for (int k = 0; k < D; ++k) {
      a.best[k] = V(IsMax ? -std::numeric_limits<S>::infinity() : std::numeric_limits<S>::infinity());
      a.taken[k] = V(S(0));
    }
    for (int k = 0; k < FD - D; ++k) a.payload[k] = V(S(0));
    return a;
  }
  template <class Math, class V, class IV, int FD>
  KOPS_HD KOPS_INLINE static void accumulate(acc<V, IV, FD>& a, const vec<V, FD>& x, const IV&) {
    constexpr int P = (FD - D) / D;
    for (int k = 0; k < D; ++k) {
      const auto m = extremum_op<IsMax, extremum_output::value>::better(x[k], a.best[k]) | (a.taken[k] == V(0));
      a.best[k] = Math::select(m, x[k], a.best[k]);
      a.taken[k] = V(1);
      for (int p = 0; p < P; ++p) a.payload[k * P + p] = Math::select(m, x[D + k * P + p], a.payload[k * P + p]);
    }
  }
  template <class Math, class V, class IV, int FD>
  KOPS_HD KOPS_INLINE static void combine(acc<V, IV, FD>& a, const acc<V, IV, FD>& b) {
    constexpr int P = (FD - D) / D;
    for (int k = 0; k < D; ++k) {
      // b (later terms) wins if better, or if a took nothing while b did.
      const auto m = extremum_op<IsMax, extremum_output::value>::better(b.best[k], a.best[k]) |
                     ((a.taken[k] == V(0)) & (b.taken[k] != V(0)));
      a.best[k] = Math::select(m, b.best[k], a.best[k]);
      a.taken[k] = Math::select(m, b.taken[k], a.taken[k]);
      for (int p = 0; p < P; ++p) a.payload[k * P + p] = Math::select(m, b.payload[k * P + p], a.payload[k * P + p]);
    }
  }
  template <class Math, class V, class IV, int FD, class O>
  KOPS_HD KOPS_INLINE static void finalize(const acc<V, IV, FD>& a, int lane, O* row) {
    constexpr int P = (FD - D) / D;
    for (int p = 0; p < P; ++p) {
      auto s = Math::lane(a.payload[p], lane);
      for (int k = 1; k < D; ++k) s += Math::lane(a.payload[k * P + p], lane);
      row[p] = s;
    }
  }
};

// concat(f, p_0, ..., p_{D-1}), p_k = [d_v f_k]^T e_k: the payload formula of
// the gradient of a min or max.
template <class F, class V, class E, int... K>
constexpr auto payload_formula(std::integer_sequence<int, K...>) {
  return concat_all(F{}, grad(elem<K>(F{}), V{}, elem<K>(E{}))...);
}

// The gradient rule of min_reduction / max_reduction (reductions/min.hpp,
// max.hpp): one-hot at the arg, [d_v f]^T e taken at the index where each
// component is best, w.r.t. row variables and parameters.
template <bool IsMax, class Rq>
constexpr auto extremum_gradient(Rq) {
  static_assert(!Rq::reduced,
                "kops::grad: the gradient of min/max w.r.t. a variable of the reduced axis is not "
                "supported (it needs every row's arg first); use argmin/argmax, then a sum");
  if constexpr (!Rq::reduced) {
    using F = typename Rq::formula;
    using P = decltype(payload_formula<F, typename Rq::var, typename Rq::input>(
        std::make_integer_sequence<int, F::dim>{}));
    return Reduction<extremum_payload_op<IsMax, F::dim>, P, typename Rq::axis, Rq::arity>{};
  }
}

// The forward-mode rule of min_reduction / max_reduction (kops::diff; KeOps has
// none): the derivative [d_v f_k] u taken where component k is best, for a
// variable of either axis. The payload of component k is its derivative placed
// at k in a dim-D vector (dim 1: the derivative itself), so the payloads' sum
// is the vector of the components' derivatives.
template <class F, class H, int... K>
constexpr auto forward_payload_formula(std::integer_sequence<int, K...>) {
  if constexpr (F::dim == 1) return concat_all(F{}, H{});
  else return concat_all(F{}, elem_t<F::dim, K>(elem<K>(H{}))...);
}
template <bool IsMax, class Rq>
constexpr auto extremum_forward(Rq) {
  using F = typename Rq::formula;
  using H = decltype(diff(F{}, typename Rq::var{}, typename Rq::direction{}));
  if constexpr (is_zero_v<H>) {
    return zero_forward_t<Rq>{};
  } else {
    using P = decltype(forward_payload_formula<F, H>(std::make_integer_sequence<int, F::dim>{}));
    return Reduction<extremum_payload_op<IsMax, F::dim>, P, typename Rq::axis, Rq::arity>{};
  }
}

} // namespace kops::detail
