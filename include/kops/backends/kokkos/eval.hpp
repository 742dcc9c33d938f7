// kops::kokkos::eval: the CPU backend.
//
//   x:(M, Dx) y:(N, Dy) params:(Dp)  ->  out:(rows, red.dim), rows = M (axis_j) or N (axis_i)
//
// Output rows are processed in blocks of L (one SIMD lane per row: L = 16
// floats or 8 doubles, 64 bytes), in parallel over blocks on
// Kokkos::DefaultHostExecutionSpace. Within a block the row variables are
// transposed once into a struct-of-arrays tile (component k of lane l at
// [k * L + l]); then, for every index of the reduced axis, the formula is
// evaluated on whole packs (reduced-axis variables and parameters broadcast)
// and folded into the reduction's per-lane accumulators, which stay in
// registers. A partial last block repeats its last valid row in the unused
// lanes and writes only the valid ones.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <kops/backends/kokkos/pack.hpp>
#include <kops/core/error.hpp>
#include <kops/core/factorize.hpp>
#include <kops/ops/exp2.hpp>
#include <kops/core/policy.hpp>
#include <kops/core/precision.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/detail/scheme_sum.hpp>
#include <kops/reductions/reduction.hpp>

#ifndef KOPS_CPU_UNROLL
#define KOPS_CPU_UNROLL 2
#endif

namespace kops::kokkos {

namespace detail {

// Evaluation context of one block: see the file comment for the layout.
template <class P, category RowCat, class Signature, class Math>
struct block_context {
  using value_type = P;
  using scalar_type = typename P::scalar;
  using math = Math;
  static constexpr int L = P::lanes;

  const scalar_type* tile;            // row variables, struct of arrays
  const scalar_type* const* args;     // every argument, as passed
  std::int64_t r;                     // current index on the reduced axis

  template <category C, int I, int D>
  KOPS_INLINE vec<P, D> load() const {
    vec<P, D> out;
    if constexpr (C == RowCat) {
      constexpr int off = kops::detail::row_offset<Signature, RowCat, I>();
      for (int k = 0; k < D; ++k) out[k] = P::load(tile + (off + k) * L);
    } else if constexpr (C == category::param) {
      for (int k = 0; k < D; ++k) out[k] = P(args[I][k]);
    } else {
      const scalar_type* p = args[I] + r * D;
      for (int k = 0; k < D; ++k) out[k] = P(p[k]);
    }
    return out;
  }
};

// Pol: the call's policies (core/policy.hpp).
template <class Red, class T, class Out, class Pol>
struct block_kernel {
  static constexpr precision Pr = Pol::prec;
  // The fast policy evaluates exp(a) as exp2(a log2 e), log2 e folded into a's
  // invariant factors; repeated sub-formulas are evaluated once.
  using F = policy_formula_t<Red, Pr>;
  // sum_op under a summation scheme / accumulator type: reductions/detail/scheme_sum.hpp.
  // Block sums are flushed by the loop below (no per-term counter).
  using Op = kops::detail::accumulation_op_t<typename Red::op, Pol::scheme, Pol::acc, true>;
  using Sig = typename Red::signature;
  // A pack is one SIMD register; a block holds U packs whose evaluations are
  // independent, so their dependency chains (the exp polynomial, say)
  // interleave and fill the pipelines.
  static constexpr int L = simd::native_bytes / int(sizeof(T));
  static constexpr int U = KOPS_CPU_UNROLL;
  static constexpr int rows_per_block = U * L;
  using P = simd::pack<T, L>;
  using M = std::conditional_t<Pr == precision::fast, simd::pack_math_fast, simd::pack_math>;
  static constexpr category row_cat = Red::row_cat;
  static constexpr int tile_dims = kops::detail::row_dims<Sig, row_cat>();
  static constexpr int tile_size = (tile_dims > 0 ? tile_dims : 1) * L;

  using Acc = decltype(Op::template init<M, P, F::dim>(0));

  const T* const* args;
  Out* out;
  std::int64_t rows, cols;
  // Index of the first term of the reduced axis: 0 for eval; j0 when the
  // arguments hold the slice [j0, j0 + cols) of a longer axis (kops/mpi.hpp),
  // so that arg reductions report indices on the whole axis.
  std::int64_t index0 = 0;

  // The accumulators of rows block * rows_per_block + u * L + [0, L) after all
  // cols terms (not finalized); valid[u] of those rows exist.
  KOPS_INLINE void accumulate(const std::int64_t block, Acc (&acc)[U], int (&valid)[U]) const {
    alignas(64) T tile[U][tile_size];
    block_context<P, row_cat, Sig, M> ctx[U];
    for (int u = 0; u < U; ++u) {
      const std::int64_t row0 = block * rows_per_block + u * L;
      // A sub-block past the end repeats the last row: it computes, writes nothing.
      valid[u] = int(std::clamp<std::int64_t>(rows - row0, 0, L));
      const std::int64_t first = valid[u] > 0 ? row0 : rows - 1;
      kops::detail::fill_tile<Sig, row_cat, L>(tile[u], args, first, valid[u] > 0 ? valid[u] : 1);
      ctx[u] = {tile[u], args, 0};
    }
    for (int u = 0; u < U; ++u) acc[u] = Op::template init<M, P, F::dim>(cols > 0 ? index0 : -1);
    auto terms = [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        const auto idx = M::template index<P>(index0 + r);
        for (int u = 0; u < U; ++u) {
          ctx[u].r = r;
          Op::template accumulate<M>(acc[u], F::eval(ctx[u]), idx);
        }
      }
    };
    if constexpr (kops::detail::caller_flushes_v<Op>) {
      for (std::int64_t r0 = 0; r0 < cols; r0 += Op::flush_every) {
        terms(r0, std::min(cols, r0 + Op::flush_every));
        for (int u = 0; u < U; ++u) Op::template flush<M>(acc[u]);
      }
    } else {
      terms(0, cols);
    }
  }

  void operator()(const std::int64_t block) const {
    Acc acc[U];
    int valid[U];
    accumulate(block, acc, valid);
    for (int u = 0; u < U; ++u) {
      const std::int64_t row0 = block * rows_per_block + u * L;
      for (int l = 0; l < valid[u]; ++l) Op::template finalize<M>(acc[u], l, out + (row0 + l) * Red::dim);
    }
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

namespace kops::kokkos {

/// kops::kokkos::eval: the CPU backend, on host pointers.
/// ```text
///   x:(M, Dx) y:(N, Dy) params:(Dp)  ->  out:(rows, red.dim), rows = M (axis_j) or N (axis_i)
/// ```
/// out:(rows, red.dim), rows = M for axis_j and N for axis_i; args in variable-index
/// order, each an (M, D) / (N, D) / (D) array of the same element type T
/// (float or double). Arg-type reductions write std::int64_t indices.
/// Policy: compile-time policies in any order (core/policy.hpp): precision,
/// sum_scheme, dtype_acc; e.g. eval<kops::precision::fast>(...),
/// eval<kops::sum_scheme::kahan, kops::dtype_acc::float64>(...).
/// Kokkos must be initialised (a Kokkos::ScopeGuard in main); that and bad input
/// (negative sizes, a null pointer that would be read) throw kops::error.
template <auto... Policy, ReductionType Red, class Out, class... Args>
void eval(Red, std::int64_t M, std::int64_t N, Out* out, const Args*... args) {
  static_assert(kops::detail::valid_policies_v<Policy...>,
                "kops::kokkos::eval: the template arguments are policies, at most one of each kind: "
                "a kops::precision, a kops::sum_scheme, a kops::dtype_acc");
  using T = kops::detail::call_element_t<Out, Args...>;
  static_assert(sizeof...(Args) == Red::nargs,
                "kops::kokkos::eval: pass exactly one pointer per argument index of the formula "
                "(0 .. max index), in index order");
  static_assert(std::is_same_v<Out, typename Red::op::template out_t<T>>,
                "kops::kokkos::eval: wrong output pointer type (value reductions write T*, "
                "index reductions such as argmin write std::int64_t*, value-and-index reductions such as "
                "min_argmin write kops::value_index<T>*)");

  if constexpr (is_chained_v<Red>) {
    // Two passes (reductions/chained.hpp): First into a temporary, then Second reading it.
    using First = typename Red::first;
    const T* const ptrs[sizeof...(Args) + 1] = {args..., nullptr};
    kops::detail::check_arguments<Red>("kops::kokkos::eval", M, N, out, ptrs);
    kops::detail::check_no_overlap<Red>("kops::kokkos::eval", M, N, out, ptrs);
    std::vector<T> buffer(std::size_t((First::row_cat == category::i ? M : N) * First::dim));
    eval<Policy...>(First{}, M, N, buffer.data(), args...);
    eval<Policy...>(typename Red::second{}, M, N, out, args..., static_cast<const T*>(buffer.data()));
    return;
  } else {
    const T* const ptrs[sizeof...(Args) + 1] = {args..., nullptr};  // + 1: no empty array
    kops::detail::check_arguments<Red>("kops::kokkos::eval", M, N, out, ptrs);
    kops::detail::check_no_overlap<Red>("kops::kokkos::eval", M, N, out, ptrs);

    const std::int64_t rows = Red::row_cat == category::i ? M : N;
    const std::int64_t cols = Red::no_work ? 0 : Red::row_cat == category::i ? N : M;
    if (rows == 0) return;
    if (!Kokkos::is_initialized())
      throw error("kops::kokkos::eval: Kokkos is not initialized (create a Kokkos::ScopeGuard "
                  "or call Kokkos::initialize first)");

    using K = detail::block_kernel<Red, T, Out, kops::detail::policy_of_t<Policy...>>;
    const std::int64_t blocks = (rows + K::rows_per_block - 1) / K::rows_per_block;
    // Kokkos 3.4 takes the label as a std::string: built once, not per call
    // (a successful eval allocates nothing).
    static const std::string label = "kops::kokkos::eval";
    Kokkos::parallel_for(label,
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(0, blocks),
                         K{ptrs, out, rows, cols});
    Kokkos::DefaultHostExecutionSpace().fence();
  }
}

} // namespace kops::kokkos
