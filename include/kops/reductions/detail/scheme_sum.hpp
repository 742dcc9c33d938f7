// sum_reduction under a summation scheme and an accumulator type (core/sum_scheme.hpp,
// core/dtype_acc.hpp): the reduction op that backends run in place of sum_op
// when a call asks for them. Written once for every backend, like the other
// reduction ops (reductions/reduction.hpp): it only counts terms, it never
// needs to know where a backend's tiles or chunks begin.
//
// Accumulator, per component k, in the accumulation type W (V, or double for float data):
//   direct  s                  out = s
//   block   s, p, n            p sums the current block's terms; every B = block_sum_length
//                              terms s <- s + p, p <- 0; out = s + p
//   kahan   s, c               y = x - c, t = s + y, c = (t - s) - y, s = t; out = s - c
// Block sums count their terms (n) unless the backend walks the reduced axis in
// blocks itself (CallerFlushes): that variant has no counter, and declares
//   flush_every                the backend calls flush(acc) after every
//                              flush_every terms of a range (and may at its end)
// so that its inner loop is exactly the direct sum's.
// combine(a, b), b's range following a's: block: s_a + p_a + (s_b + p_b);
// kahan: b's s and -c are added into a by two compensated adds.
//
// Special values: a NaN or infinite term makes the result what the direct sum
// gives (NaN, or the infinity): the Kahan compensation of a step that is not
// finite (inf - inf, an overflow) is dropped instead of being fed back as NaN.
#pragma once

#include <limits>
#include <type_traits>

#include <kops/core/dtype_acc.hpp>
#include <kops/core/sum_scheme.hpp>
#include <kops/reductions/sum.hpp>

namespace kops::detail {

// The accumulation type of values V under dtype_acc A, and the conversion of a
// term. Scalars here; SIMD packs are specialised by the backend that defines
// them (backends/kokkos/eval.hpp).
template <class V, dtype_acc A>
struct acc_value {
  using type = V;
  KOPS_HD KOPS_INLINE static V from(const V& v) { return v; }
};
template <>
struct acc_value<float, dtype_acc::float64> {
  using type = double;
  KOPS_HD KOPS_INLINE static double from(float v) { return v; }
};

// Hides v's value from the optimiser. Under -fassociative-math (-ffast-math)
// the compiler may rewrite (t - s) - y with t = s + y as 0 and delete the Kahan
// compensation; a value that passes through memory it cannot see into cannot
// be reassociated. Without that flag (and in device code: nvcc never
// reassociates floating-point adds) this is nothing.
template <class V>
KOPS_HD KOPS_INLINE void opaque(V& v) {
#if defined(__ASSOCIATIVE_MATH__) && !defined(__CUDA_ARCH__)
  __asm__ volatile("" : "+m"(v));
#else
  (void)v;
#endif
}

// The component type and dim of an accumulator field vec<W, D>.
template <class> struct vec_of;
template <class W, int D>
struct vec_of<vec<W, D>> {
  using value = W;
  static constexpr int dim = D;
};

template <class W, int D, sum_scheme S> struct scheme_acc;
template <class W, int D>
struct scheme_acc<W, D, sum_scheme::direct> {
  vec<W, D> s;
};
template <class W, int D>
struct scheme_acc<W, D, sum_scheme::block> {
  vec<W, D> s, p;
  int n;
};
template <class W, int D>
struct block_acc_flushed {  // block, the backend flushes
  vec<W, D> s, p;
};
template <class W, int D>
struct scheme_acc<W, D, sum_scheme::kahan> {
  vec<W, D> s, c;
};

template <sum_scheme S, dtype_acc A, bool CallerFlushes = false>
struct scheme_sum_op : sum_op {
  static constexpr bool counted = S == sum_scheme::block && !CallerFlushes;
  template <class W, int D>
  using acc_t = std::conditional_t<S == sum_scheme::block && CallerFlushes, block_acc_flushed<W, D>, scheme_acc<W, D, S>>;

  template <class Math, class V, int D>
  KOPS_HD KOPS_INLINE static auto init(std::int64_t) {
    using W = typename acc_value<V, A>::type;
    acc_t<W, D> a;
    for (int k = 0; k < D; ++k) a.s[k] = W(0);
    if constexpr (S == sum_scheme::block) {
      for (int k = 0; k < D; ++k) a.p[k] = W(0);
      if constexpr (counted) a.n = 0;
    } else if constexpr (S == sum_scheme::kahan) {
      for (int k = 0; k < D; ++k) a.c[k] = W(0);
    }
    return a;
  }

  // s <- s + x with the compensation c (see the file comment).
  template <class Math, class W>
  KOPS_HD KOPS_INLINE static void kahan_add(W& s, W& c, const W& x) {
    using S_ = decltype(Math::lane(W{}, 0));
    W y = x - c;
    opaque(y);
    W t = s + y;
    opaque(t);
    W d = t - s;
    opaque(d);
    const W e = d - y;
    // A compensation that is not finite (t overflowed, or x is infinite or
    // NaN) is dropped: s then carries the direct sum's inf or NaN.
    c = Math::select(Math::abs(e) < W(std::numeric_limits<S_>::infinity()), e, W(0));
    opaque(c);
    s = t;
  }

  // Block sums, CallerFlushes: the backend calls flush after every flush_every terms.
  static constexpr std::int64_t flush_every = block_sum_length;
  template <class Math, class Acc>
  KOPS_HD KOPS_INLINE static void flush(Acc& a) {
    static_assert(S == sum_scheme::block, "kops: internal error, only block sums flush");
    using P = vec_of<decltype(a.p)>;
    using W = typename P::value;
    for (int k = 0; k < P::dim; ++k) {
      a.s[k] = a.s[k] + a.p[k];
      a.p[k] = W(0);
    }
    if constexpr (counted) a.n = 0;
  }

  template <class Math, class Acc, int D, class V, class IV>
  KOPS_HD KOPS_INLINE static void accumulate(Acc& a, const vec<V, D>& x, const IV&) {
    using W = typename vec_of<decltype(a.s)>::value;
    if constexpr (S == sum_scheme::direct) {
      for (int k = 0; k < D; ++k) a.s[k] = a.s[k] + acc_value<V, A>::from(x[k]);
    } else if constexpr (S == sum_scheme::block) {
      for (int k = 0; k < D; ++k) a.p[k] = a.p[k] + acc_value<V, A>::from(x[k]);
      if constexpr (counted) {
        if (++a.n == block_sum_length) flush<Math>(a);
      }
    } else {
      for (int k = 0; k < D; ++k) kahan_add<Math>(a.s[k], a.c[k], W(acc_value<V, A>::from(x[k])));
    }
  }

  template <class Math, class Acc>
  KOPS_HD KOPS_INLINE static void combine(Acc& a, const Acc& b) {
    using W = typename vec_of<decltype(a.s)>::value;
    constexpr int D = vec_of<decltype(a.s)>::dim;
    if constexpr (S == sum_scheme::direct) {
      for (int k = 0; k < D; ++k) a.s[k] = a.s[k] + b.s[k];
    } else if constexpr (S == sum_scheme::block) {
      for (int k = 0; k < D; ++k) {
        a.s[k] = (a.s[k] + a.p[k]) + (b.s[k] + b.p[k]);
        a.p[k] = W(0);
      }
      if constexpr (counted) a.n = 0;
    } else {
      for (int k = 0; k < D; ++k) {
        kahan_add<Math>(a.s[k], a.c[k], b.s[k]);
        kahan_add<Math>(a.s[k], a.c[k], W(-b.c[k]));
      }
    }
  }

  template <class Math, class Acc, class Out>
  KOPS_HD KOPS_INLINE static void finalize(const Acc& a, int lane, Out* row) {
    constexpr int D = vec_of<decltype(a.s)>::dim;
    for (int k = 0; k < D; ++k) {
      if constexpr (S == sum_scheme::direct) row[k] = Out(Math::lane(a.s[k], lane));
      else if constexpr (S == sum_scheme::block) row[k] = Out(Math::lane(a.s[k] + a.p[k], lane));
      else row[k] = Out(Math::lane(a.s[k] - a.c[k], lane));
    }
  }
};

// The op a backend runs for reduction op Op under scheme S and accumulator A:
// sum_op becomes scheme_sum_op<S, A, CallerFlushes> (plain sum_op for direct in
// the data's type: the same code as without policies); every other op is
// unchanged. CallerFlushes: the backend honours flush_every (see above).
template <class Op, sum_scheme S, dtype_acc A, bool CallerFlushes = false>
struct accumulation_op {
  using type = Op;
};
template <sum_scheme S, dtype_acc A, bool CallerFlushes>
struct accumulation_op<sum_op, S, A, CallerFlushes> {
  using type = scheme_sum_op<S, A, CallerFlushes && S == sum_scheme::block>;
};
template <bool CallerFlushes>
struct accumulation_op<sum_op, sum_scheme::direct, dtype_acc::same, CallerFlushes> {
  using type = sum_op;
};
template <class Op, sum_scheme S, dtype_acc A, bool CallerFlushes = false>
using accumulation_op_t = typename accumulation_op<Op, S, A, CallerFlushes>::type;

// Does the backend have to call Op::flush every Op::flush_every terms?
template <class Op>
inline constexpr bool caller_flushes_v = false;
template <dtype_acc A>
inline constexpr bool caller_flushes_v<scheme_sum_op<sum_scheme::block, A, true>> = true;

} // namespace kops::detail
