// The pair loop of a formula with wide sums over coordinates (lowering/chunk.hpp,
// the staged form of lowering/chunk_plan.hpp), KeOps' chunked mode:
//
//   for each tile [j0, j0 + TB) of [jb, je):              (TB = K::tile = 32; tile_walk.hpp)
//     the block loads the tile's narrow reduced-axis variables (as block_reduce.hpp)
//     part[jj][s] = 0
//     for each chunk [k0, k0 + CH) of the dimension:       (CH = gpu_chunk = 16, a last narrower one)
//       __syncthreads; the block copies the chunk of the tile's wide reduced-axis
//       variables into shared memory (buf[jj][v][k]); __syncthreads
//       each thread reads the chunk of its row's wide variables (and the wide
//       parameters) into registers, then for each jj of the tile (unrolled):
//         part[jj][s] += sum over the chunk of sum s's body at (row, j0 + jj)
//     each thread with a valid row: acc <- accumulate(acc, F'(row, tile[jj], part[jj]), j0 + jj)
//
// F' is the formula with chunked sum s read as part[jj][s]. A row's chunk is
// read once per tile (not once per pair), the reduced chunk is a broadcast
// shared load: per pair and component, one shared load (vectorised) and the
// body's arithmetic. Rows past the end take part in the loads and barriers;
// tile rows past the end are zero in the chunk buffer and read the last row
// of the narrow tile (their parts are computed, never used).
#pragma once

#include <cstdint>
#include <utility>

#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/tile_context.hpp>
#include <kops/backends/cuda/tile_walk.hpp>
#include <kops/lowering/chunk_plan.hpp>

namespace kops::cuda::detail {

// The context a chunk body is evaluated in: wide variables from the staged
// chunk (row and parameters: registers; reduced axis: the buffer row of the
// pair), everything else from the thread's tile_context. (Plan: the staged
// sums' plan, or final chunks' plan: final_chunks.hpp's final_context.)
template <class K, int C2, class Plan_ = typename K::plan>
struct staged_context {
  using value_type = typename K::value_type;
  using scalar_type = typename K::value_type;
  using math = typename K::math;
  using T = value_type;
  using Plan = Plan_;
  const tile_context<K>& base;
  const T* rowc;  // [position][k], Plan::count<row_cat> positions
  const T* prmc;  // [position][k], parameters
  const T* redc;  // [position][k], the pair's buffer row

  template <category C, int I, int D>
  KOPS_HD KOPS_INLINE vec<T, D> load() const {
    return base.template load<C, I, D>();
  }
  template <category C, int I, int D, int CH>
  KOPS_HD KOPS_INLINE vec<T, CH> load_range(int) const {
    static_assert(CH == C2, "kops: internal error, a staged chunk of another width");
    constexpr int at = Plan::template position<C, I> * C2;
    const T* src = C == K::row_cat ? rowc : C == category::param ? prmc : redc;
    vec<T, CH> out;
    for (int k = 0; k < CH; ++k) out[k] = src[at + k];
    return out;
  }
};

// The formula's context for F': the tile_context, and part[s] as Slot<slot0 + s>
// (Slot0: the staged sums' plan's, or the tensor-core kernel's inner products'
// plan's: tensor_core.hpp).
template <class K, class Part, int Slot0 = K::plan::slot0>
struct parts_context {
  using value_type = typename K::value_type;
  using scalar_type = typename K::value_type;
  using math = typename K::math;
  const tile_context<K>& base;
  const Part& part;  // vec<T, 1>[nsums]

  template <category C, int I, int D>
  KOPS_HD KOPS_INLINE auto load() const {
    return base.template load<C, I, D>();
  }
  template <int S, int D>
  KOPS_HD KOPS_INLINE const auto& slot() const {
    return part[S - Slot0];
  }
};

// Chunk [k0, k0 + C2) of every wide variable of category C into dst
// ([position][k]), from row r of the arguments. (Plan: the staged sums' plan,
// or final chunks' plan, final_chunks.hpp.)
template <class K, category C, int C2, class Plan = typename K::plan>
__device__ KOPS_INLINE void stage_own(typename K::value_type* dst, const typename K::args_type& a, std::int64_t r,
                                      int k0) {
  constexpr int W = Plan::width;
  [&]<int... I>(std::integer_sequence<int, I...>) {
    ([&] {
      if constexpr ((Plan::template mask<C> >> I) & 1) {
        constexpr int at = Plan::template position<C, I> * C2;
        // (The whole index to load_arg: a two-pass temporary is read in its own units.)
        const std::int64_t base = (C == category::param ? std::int64_t(0) : r * W) + k0;
#pragma unroll
        for (int k = 0; k < C2; ++k) dst[at + k] = kops::detail::load_arg<typename K::arg_policy, I>(a.p[I], base + k);
      }
    }(), ...);
  }(std::make_integer_sequence<int, K::reduction::nargs < 64 ? K::reduction::nargs : 64>{});
}

// The block copies chunk [k0, k0 + C2) of the tile's wide reduced-axis
// variables into buf[jj][position][k] (rows jj >= len: zero).
template <class K, int C2, class Plan = typename K::plan>
__device__ KOPS_INLINE void stage_tile(typename K::value_type* buf, const typename K::args_type& a, std::int64_t j0,
                                       int len, int k0) {
  using T = typename K::value_type;
  constexpr int W = Plan::width, NW = Plan::template count<K::red_cat>, TB = K::tile;
  [&]<int... I>(std::integer_sequence<int, I...>) {
    ([&] {
      if constexpr ((Plan::template mask<K::red_cat> >> I) & 1) {
        constexpr int at = Plan::template position<K::red_cat, I> * C2;
        const auto* src = a.p[I];
        for (int e = int(threadIdx.x); e < TB * C2; e += K::block) {
          const int jj = e / C2, k = e - jj * C2;
          buf[jj * (NW * C2) + at + k] =
              jj < len ? T(kops::detail::load_arg<typename K::arg_policy, I>(src, (j0 + jj) * W + k0 + k)) : T(0);
        }
      }
    }(), ...);
  }(std::make_integer_sequence<int, K::reduction::nargs < 64 ? K::reduction::nargs : 64>{});
}

// part[jj][s] += the chunk [k0, k0 + C2) of sum s, for every jj of the tile.
template <class K, int C2, class Part>
__device__ KOPS_INLINE void chunk_step(Part (&part)[K::tile], tile_context<K>& ctx, const typename K::args_type& a,
                                       const typename K::value_type* tile, typename K::value_type* buf,
                                       std::int64_t j0, int len, int k0, bool valid) {
  using Plan = typename K::plan;
  using T = typename K::value_type;
  constexpr int NW = Plan::template count<K::red_cat>;
  constexpr int NR = Plan::template count<K::row_cat>, NP = Plan::template count<category::param>;
  if constexpr (NW > 0) {
    __syncthreads();  // every thread is done with the previous chunk
    stage_tile<K, C2>(buf, a, j0, len, k0);
    __syncthreads();
  }
  if (valid) {
    T rowc[NR > 0 ? NR * C2 : 1], prmc[NP > 0 ? NP * C2 : 1];
    if constexpr (NR > 0) stage_own<K, K::row_cat, C2>(rowc, a, ctx.chunk.row, k0);
    if constexpr (NP > 0) stage_own<K, category::param, C2>(prmc, a, 0, k0);
#pragma unroll
    for (int jj = 0; jj < K::tile; ++jj) {
      // Rows past the end compute on the last loaded row (their parts are
      // never used): no read of tile rows this tile did not load.
      const int jr = kops::detail::clamp_to_group(jj, len);
      if constexpr (K::red_dims > 0) ctx.red = tile + jr * K::red_dims;
      ctx.chunk.red = j0 + jr;
      const staged_context<K, C2> sc{ctx, rowc, prmc, buf + jj * (NW * C2)};
      const kops::detail::chunk_context<staged_context<K, C2>> cc{sc, k0};
      [&]<int... S>(std::integer_sequence<int, S...>) {
        ((part[jj][S][0] = kops::detail::add_chunk<typename Plan::sums::template at<S>, C2>(cc, part[jj][S][0])), ...);
      }(std::make_integer_sequence<int, Plan::nsums>{});
    }
  }
}

// part[jj][s] <- chunked sum s at the tile's pair jj: the chunk loop (file comment).
template <class K, class Part>
__device__ KOPS_INLINE void stage_sums(Part (&part)[K::tile], tile_context<K>& ctx, const typename K::args_type& a,
                                       typename K::value_type* tile, typename K::value_type* buf, std::int64_t j0,
                                       int len, bool valid) {
  using T = typename K::value_type;
  using Plan = typename K::plan;
  constexpr int CH = Plan::chunk, W = Plan::width;
#pragma unroll
  for (int jj = 0; jj < K::tile; ++jj)
#pragma unroll
    for (int s = 0; s < Plan::nsums; ++s) part[jj][s] = vec<T, 1>{{T(0)}};
  for (int k0 = 0; k0 + CH <= W; k0 += CH) chunk_step<K, CH>(part, ctx, a, tile, buf, j0, len, k0, valid);
  if constexpr (W % CH != 0) chunk_step<K, W % CH>(part, ctx, a, tile, buf, j0, len, W - W % CH, valid);
}

// acc <- acc followed by the terms [jb, je) (file comment): the staged body of
// the tile walk (tile_walk.hpp).
template <class K, class Acc>
__device__ KOPS_INLINE void fold_range_staged(Acc& acc, tile_context<K>& ctx, int& tiles_unflushed,
                                              const typename K::args_type& a, bool valid, std::int64_t jb,
                                              std::int64_t je) {
  using T = typename K::value_type;
  using Math = typename K::math;
  using Op = typename K::op;
  using Plan = typename K::plan;
  using Outer = typename Plan::outer;
  constexpr int TB = K::tile;
  using Part = vec<T, 1>[Plan::nsums];
  using FS = flush_schedule<Op, TB>;  // block sums' flushes (tile_walk.hpp)

  T* buf = shared_tile<T>() + TB * K::red_dims;
  for (tile_walk<K> w(a, jb, je); w.more(); w.advance()) {
    w.load();
    T* const tile = w.tile;
    const std::int64_t j0 = w.j0;
    const int len = w.len;
    Part part[TB];
    stage_sums<K>(part, ctx, a, tile, buf, j0, len, valid);
    if (valid) {
#pragma unroll
      for (int jj = 0; jj < TB; ++jj) {
        if (jj < len) {
          if constexpr (K::red_dims > 0) ctx.red = tile + jj * K::red_dims;
          const parts_context<K, Part> pc{ctx, part[jj]};
          Op::template accumulate<Math>(acc, Outer::eval(pc), Math::template index<T>(j0 + jj));
        }
      }
      if constexpr (FS::steps > 0) {
        if (++tiles_unflushed == FS::steps) {
          tiles_unflushed = 0;
          Op::template flush<Math>(acc);
        }
      }
    }
  }
}

} // namespace kops::cuda::detail
