// The K smallest terms of a range, per component, sorted, with their indices:
// the engine of kmin, argkmin and kmin_argkmin.
//
// Order (numpy's stable sort): ascending; NaN after every number; equal values
// keep index order, so the result is exactly the first K entries of
// np.argsort(column, kind="stable"). A range must hold at least K terms (eval
// checks it: kops::error); slots a shorter partial range leaves empty are never
// written out.
//
// Accumulator per component d: K slots (value, index), slot k at k * D + d (the
// output layout too: out[row, k * D + d], K-major as pykeops' (rows, K, D)). A
// term enters by a branchless insertion (selects only); combine inserts the
// other range's slots in order, which keeps ties in index order because that
// range follows. A term that goes after the last slot leaves every slot as it
// is, and so does one that goes before no slot: before(s) implies before(s + 1)
// (filled slots come first, NaN after the numbers). An empty slot has index -1
// and, by kind of value:
//
//   SIMD packs (CPU backend)  value +inf and a flag `filled` = 0 per slot; a
//                             pack of terms is first tested against the last
//                             slots, !(x >= last value) or the last slot
//                             empty (a superset of before(last slot): one
//                             compare, one or, one mask test, Math::any), and
//                             only a pack where some lane passes runs the
//                             insertion, out of line (insert_pack: inlined,
//                             it took the registers of the formula's chunked
//                             sums: argkmin<10> at D = 784 ran at 0.57x
//                             argmin's speed, 0.97x out of line). Past the
//                             first terms of a long range almost every pack
//                             stops at that test (docs/performance.md, "k
//                             nearest neighbours");
//   scalars (GPU backend)     value NaN and no flag (a filled slot holds a
//                             term's index, >= 0), so that one comparison
//                             tells most terms of a long range apart: a term
//                             goes before the last slot only if
//                             !(x >= last value) (x smaller, x NaN, the last
//                             slot NaN or empty); a term that fails the test
//                             goes after every slot (ties included: they keep
//                             index order) and is branched over. The exact
//                             insertion does the rest. finalize reads an
//                             empty slot as +inf, as the packs'.
#pragma once

#include <limits>
#include <type_traits>
#include <kops/reductions/reduction.hpp>
#include <kops/reductions/value_index.hpp>

namespace kops::detail {

enum class ksmallest_output { values, indices, both };

template <int K, ksmallest_output Out>
struct ksmallest_op {
  static_assert(K >= 1, "kops::kmin_reduction: K must be at least 1");
  static constexpr int k = K;
  static constexpr std::int64_t min_terms = K;  // eval rejects shorter ranges
  template <int D> static constexpr int out_dim = K * D;
  template <class T>
  using out_t = std::conditional_t<Out == ksmallest_output::indices, std::int64_t,
                                   std::conditional_t<Out == ksmallest_output::both, value_index<T>, T>>;

  // float, double: the GPU backend's values; anything else is a SIMD pack.
  template <class V> static constexpr bool scalar = std::is_floating_point_v<V>;

  template <class V, class IV, int D, bool Scalar = scalar<V>>
  struct acc {
    vec<V, K * D> v;
    vec<IV, K * D> i;
    vec<V, K * D> filled;  // 1 where the slot holds a term, 0 where it is empty
  };
  // Scalars: no flags. (Not an empty [[no_unique_address]] member: with one,
  // nvcc spilled the accumulators of GPU_2D's combine kernel at K = 16.)
  template <class V, class IV, int D>
  struct acc<V, IV, D, true> {
    vec<V, K * D> v;
    vec<IV, K * D> i;
  };

  template <class Math, class V, int D>
  KOPS_HD KOPS_INLINE static auto init(std::int64_t) {
    using S = decltype(Math::lane(V{}, 0));
    acc<V, typename Math::template index_t<V>, D> a;
    for (int s = 0; s < K * D; ++s) {
      if constexpr (scalar<V>) {
        a.v[s] = std::numeric_limits<S>::quiet_NaN();
      } else {
        a.v[s] = V(std::numeric_limits<S>::infinity());
        a.filled[s] = V(S(0));
      }
      a.i[s] = Math::template index<V>(-1);
    }
    return a;
  }

  // Does the term (x, ok) go before slot s? ok: the term exists (1 or true) or not (0, false).
  template <class V, class IV, int D, class Ok>
  KOPS_HD KOPS_INLINE static auto before(const acc<V, IV, D>& a, int s, const V& x, const Ok& ok) {
    const auto v = a.v[s];
    if constexpr (scalar<V>) {
      return ok & ((a.i[s] < 0) | (x < v) | ((v != v) & (x == x)));
    } else {
      const V zero = V(0);
      const auto exists = ok != zero;
      return exists & ((a.filled[s] == zero) | (x < v) | ((v != v) & (x == x)));
    }
  }

  template <class Math, class V, class IV, int D, class Ok>
  KOPS_HD KOPS_INLINE static void insert(acc<V, IV, D>& a, int d, const V& x, const IV& j, const Ok& ok) {
    // Slot k takes slot k-1's content when x goes before k-1, x itself when it
    // goes before k only, else keeps its own; from the end, so k-1 is still old.
    for (int k = K - 1; k >= 1; --k) {
      const int s = k * D + d, p = (k - 1) * D + d;
      const auto mp = before(a, p, x, ok);
      const auto mh = before(a, s, x, ok);
      a.v[s] = Math::select(mp, a.v[p], Math::select(mh, x, a.v[s]));
      a.i[s] = Math::select_index(mp, a.i[p], Math::select_index(mh, j, a.i[s]));
      if constexpr (!scalar<V>) a.filled[s] = Math::select(mp, a.filled[p], Math::select(mh, ok, a.filled[s]));
    }
    const auto m0 = before(a, d, x, ok);
    a.v[d] = Math::select(m0, x, a.v[d]);
    a.i[d] = Math::select_index(m0, j, a.i[d]);
    if constexpr (!scalar<V>) a.filled[d] = Math::select(m0, ok, a.filled[d]);
  }

  // A pack of terms that some lane lets in (accumulate); see the file comment.
  template <class Math, class V, class IV, int D>
  __attribute__((noinline, cold)) static void insert_pack(acc<V, IV, D>& a, int d, const V& x, const IV& j) {
    insert<Math>(a, d, x, j, V(1));
  }

  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void accumulate(acc<V, IV, D>& a, const vec<V, D>& x, const IV& j) {
    if constexpr (scalar<V>) {
      for (int d = 0; d < D; ++d)
        if (!(x[d] >= a.v[(K - 1) * D + d])) insert<Math>(a, d, x[d], j, true);
    } else {
      const V zero = V(0);
      for (int d = 0; d < D; ++d) {
        const int last = (K - 1) * D + d;
        if (Math::any((!(x[d] >= a.v[last])) | (a.filled[last] == zero))) insert_pack<Math>(a, d, x[d], j);
      }
    }
  }
  // Scalars: whether accumulate could insert x, a superset of its insertions
  // that stays one as the accumulator fills (the last slots' values only
  // decrease or become numbers): a backend may test a group of terms first and
  // accumulate, in index order, only those that pass (the tensor-core kernel,
  // backends/cuda/tensor_core.hpp, which so keeps the insertion out of its
  // unrolled pair loop). Exactly the branch accumulate takes.
  template <class Math, class V, class IV, int D>
    requires(scalar<V>)
  KOPS_HD KOPS_INLINE static bool may_enter(const acc<V, IV, D>& a, const vec<V, D>& x) {
    bool m = false;
    for (int d = 0; d < D; ++d) m = m | !(x[d] >= a.v[(K - 1) * D + d]);
    return m;
  }
  template <class Math, class V, class IV, int D>
  KOPS_HD KOPS_INLINE static void combine(acc<V, IV, D>& a, const acc<V, IV, D>& b) {
    for (int k = 0; k < K; ++k)
      for (int d = 0; d < D; ++d) {
        const int s = k * D + d;
        if constexpr (scalar<V>) insert<Math>(a, d, b.v[s], b.i[s], !(b.i[s] < 0));
        else insert<Math>(a, d, b.v[s], b.i[s], b.filled[s]);
      }
  }
  template <class Math, class V, class IV, int D, class O>
  KOPS_HD KOPS_INLINE static void finalize(const acc<V, IV, D>& a, int lane, O* row) {
    for (int s = 0; s < K * D; ++s) {
      if constexpr (Out == ksmallest_output::indices) {
        row[s] = Math::lane_index(a.i[s], lane);
      } else {
        auto v = Math::lane(a.v[s], lane);
        if constexpr (scalar<V>)  // an empty slot is written as the packs' +inf
          if (a.i[s] < 0) v = std::numeric_limits<V>::infinity();
        if constexpr (Out == ksmallest_output::both) {
#if defined(__CUDA_ARCH__)
          store_value_index(row + s, v, Math::lane_index(a.i[s], lane));  // whole elements: see extremum.hpp
#else
          // Field by field on the host: through store_value_index, the Kokkos
          // backend's partial accumulators (kops/mpi.hpp) wrote wrong indices
          // under g++ 12 (examples/mpi, mpi_test), a miscompile like the one
          // value_index.hpp works around and not understood yet; the padding
          // of value_index<float> is then left as it was (host and emulated GPU).
          row[s].value = v;
          row[s].index = Math::lane_index(a.i[s], lane);
#endif
        } else {
          row[s] = v;
        }
      }
    }
  }
};

} // namespace kops::detail
