// A componentwise reduction op (sum_op and the summation schemes' ops:
// `componentwise`, output component k depends on the terms' component k only)
// over W components, its accumulator kept as W / CH accumulators of CH
// components and one of the W mod CH left: chunked_acc_op<Op, W, CH>.
//
// It is Op over W components to every caller (init, accumulate, combine,
// flush, finalize, and Op's other members by inheritance), and its chunks are
// Op's own accumulators, so that a backend can fold a chunk of a formula's
// components into that chunk alone (acc::c, acc::t), never holding a W-wide term:
// the CPU backend's final chunks (backends/kokkos/block_kernel.hpp). Each
// component sees the same additions in the same order as under Op: the
// results are Op's, bit for bit.
#pragma once

#include <cstdint>

#include <kops/config.hpp>
#include <kops/core/vec.hpp>
#include <kops/reductions/detail/scheme_sum.hpp>

namespace kops::detail {

template <class Op, int W, int CH>
struct chunked_acc_op : Op {
  static_assert(Op::componentwise, "kops: internal error, a chunked accumulator of a reduction that is not componentwise");
  static_assert(CH > 0 && W > CH, "kops: internal error, a chunked accumulator narrower than its chunk");
  static constexpr int chunks = W / CH;
  static constexpr int tail = W % CH;

  // c[k]: components [k * CH, (k + 1) * CH); t: the last W mod CH (unused when 0).
  template <class Math, class V>
  struct acc {
    decltype(Op::template init<Math, V, CH>(0)) c[chunks];
    decltype(Op::template init<Math, V, (tail > 0 ? tail : 1)>(0)) t;
  };

  template <class Math, class V, int D>
  KOPS_HD KOPS_INLINE static acc<Math, V> init(std::int64_t i) {
    static_assert(D == W, "kops: internal error, a chunked accumulator of another width");
    acc<Math, V> a;
    for (int c = 0; c < chunks; ++c) a.c[c] = Op::template init<Math, V, CH>(i);
    if constexpr (tail > 0) a.t = Op::template init<Math, V, tail>(i);
    return a;
  }

  // A whole W-wide term (what a backend that does not fold chunk by chunk adds).
  template <class Math, class A, class V, int D, class IV>
  KOPS_HD KOPS_INLINE static void accumulate(A& a, const vec<V, D>& x, const IV& iv) {
    static_assert(D == W, "kops: internal error, a term of another width");
    for (int c = 0; c < chunks; ++c) {
      vec<V, CH> xc;
      for (int k = 0; k < CH; ++k) xc[k] = x[c * CH + k];
      Op::template accumulate<Math>(a.c[c], xc, iv);
    }
    if constexpr (tail > 0) {
      vec<V, tail> xt;
      for (int k = 0; k < tail; ++k) xt[k] = x[chunks * CH + k];
      Op::template accumulate<Math>(a.t, xt, iv);
    }
  }

  template <class Math, class A>
  KOPS_HD KOPS_INLINE static void combine(A& a, const A& b) {
    for (int c = 0; c < chunks; ++c) Op::template combine<Math>(a.c[c], b.c[c]);
    if constexpr (tail > 0) Op::template combine<Math>(a.t, b.t);
  }

  // Only when caller_flushes_v<Op> (the block summation scheme, the backend
  // flushing): every chunk.
  template <class Math, class A>
  KOPS_HD KOPS_INLINE static void flush(A& a) {
    for (int c = 0; c < chunks; ++c) Op::template flush<Math>(a.c[c]);
    if constexpr (tail > 0) Op::template flush<Math>(a.t);
  }

  template <class Math, class A, class Out>
  KOPS_HD KOPS_INLINE static void finalize(const A& a, int lane, Out* row) {
    for (int c = 0; c < chunks; ++c) Op::template finalize<Math>(a.c[c], lane, row + c * CH);
    if constexpr (tail > 0) Op::template finalize<Math>(a.t, lane, row + chunks * CH);
  }
};

template <class Op, int W, int CH>
inline constexpr bool caller_flushes_v<chunked_acc_op<Op, W, CH>> = caller_flushes_v<Op>;

} // namespace kops::detail
