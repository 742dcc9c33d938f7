// The running extremum with a payload, the reduction behind the gradients of
// min and max (KeOps has none): the formula is concat(f, p_0, ..., p_{D-1}),
// f of dim D the compared values and p_k (dim P each) the payload carried
// along with component k; the output is sum_k p_k taken where f_k is best
// (ties keep the first index, a NaN term wins and sticks, as for min/argmin).
// Over an empty range the output is 0.
#pragma once

#include <kops/reductions/detail/extremum.hpp>

namespace kops::detail {

template <bool IsMax, int D>
struct extremum_payload_op {
  static constexpr const char* name = IsMax ? "max_payload_reduction" : "min_payload_reduction";
  static constexpr const char* keops_name = IsMax ? "MaxPayload" : "MinPayload";
  template <int FD> static constexpr int out_dim = (FD - D) / D;
  template <class T> using out_t = T;

  template <class V, class IV, int FD>
  struct acc {
    vec<V, D> best;
    vec<V, D> taken;  // 0 until a term was folded in: the first term is taken
                      // whatever its value (an all +inf range reports its first term)
    vec<V, FD - D> payload;
  };

  template <class M, class V, int FD>
  KOPS_HD KOPS_INLINE static auto init(std::int64_t) {
    using S = decltype(M::lane(V{}, 0));
    acc<V, typename M::template index_t<V>, FD> a;
    for (int k = 0; k < D; ++k) {
      a.best[k] = V(IsMax ? -std::numeric_limits<S>::infinity() : std::numeric_limits<S>::infinity());
      a.taken[k] = V(S(0));
    }
    for (int k = 0; k < FD - D; ++k) a.payload[k] = V(S(0));
    return a;
  }
  template <class M, class V, class IV, int FD>
  KOPS_HD KOPS_INLINE static void accumulate(acc<V, IV, FD>& a, const vec<V, FD>& x, const IV&) {
    constexpr int P = (FD - D) / D;
    for (int k = 0; k < D; ++k) {
      const auto m = extremum_op<IsMax, extremum_output::value>::better(x[k], a.best[k]) | (a.taken[k] == V(0));
      a.best[k] = M::select(m, x[k], a.best[k]);
      a.taken[k] = V(1);
      for (int p = 0; p < P; ++p) a.payload[k * P + p] = M::select(m, x[D + k * P + p], a.payload[k * P + p]);
    }
  }
  template <class M, class V, class IV, int FD>
  KOPS_HD KOPS_INLINE static void combine(acc<V, IV, FD>& a, const acc<V, IV, FD>& b) {
    constexpr int P = (FD - D) / D;
    for (int k = 0; k < D; ++k) {
      // b (later terms) wins if better, or if a took nothing while b did.
      const auto m = extremum_op<IsMax, extremum_output::value>::better(b.best[k], a.best[k]) |
                     ((a.taken[k] == V(0)) & (b.taken[k] != V(0)));
      a.best[k] = M::select(m, b.best[k], a.best[k]);
      a.taken[k] = M::select(m, b.taken[k], a.taken[k]);
      for (int p = 0; p < P; ++p) a.payload[k * P + p] = M::select(m, b.payload[k * P + p], a.payload[k * P + p]);
    }
  }
  template <class M, class V, class IV, int FD, class O>
  KOPS_HD KOPS_INLINE static void finalize(const acc<V, IV, FD>& a, int lane, O* row) {
    constexpr int P = (FD - D) / D;
    for (int p = 0; p < P; ++p) {
      auto s = M::lane(a.payload[p], lane);
      for (int k = 1; k < D; ++k) s += M::lane(a.payload[k * P + p], lane);
      row[p] = s;
    }
  }
};

} // namespace kops::detail
