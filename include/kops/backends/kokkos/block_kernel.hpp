// The block kernel of the CPU backend (kops::kokkos): the accumulators of one
// block of output rows over a range of the reduced axis. eval.hpp runs it over
// every block (and, when rows are few, over slices of the reduced axis as well);
// partial.hpp keeps its accumulators between slices.
//
// Output rows are processed in blocks of U packs of L rows (one SIMD lane per
// row: L = 16 floats or 8 doubles, 64 bytes). Within a block the row variables
// are transposed once into a struct-of-arrays tile (component k of lane l at
// [k * L + l]); then, for every index of the reduced axis, the formula is
// evaluated on whole packs (reduced-axis variables and parameters broadcast)
// and folded into the reduction's per-lane accumulators, which stay in
// registers. A partial last block repeats its last valid row in the unused
// lanes and writes only the valid ones.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <kops/backends/kokkos/pack.hpp>
#include <kops/config.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/core/policy.hpp>
#include <kops/core/precision.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/lowering/plan.hpp>
#include <kops/reductions/detail/chunked_acc.hpp>
#include <kops/reductions/detail/scheme_sum.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::kokkos {

namespace detail {

// Evaluation context of one block: see the file comment for the layout.
// Stored: the arguments' element type (the packs' scalar, or a 16-bit type
// widened on load: detail/storage.hpp); Pol: the call's policy.
template <class P, category RowCat, class Signature, class Math, class Stored = typename P::scalar,
          class Pol = void>
struct block_context {
  using value_type = P;
  using scalar_type = typename P::scalar;
  using math = Math;
  static constexpr int L = P::lanes;

  const scalar_type* tile;            // row variables, struct of arrays
  const Stored* const* args;          // every argument, as passed
  std::int64_t r;                     // current index on the reduced axis

  template <category C, int I, int D>
  KOPS_INLINE vec<P, D> load() const {
    vec<P, D> out;
    if constexpr (C == RowCat) {
      constexpr int off = kops::detail::row_offset<Signature, RowCat, I>();
      for (int k = 0; k < D; ++k) out[k] = P::load(tile + (off + k) * L);
    } else if constexpr (C == category::param) {
      for (int k = 0; k < D; ++k) out[k] = P(kops::detail::load_arg<Pol, I>(args[I], k));
    } else {
      for (int k = 0; k < D; ++k) out[k] = P(kops::detail::load_arg<Pol, I>(args[I], r * D + k));
    }
    return out;
  }

  // Components [k0, k0 + CH) of variable I (a chunked sum: lowering/chunk.hpp).
  template <category C, int I, int D, int CH>
  KOPS_INLINE vec<P, CH> load_range(const int k0) const {
    vec<P, CH> out;
    if constexpr (C == RowCat) {
      constexpr int off = kops::detail::row_offset<Signature, RowCat, I>();
      const scalar_type* t = tile + (off + k0) * L;
      for (int k = 0; k < CH; ++k) out[k] = P::load(t + k * L);
    } else if constexpr (C == category::param) {
      for (int k = 0; k < CH; ++k) out[k] = P(kops::detail::load_arg<Pol, I>(args[I], k0 + k));
    } else {
      const std::int64_t base = r * D + k0;
      for (int k = 0; k < CH; ++k) out[k] = P(kops::detail::load_arg<Pol, I>(args[I], base + k));
    }
    return out;
  }
};

// Sums over at least cpu_chunk_min_dim (KOPS_CPU_CHUNK_MIN_DIM, 16) coordinates
// are evaluated chunk by chunk, cpu_chunk (8) components (packs) at a time
// (lowering/chunk.hpp): no D-pack temporaries.
inline constexpr int cpu_chunk_min_dim = KOPS_CPU_CHUNK_MIN_DIM;
inline constexpr int cpu_chunk = 8;
// The CPU backend as lowering/plan.hpp's evaluation plan sees it: its math
// provider has exp_scaled(a, b) = e^(a b), the product unrounded
// (simd_math.hpp: vexp_scaled), and a fast exponential in every type; final
// chunks over the same threshold and width as the chunked sums, each output
// chunk folded into its own accumulator of the call's scheme and type
// (chunked_acc_op).
struct cpu_target {
  static constexpr bool exp_scaled = true;
  template <class T> static constexpr bool fast_exp = true;
  static constexpr int chunk_min_dim = cpu_chunk_min_dim;
  static constexpr int chunk = cpu_chunk;
  static constexpr int output_chunk_min_dim = cpu_chunk_min_dim;
  template <class T> static constexpr int output_chunk = cpu_chunk;
  static constexpr bool final_keeps_accumulator = true;
};
// The plan of a reduction on the CPU backend, evaluated in C (float or double).
template <class Red, class C, class Pol>
using cpu_plan = kops::detail::evaluation_plan<Red, cpu_target, C, Pol::prec, Pol::scheme, Pol::acc, false>;
// The formula the CPU backend evaluates for a reduction under a precision policy.
template <class Red, precision P>
using cpu_formula_t =
    chunked_for_t<kops::detail::unchunked_formula_t<Red, cpu_target, double, P>, typename Red::signature,
                  cpu_chunk_min_dim, cpu_chunk>;

// Pol: the call's policies (core/policy.hpp); T: the arguments' element type
// (float, double, or a 16-bit type evaluated in float: C, detail/storage.hpp).
template <class Red, class T, class Out, class Pol>
struct block_kernel {
  using C = kops::detail::compute_t<T>;
  static constexpr precision Pr = Pol::prec;
  // The evaluation plan (cpu_target): the fast policy evaluates exp(a) as
  // exp2(a log2 e), log2 e folded into a's invariant factors; the accurate one
  // exp(a b), b invariant, as exp_scaled(a, b) (lowering/lower.hpp); repeated
  // sub-formulas are evaluated once.
  using Lowered = cpu_plan<Red, C, Pol>;
  using F = typename Lowered::formula;
  using Sig = typename Red::signature;

  // Staged chunked sums (lowering/chunk_plan.hpp): the chunk loop outside a
  // group of R reduced indices, so that each chunk of the rows' tile is read
  // once per group instead of once per index (see staged_terms).
  using Plan = typename Lowered::sums;
  static constexpr bool staged = Lowered::staged;
  static constexpr int R = 8;

  // Final chunks (lowering/final_chunks.hpp): a sum of a wide formula
  // element-wise over its dimension (the gradient of a wide Gaussian w.r.t.
  // x, 2 (x_i - y_j) s(x_i, y_j)): per group of R reduced indices, the
  // formula's dimension-1 parts that vary with the pair once per pair (s,
  // from the staged sums), then the output cpu_chunk components at a time,
  // each chunk folded into its own accumulator (chunked_acc_op): no pair
  // evaluates a W-wide temporary (see final_terms). Any summation scheme and
  // accumulator type, the same values as the whole-row evaluation.
  using FinalPlan = typename Lowered::final_plan;
  static constexpr bool final_chunks = Lowered::final_chunks;

  // sum_op under a summation scheme / accumulator type: reductions/detail/scheme_sum.hpp.
  // Block sums are flushed by the loop below (no per-term counter).
  using BaseOp = kops::detail::accumulation_op_t<typename Red::op, Pol::scheme, Pol::acc, true>;
  using Op = std::conditional_t<final_chunks, kops::detail::chunked_acc_op<BaseOp, F::dim, cpu_chunk>, BaseOp>;
  // A pack is one SIMD register; a block holds U packs whose evaluations are
  // independent, so their dependency chains (the exp polynomial, say)
  // interleave and fill the pipelines.
  static constexpr int L = simd::native_bytes / int(sizeof(C));
  static constexpr int U = KOPS_CPU_UNROLL;
  static constexpr int rows_per_block = U * L;
  using P = simd::pack<C, L>;
  using Math = std::conditional_t<Pr == precision::fast, simd::pack_math_fast, simd::pack_math>;
  static constexpr category row_cat = Red::row_cat;
  static constexpr int tile_dims = kops::detail::row_dims<Sig, row_cat>();
  static constexpr int tile_size = (tile_dims > 0 ? tile_dims : 1) * L;

  using Acc = decltype(Op::template init<Math, P, F::dim>(0));

  const T* const* args;
  Out* out;
  std::int64_t rows, cols;
  // Index of the first term of the reduced axis: 0 for eval; j0 when the
  // arguments hold the slice [j0, j0 + cols) of a longer axis (kops/mpi.hpp),
  // so that arg reductions report indices on the whole axis.
  std::int64_t index0 = 0;

  using context = block_context<P, row_cat, Sig, Math, T, Pol>;

  // The CPU tile walk (the GPU's: backends/cuda/tile_walk.hpp): the terms
  // [c0, c1) of the reduced axis in groups of G, body(r) on each group's first
  // term r; the group has min(G, c1 - r) terms. The loop bodies: the staged
  // one (staged_terms) and the final chunks' (final_terms), groups of R; the
  // plain one (run_terms) is its groups of one term written out. A body that
  // evaluates more terms than its group has evaluates the group's last one again.
  // (The bodies compute their group's length and their terms' indices
  // themselves, in the loops' original spelling: passing the length in, or
  // computing an index through an inline helper, changed GCC's register
  // allocation of the staged kernels; bench/compile/cpu_code.sh.)
  template <int G, class Body>
  KOPS_INLINE static void walk_groups(const std::int64_t c0, const std::int64_t c1, Body&& body) {
    for (std::int64_t r = c0; r < c1; r += G) body(r);
  }

  // The context of the rest of a staged formula (Plan::outer): the block's
  // context, and the chunked sums' values as Slot<Plan::slot0 + s>; with
  // Slot0 = FinalPlan::slot0, a final chunk's (final_step): the pair's parts.
  template <int Slot0>
  struct slot_context {
    using value_type = P;
    using scalar_type = C;
    using math = Math;
    const context& base;
    const vec<P, 1>* part;
    template <category Ct, int I, int D>
    KOPS_INLINE vec<P, D> load() const {
      return base.template load<Ct, I, D>();
    }
    template <category Ct, int I, int D, int CH>
    KOPS_INLINE vec<P, CH> load_range(int k0) const {
      return base.template load_range<Ct, I, D, CH>(k0);
    }
    template <int S, int D>
    KOPS_INLINE const vec<P, 1>& slot() const {
      return part[S - Slot0];
    }
  };
  using parts_context = slot_context<Plan::slot0>;

  // part[rr][u][s] += chunk [k0, k0 + C2) of sum s at term r + rr (clamped to
  // the n terms of the group) of pack u: every pack and index of the group on
  // the same chunk, whose row-tile loads the compiler then shares.
  template <bool Shifted, int C2>
  KOPS_INLINE void stage_step(vec<P, 1> (&part)[R][U][Plan::nsums], context (&ctx)[U], const std::int64_t (&shift)[U],
                              const std::int64_t r, const int n, const int k0) const {
#pragma GCC unroll 8
    for (int rr = 0; rr < R; ++rr) {
      const std::int64_t rq = r + (rr < n ? rr : n - 1);
#pragma GCC unroll 2
      for (int u = 0; u < U; ++u) {
        ctx[u].r = Shifted ? rq + shift[u] : rq;
        const kops::detail::chunk_context<context> cc{ctx[u], k0};
        [&]<int... S>(std::integer_sequence<int, S...>) {
          ((part[rr][u][S][0] = kops::detail::add_chunk<typename Plan::sums::template at<S>, C2>(cc, part[rr][u][S][0])), ...);
        }(std::make_integer_sequence<int, Plan::nsums>{});
      }
    }
  }
  // part[rr][u][s] <- chunked sum s at the terms r + [0, n) of pack u.
  template <bool Shifted>
  KOPS_INLINE void stage_parts(vec<P, 1> (&part)[R][U][Plan::nsums], context (&ctx)[U],
                               const std::int64_t (&shift)[U], const std::int64_t r, const int n) const {
    constexpr int CH = Plan::chunk, W = Plan::width;
    for (int rr = 0; rr < R; ++rr)
      for (int u = 0; u < U; ++u)
        for (int s = 0; s < Plan::nsums; ++s) part[rr][u][s][0] = P(C(0));
    for (int k0 = 0; k0 + CH <= W; k0 += CH) stage_step<Shifted, CH>(part, ctx, shift, r, n, k0);
    if constexpr (W % CH != 0) stage_step<Shifted, W % CH>(part, ctx, shift, r, n, W - W % CH);
  }
  // The terms [c0, c1) of a staged formula, R at a time (run_terms): the
  // staged body of the walk.
  template <bool Shifted>
  KOPS_INLINE void staged_terms(Acc (&acc)[U], context (&ctx)[U], const std::int64_t (&shift)[U], const std::int64_t c0,
                                const std::int64_t c1) const {
    walk_groups<R>(c0, c1, [&](const std::int64_t r) KOPS_INLINE_LAMBDA {
      const int n = int(std::min<std::int64_t>(R, c1 - r));
      vec<P, 1> part[R][U][Plan::nsums];
      stage_parts<Shifted>(part, ctx, shift, r, n);
      for (int rr = 0; rr < n; ++rr)
        for (int u = 0; u < U; ++u) {
          const std::int64_t ru = Shifted ? r + rr + shift[u] : r + rr;
          ctx[u].r = ru;
          const parts_context pc{ctx[u], part[rr][u]};
          Op::template accumulate<Math>(acc[u], Plan::outer::eval(pc), Math::template index<P>(index0 + ru));
        }
    });
  }

  // Final chunks (FinalPlan, above): acc[u] chunk (c0 / CH) <- the terms r +
  // [0, n) of components [c0, c0 + C2), their parts in scal.
  template <bool Shifted, int C2, int NS>
  KOPS_INLINE void final_step(Acc (&acc)[U], context (&ctx)[U], const std::int64_t (&shift)[U],
                              const vec<P, 1> (&scal)[R][U][NS], const std::int64_t r, const int n, const int c0) const {
    using Body = std::conditional_t<C2 == FinalPlan::chunk, typename FinalPlan::body, typename FinalPlan::tail_body>;
    for (int rr = 0; rr < n; ++rr)
#pragma GCC unroll 2
      for (int u = 0; u < U; ++u) {
        const std::int64_t ru = Shifted ? r + rr + shift[u] : r + rr;
        ctx[u].r = ru;
        const slot_context<FinalPlan::slot0> fc{ctx[u], scal[rr][u]};
        const kops::detail::chunk_context<slot_context<FinalPlan::slot0>> cc{fc, c0};
        auto& a = [&]() -> auto& {
          if constexpr (C2 == FinalPlan::chunk) return acc[u].c[c0 / C2];
          else return acc[u].t;
        }();
        BaseOp::template accumulate<Math>(a, Body::eval(cc), Math::template index<P>(index0 + ru));
      }
  }
  // The terms [c0, c1) of a formula in final chunks, R at a time (run_terms):
  // the parts of the group's pairs, then the output chunk by chunk (the final
  // body of the walk).
  template <bool Shifted>
  KOPS_INLINE void final_terms(Acc (&acc)[U], context (&ctx)[U], const std::int64_t (&shift)[U], const std::int64_t c0,
                               const std::int64_t c1) const {
    using Scalars = typename FinalPlan::scalars;
    constexpr int NS = FinalPlan::nscalars > 0 ? FinalPlan::nscalars : 1;
    constexpr int W = FinalPlan::width, CH = FinalPlan::chunk;
    walk_groups<R>(c0, c1, [&](const std::int64_t r) KOPS_INLINE_LAMBDA {
      const int n = int(std::min<std::int64_t>(R, c1 - r));
      vec<P, 1> scal[R][U][NS];
      auto parts = [&](auto&& context_of) {
        for (int rr = 0; rr < n; ++rr)
          for (int u = 0; u < U; ++u) {
            ctx[u].r = Shifted ? r + rr + shift[u] : r + rr;
            [[maybe_unused]] const auto& c = context_of(rr, u);
            [&]<int... Q>(std::integer_sequence<int, Q...>) {
              ((scal[rr][u][Q] = Scalars::template at<Q>::eval(c)), ...);
            }(std::make_integer_sequence<int, FinalPlan::nscalars>{});
          }
      };
      if constexpr (staged) {
        vec<P, 1> part[R][U][Plan::nsums];
        stage_parts<Shifted>(part, ctx, shift, r, n);
        parts([&](int rr, int u) { return parts_context{ctx[u], part[rr][u]}; });
      } else {
        parts([&](int, int u) -> const context& { return ctx[u]; });
      }
      for (int k0 = 0; k0 + CH <= W; k0 += CH) final_step<Shifted, CH>(acc, ctx, shift, scal, r, n, k0);
      if constexpr (W % CH != 0) final_step<Shifted, W % CH>(acc, ctx, shift, scal, r, n, W - W % CH);
    });
  }

  // The terms [r0, r1) of the reduced axis folded into acc: pack u on term r
  // at step r, or, Shifted, on term r + shift[u] (fold's one-pack split),
  // flushed every Op::flush_every terms when the summation scheme leaves that
  // to the caller (caller_flushes_v).
  // Inlined into fold, fold into accumulate and accumulate into its callers:
  // out-of-line copies of this loop cut the code a translation unit compiles
  // per reduction by a third but cost 1.5% of the fast policy's speed on full
  // blocks (bench_cpu; docs/performance.md "Compile time", tried and dropped).
  template <bool Shifted>
  KOPS_INLINE void run_terms(Acc (&acc)[U], context (&ctx)[U], const std::int64_t (&shift)[U], const std::int64_t r0,
                             const std::int64_t r1) const {
    auto terms = [&](std::int64_t c0, std::int64_t c1) {
      if constexpr (final_chunks) {
        final_terms<Shifted>(acc, ctx, shift, c0, c1);
      } else if constexpr (staged) {
        staged_terms<Shifted>(acc, ctx, shift, c0, c1);
      } else {
        // The plain body, the walk's groups of one term written out (through
        // walk_groups<1>, GCC inlined the kernel's callers differently:
        // bench/compile/cpu_code.sh on bench_knn and bench_half).
        for (std::int64_t r = c0; r < c1; ++r) {
          for (int u = 0; u < U; ++u) {
            const std::int64_t ru = Shifted ? r + shift[u] : r;
            ctx[u].r = ru;
            Op::template accumulate<Math>(acc[u], F::eval(ctx[u]), Math::template index<P>(index0 + ru));
          }
        }
      }
    };
    if constexpr (kops::detail::caller_flushes_v<Op>) {
      for (std::int64_t c = r0; c < r1; c += Op::flush_every) {
        terms(c, std::min(r1, c + Op::flush_every));
        for (int u = 0; u < U; ++u) Op::template flush<Math>(acc[u]);
      }
    } else {
      terms(r0, r1);
    }
  }

  // Row tiles and contexts of the rows row0 + u * L + [0, L) of pack u,
  // valid[u] of them before row_end (row0 < row_end). A pack past the end
  // repeats the last row: it computes, writes nothing.
  KOPS_INLINE void load_rows(const std::int64_t row0, const std::int64_t row_end, C (&tile)[U][tile_size],
                             context (&ctx)[U], int (&valid)[U]) const {
    for (int u = 0; u < U; ++u) {
      const std::int64_t r = row0 + u * L;
      valid[u] = int(std::clamp<std::int64_t>(row_end - r, 0, L));
      const std::int64_t first = valid[u] > 0 ? r : row_end - 1;
      kops::detail::fill_tile<Sig, row_cat, L, Pol>(tile[u], args, first, valid[u] > 0 ? valid[u] : 1);
      ctx[u] = {tile[u], args, 0};
    }
  }

  // acc <- acc followed by the terms [r_begin, r_end) of the reduced axis.
  KOPS_INLINE void fold(Acc (&acc)[U], context (&ctx)[U], const int (&valid)[U], const std::int64_t r_begin,
                        const std::int64_t r_end) const {
    // Pack u evaluates term r + shift[u] at step r (shift 0: every pack on the same term).
    std::int64_t shift[U] = {};
    if constexpr (U == 2) {
      // Rows that fill one pack only (M = 16 floats, say, or a last block of
      // <= L rows): the second pack would compute a copy of the first pack's
      // rows. It takes the second half of the terms instead, and the halves
      // are combined in axis order (the reduction's own combine).
      const std::int64_t n = r_end - r_begin;
      if (valid[1] == 0 && n >= 2) {
        const std::int64_t half = n / 2, mid = r_end - half;  // pack 0: [r_begin, mid), pack 1: [mid, r_end)
        ctx[1].tile = ctx[0].tile;
        acc[1] = Op::template init<Math, P, F::dim>(index0 + mid);
        shift[1] = mid - r_begin;
        run_terms<true>(acc, ctx, shift, r_begin, r_begin + half);
        if (mid - r_begin > half) {
          // Pack 0's last term (n odd): both packs step on it, pack 1's result is dropped.
          const Acc second = acc[1];
          shift[1] = 0;
          run_terms<true>(acc, ctx, shift, mid - 1, mid);
          acc[1] = second;
        }
        Op::template combine<Math>(acc[0], acc[1]);
        return;
      }
    }
    run_terms<false>(acc, ctx, shift, r_begin, r_end);
  }

  // The accumulators of rows block * rows_per_block + u * L + [0, L) after the
  // terms [r_begin, r_end) of the reduced axis (not finalized); valid[u] of
  // those rows exist. The whole axis: r_begin = 0, r_end = cols.
  KOPS_INLINE void accumulate(const std::int64_t block, Acc (&acc)[U], int (&valid)[U], const std::int64_t r_begin,
                              const std::int64_t r_end) const {
    alignas(64) C tile[U][tile_size];
    context ctx[U];
    load_rows(block * rows_per_block, rows, tile, ctx, valid);
    for (int u = 0; u < U; ++u) acc[u] = Op::template init<Math, P, F::dim>(r_end > r_begin ? index0 + r_begin : -1);
    fold(acc, ctx, valid, r_begin, r_end);
  }
  KOPS_INLINE void accumulate(const std::int64_t block, Acc (&acc)[U], int (&valid)[U]) const {
    accumulate(block, acc, valid, 0, cols);
  }

  // Block-sparse form: the accumulators of rows row0 + u * L + [0, L) before
  // row_end over the n intervals iv of the reduced axis (sorted, disjoint).
  KOPS_INLINE void accumulate_ranges(const std::int64_t row0, const std::int64_t row_end, Acc (&acc)[U],
                                     int (&valid)[U], const range* iv, const std::int64_t n) const {
    alignas(64) C tile[U][tile_size];
    context ctx[U];
    load_rows(row0, row_end, tile, ctx, valid);
    std::int64_t t = 0;
    while (t < n && iv[t].begin == iv[t].end) ++t;
    for (int u = 0; u < U; ++u) acc[u] = Op::template init<Math, P, F::dim>(t < n ? index0 + iv[t].begin : -1);
    for (; t < n; ++t)
      if (iv[t].begin < iv[t].end) fold(acc, ctx, valid, iv[t].begin, iv[t].end);
  }

  // Writes the rows of pack u of acc that exist (valid[u] of those from row0 + u * L).
  KOPS_INLINE void write(const std::int64_t row0, const Acc (&acc)[U], const int (&valid)[U]) const {
    for (int u = 0; u < U; ++u)
      for (int l = 0; l < valid[u]; ++l)
        kops::detail::store_row<Op, Math, Red::dim>(acc[u], l, out + (row0 + u * L + l) * out_stride_v<Red>);
  }

  // Rows [r0, r1) <- the reduction's value over no term.
  void write_empty(const std::int64_t r0, const std::int64_t r1) const {
    if (r0 >= r1) return;
    const Acc a = Op::template init<Math, P, F::dim>(-1);
    Out empty[Red::dim];
    kops::detail::store_row<Op, Math, Red::dim>(a, 0, empty);
    for (std::int64_t r = r0; r < r1; ++r)
      for (int k = 0; k < Red::dim; ++k) out[r * out_stride_v<Red> + k] = empty[k];
  }

  void operator()(const std::int64_t block) const {
    Acc acc[U];
    int valid[U];
    accumulate(block, acc, valid);
    write(block * rows_per_block, acc, valid);
  }
};

} // namespace detail
} // namespace kops::kokkos

namespace kops::detail {
// dtype_acc::float64 on float packs: each lane widened to double (a pack of
// twice the bytes, which the compiler splits into native registers).
template <int L>
struct acc_value<simd::pack<float, L>, dtype_acc::float64> {
  using type = simd::pack<double, L>;
  KOPS_INLINE static type from(const simd::pack<float, L>& v) {
    return __builtin_convertvector(v.v, typename type::vt);
  }
};
} // namespace kops::detail

