// The tile walk of the GPU pair loops: the one skeleton that block_reduce.hpp's
// plain loop, chunk_loop.hpp's staged loop and final_chunks.hpp's final
// chunks run their bodies in, and the flush schedule that the plain, staged
// and tensor-core (tensor_core.hpp) loops share.
//
//   for each tile [j0, j0 + len) of [jb, je):             (len = K::tile but the last)
//     __syncthreads; the block loads the tile's narrow reduced-axis variables
//     (those read whole) into shared memory; __syncthreads
//     the loop's body on the tile [j0, j0 + len)          (its own work)
//
// Every thread of the block takes part in every load and barrier, those whose
// row is past the end too, so the barriers are uniform; a body that computes
// on rows past the tile's end reads the tile's last row
// (lowering/plan.hpp: clamp_to_group).
#pragma once

#include <cstdint>

#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/tile_context.hpp>

namespace kops::cuda::detail {

// The block loads the tile [j0, j0 + len) of the narrow reduced-axis variables
// (those read whole) into shared memory, between barriers.
template <class K>
__device__ KOPS_INLINE void load_narrow_tile(typename K::value_type* tile, const typename K::args_type& a,
                                             std::int64_t j0, int len) {
  if constexpr (K::red_dims > 0) {
    __syncthreads();  // the previous tile has been used by every thread
    tile_loader<K>::load(tile, a.p, j0, len);
    __syncthreads();
  }
}

// The file comment's walk as a cursor, the body written in the loop:
//
//   for (tile_walk<K> w(a, jb, je); w.more(); w.advance()) { w.load(); body on w.tile, w.j0, w.len }
//
// (Not a function taking the body as a lambda: nvcc optimizes such a body
// before inlining it, and the final chunks' loop came out with other
// registers and instructions, bench/sass/compare.sh. Written in the loop, the
// bodies compile to the code they did before the walk was shared.)
template <class K>
struct tile_walk {
  using T = typename K::value_type;
  const typename K::args_type& a;
  const std::int64_t je;
  std::int64_t j0;  // the tile's first index
  int len = 0;      // and its length (load)
  T* const tile = shared_tile<T>();
  __device__ KOPS_INLINE tile_walk(const typename K::args_type& a_, std::int64_t jb, std::int64_t je_)
      : a(a_), je(je_), j0(jb) {}
  // Whether a tile is left.
  __device__ KOPS_INLINE bool more() const { return j0 < je; }
  // The block loads the tile (its first statement in the loop's body).
  __device__ KOPS_INLINE void load() {
    len = je - j0 < K::tile ? int(je - j0) : K::tile;
    load_narrow_tile<K>(tile, a, j0, len);
  }
  __device__ KOPS_INLINE void advance() { j0 += K::tile; }
};

// When a loop flushes an accumulation op that leaves that to its caller
// (reductions/detail/scheme_sum.hpp: CallerFlushes, block sums): once every
// `steps` steps of Terms terms each (at most Op::flush_every terms between
// flushes), not by a per-term counter in the pair loop. steps = 0: never;
// the loop then has no flush to compile (Op may have no flush member):
//
//   using FS = flush_schedule<Op, Terms>;
//   if constexpr (FS::steps > 0)
//     if (++unflushed == FS::steps) { unflushed = 0; Op::flush(acc); }
//
// (Spelled out at each loop: behind a function returning whether to flush,
// nvcc gave the tensor-core kernel other code, bench/sass/compare.sh.)
template <class Op, int Terms>
struct flush_schedule {
  static constexpr int steps = [] {
    if constexpr (kops::detail::caller_flushes_v<Op>) return Op::flush_every >= Terms ? int(Op::flush_every / Terms) : 1;
    else return 0;
  }();
};

} // namespace kops::cuda::detail
