// The loop at the heart of both GPU schemes: one thread per output row reduces
// its row over a range [jb, je) of the reduced axis, the block walking the range
// tile by tile through shared memory.
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

#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/tile_context.hpp>

namespace kops::cuda::detail {

// All kernels share one dynamic shared-memory symbol (same type everywhere, as
// nvcc requires of extern __shared__ arrays of the same name).
template <class T>
__device__ KOPS_INLINE T* shared_tile() {
  extern __shared__ __align__(16) unsigned char kops_shared_tile[];
  return reinterpret_cast<T*>(kops_shared_tile);
}

template <class K>
__device__ KOPS_INLINE typename K::acc_type
reduce_range(const typename K::args_type& a, std::int64_t row, bool valid, std::int64_t jb, std::int64_t je) {
  using T = typename K::value_type;
  using M = typename K::math;
  using F = typename K::formula;
  using Op = typename K::op;
  using Sig = typename K::signature;

  tile_context<K> ctx;
  if constexpr (K::row_dims > 0) {
    if (valid) gather<K::row_cat, Sig>::row(ctx.row, a.p, row);
  }
  if constexpr (K::param_dims > 0) gather<category::param, Sig>::row(ctx.prm, a.p, 0);
  ctx.red = nullptr;

  auto acc = Op::template init<M, T, F::dim>(jb < je ? jb : -1);
  T* tile = shared_tile<T>();
  for (std::int64_t j0 = jb; j0 < je; j0 += K::tile) {
    const int len = je - j0 < K::tile ? int(je - j0) : K::tile;
    if constexpr (K::red_dims > 0) {
      __syncthreads();  // the previous tile has been used by every thread
      tile_loader<K>::load(tile, a.p, j0, len);
      __syncthreads();
    }
    if (valid) {
#pragma unroll 4
      for (int jj = 0; jj < len; ++jj) {
        ctx.red = tile + jj * K::red_dims;
        Op::template accumulate<M>(acc, F::eval(ctx), M::template index<T>(j0 + jj));
      }
    }
  }
  return acc;
}

} // namespace kops::cuda::detail
