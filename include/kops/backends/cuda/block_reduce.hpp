// The loop at the heart of both GPU schemes: one thread per output row reduces
// its row over a range [jb, je) of the reduced axis, the block walking the range
// tile by tile through shared memory (tile_walk.hpp), the plain body:
//
//   for each tile [j0, j0 + len) of [jb, je):
//     __syncthreads; the block loads the tile (coalesced); __syncthreads
//     each thread with a valid row: acc <- accumulate(acc, F(row, tile[jj], params), j0 + jj)
//
// Every thread of the block takes part in every tile load and barrier, also
// those whose row is past the end (they just skip the evaluations), so the
// barriers are uniform. The accumulator starts from init(jb), or init(-1) for an
// empty range, the convention of the reduction ops (reductions/reduction.hpp).
#pragma once

#include <cstdint>

#include <kops/backends/cuda/chunk_loop.hpp>
#include <kops/backends/cuda/final_chunks.hpp>
#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/tile_context.hpp>
#include <kops/backends/cuda/tile_walk.hpp>

namespace kops::cuda::detail {

// A thread's row variables and the parameters, in registers (ctx.row, ctx.prm).
template <class K>
__device__ KOPS_INLINE void load_row(tile_context<K>& ctx, const typename K::args_type& a, std::int64_t row,
                                     bool valid) {
  using Sig = typename K::signature;
  if constexpr (K::row_dims > 0) {
    if (valid) gather<K, K::row_cat, Sig>::row(ctx.row, a.p, row);
  }
  if constexpr (K::param_dims > 0) gather<K, category::param, Sig>::row(ctx.prm, a.p, 0);
  ctx.red = nullptr;
  if constexpr (K::chunked) {
    ctx.chunk.a = a;
    ctx.chunk.row = row;
  }
}

// acc[r] <- acc[r] followed by the terms [jb, je) of the thread's R rows
// (ctx[r]), tile by tile (file comment): each tile element is read from shared
// memory once for the R rows (register blocking, kernel_traits.hpp: tuning).
// `valid`: the thread's first row is; its other rows are then evaluated
// whether valid or not (the caller points a row past the end at the first
// row's variables and drops its result), so the pair loop has no branch per row.
// `tiles_unflushed` carries the flush count of a summation scheme from one
// range to the next (a block-sparse row walks several). Not staged.
template <class K, int R, class Acc>
__device__ KOPS_INLINE void fold_rows(Acc* acc, tile_context<K>* ctx, int& tiles_unflushed,
                                      const typename K::args_type& a, bool valid, std::int64_t jb, std::int64_t je) {
  using T = typename K::value_type;
  using Math = typename K::math;
  using F = typename K::formula;
  using Op = typename K::op;
  using FS = flush_schedule<Op, K::tile>;  // block sums' flushes (tile_walk.hpp)
  // A narrow tile row is copied to registers before the formula reads it, so
  // that nothing in the formula (an inline-asm exp2 of the fast policy, which
  // nvcc treats as touching memory) makes the compiler load it again.
  T staged[K::stage_red ? K::red_dims : 1];
  // K::unroll pairs per iteration for one row; R rows share them (as many evaluations in flight).
  [[maybe_unused]] constexpr int unroll = K::unroll / R > 1 ? K::unroll / R : 1;  // (read by the pragma only)
  // The plain body of the tile walk (tile_walk.hpp).
  for (tile_walk<K> w(a, jb, je); w.more(); w.advance()) {
    w.load();
    const T* const tile = w.tile;
    const std::int64_t j0 = w.j0;
    const int len = w.len;
    if (valid) {
#pragma unroll(unroll)
      for (int jj = 0; jj < len; ++jj) {
        const T* red = tile + jj * K::red_dims;
        if constexpr (K::stage_red) {
#pragma unroll
          for (int k = 0; k < K::red_dims; ++k) staged[k] = tile[jj * K::red_dims + k];
          red = staged;
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
          ctx[r].red = red;
          if constexpr (K::chunked) ctx[r].chunk.red = j0 + jj;
          Op::template accumulate<Math>(acc[r], F::eval(ctx[r]), Math::template index<T>(j0 + jj));
        }
      }
      if constexpr (FS::steps > 0) {
        if (++tiles_unflushed == FS::steps) {
          tiles_unflushed = 0;
#pragma unroll
          for (int r = 0; r < R; ++r) Op::template flush<Math>(acc[r]);
        }
      }
    }
  }
}

// acc <- acc followed by the terms [jb, je) of one row, tile by tile (fold_rows,
// or the staged loop of chunk_loop.hpp).
template <class K, class Acc>
__device__ KOPS_INLINE void fold_range(Acc& acc, tile_context<K>& ctx, int& tiles_unflushed,
                                       const typename K::args_type& a, bool valid, std::int64_t jb, std::int64_t je) {
  if constexpr (K::staged) fold_range_staged<K>(acc, ctx, tiles_unflushed, a, valid, jb, je);
  else fold_rows<K, 1>(&acc, &ctx, tiles_unflushed, a, valid, jb, je);
}

// The arguments of batch b (kernel_traits.hpp: batch_strides).
template <class K>
__device__ KOPS_INLINE typename K::args_type batch_args(const typename K::args_type& a,
                                                       const typename K::batch_type& s, std::int64_t b) {
  typename K::args_type ab;
#pragma unroll
  for (int k = 0; k < K::reduction::nargs; ++k) ab.p[k] = s.arg[k] != 0 ? a.p[k] + b * s.arg[k] : a.p[k];
  return ab;
}

// p + b * stride, leaving a null p null (the buffers a launch does not use).
template <class P>
__device__ KOPS_INLINE P* batch_at(P* p, std::int64_t b, std::int64_t stride) {
  return p != nullptr ? p + b * stride : p;
}

// The accumulator of an empty fold over [jb, je), init(jb), or init(-1) for an empty range.
template <class K>
__device__ KOPS_INLINE typename K::acc_type range_init(std::int64_t jb, std::int64_t je) {
  return K::op::template init<typename K::math, typename K::value_type, K::formula::dim>(jb < je ? jb : -1);
}

template <class K>
__device__ KOPS_INLINE typename K::acc_type
reduce_range(const typename K::args_type& a, std::int64_t row, bool valid, std::int64_t jb, std::int64_t je) {
  tile_context<K> ctx;
  load_row<K>(ctx, a, row, valid);
  auto acc = range_init<K>(jb, je);
  int tiles_unflushed = 0;
  fold_range<K>(acc, ctx, tiles_unflushed, a, valid, jb, je);
  return acc;
}

} // namespace kops::cuda::detail
