// The running extremum shared by min, max, argmin, argmax, min_argmin and
// max_argmax: per component, the best value so far and the index
// where it was first reached.
//
// Semantics (as numpy's min/argmin): NaN wins and sticks, so a NaN term makes
// the component NaN and its index that of the first NaN; ties keep the first
// index; over an empty range the value is +inf (min) / -inf (max) and the
// index -1. The index starts at the first index of the range, so a range
// whose terms are all +inf (min) still reports its first index.
#pragma once

#include <limits>
#include <kops/reductions/reduction.hpp>
#include <kops/reductions/value_index.hpp>

namespace kops::detail {

enum class extremum_output { value, index, both };

template <bool IsMax, extremum_output Out>
struct extremum_op {
  static constexpr bool extremum_is_max = IsMax;
  static constexpr bool extremum_writes_values = Out == extremum_output::value;
  // Component by component (detail/output_chunks.hpp): the extremum, and its
  // index, of each formula component.
  static constexpr bool componentwise = true;
  template <int D> static constexpr int out_dim = D;
  template <class T>
  using out_t = std::conditional_t<Out == extremum_output::index, std::int64_t,
                                   std::conditional_t<Out == extremum_output::both, value_index<T>, T>>;

  template <class V, class IV, int D>
  struct acc {
    vec<V, D> v;
    vec<IV, D> i;
  };

  template <class Math, class V, int D>
  KOPS_HD KOPS_INLINE static auto init(std::int64_t j0) {
    using S = decltype(Math::lane(V{}, 0));
    constexpr S worst = IsMax ? -std::numeric_limits<S>::infinity() : std::numeric_limits<S>::infinity();
    acc<V, typename Math::template index_t<V>, D> a;
    for (int k = 0; k < D; ++k) {
      a.v[k] = V(worst);
      a.i[k] = Math::template index<V>(j0);
    }
    return a;
  }

  // Does x replace the current best a? Strictly better, or the first NaN.
  template <class V>
  KOPS_HD KOPS_INLINE static auto better(const V& x, const V& a) {
    if constexpr (IsMax) return (x > a) | ((x != x) & (a == a));
    else return (x < a) | ((x != x) & (a == a));
  }

  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void accumulate(acc<V, IV, D>& a, const vec<V, D>& x, const IV& j) {
    for (int k = 0; k < D; ++k) {
      const auto m = better(x[k], a.v[k]);
      a.v[k] = Math::select(m, x[k], a.v[k]);
      if constexpr (Out != extremum_output::value) a.i[k] = Math::select_index(m, j, a.i[k]);
    }
  }
  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void combine(acc<V, IV, D>& a, const acc<V, IV, D>& b) {
    for (int k = 0; k < D; ++k) {
      const auto m = better(b.v[k], a.v[k]);
      a.v[k] = Math::select(m, b.v[k], a.v[k]);
      a.i[k] = Math::select_index(m, b.i[k], a.i[k]);
    }
  }
  template <class Math, class V, class IV, int D, class O>
  KOPS_HD KOPS_INLINE static void finalize(const acc<V, IV, D>& a, int lane, O* row) {
    for (int k = 0; k < D; ++k) {
      if constexpr (Out == extremum_output::index) row[k] = Math::lane_index(a.i[k], lane);
      // Whole elements, padding included (value_index.hpp); lanes extracted
      // first: g++ 12 -O1 dropped a braced store of SIMD lanes here.
      else if constexpr (Out == extremum_output::both)
        store_value_index(row + k, Math::lane(a.v[k], lane), Math::lane_index(a.i[k], lane));
      else row[k] = Math::lane(a.v[k], lane);
    }
  }
};

} // namespace kops::detail
