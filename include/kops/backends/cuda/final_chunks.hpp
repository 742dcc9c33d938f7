// The pair loop of a wide sum in final chunks (lowering/final_chunks.hpp;
// kernel_traits::final_chunks), the output row in global memory as the
// accumulator (zeroed by the caller: final_row):
//
//   for each tile [j0, j0 + TB) of [jb, je):                (TB = K::tile = 32; tile_walk.hpp)
//     the block loads the tile's narrow reduced-axis variables (as block_reduce.hpp)
//     [staged sums: part[jj][s] chunk by chunk, as chunk_loop.hpp]
//     each thread with a valid row: scal[jj][q] = part q of the formula at (row, j0 + jj)
//     for each chunk [c0, c0 + CH) of the output:           (CH = 32, a last narrower one)
//       __syncthreads; the block copies the chunk of the tile's wide reduced-axis
//       variables into shared memory; __syncthreads
//       each thread with a valid row reads the chunk of its row's wide variables
//       (and the wide parameters) into registers, then
//         acc[k] = sum over jj < len of the formula's chunk at (row, j0 + jj), k < CH
//         out[c0 + k] += acc[k]
//
// The partial sums of a tile (32 terms) are added to the row: block sums of
// 32 terms, as the block summation scheme's (a plain sum within the tile).
// Rows past the end take part in the loads and barriers only.
#pragma once

#include <cstdint>

#include <kops/backends/cuda/chunk_loop.hpp>
#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/tile_context.hpp>
#include <kops/backends/cuda/tile_walk.hpp>

namespace kops::cuda::detail {

// The context an output chunk is evaluated in: chunk_loop.hpp's staged
// context over the final chunks' plan (the staged chunk of the wide
// variables, everything else from the thread's tile_context), and the pair's
// parts as slots.
template <class K, int C2>
struct final_context : staged_context<K, C2, typename K::final_plan> {
  using Plan = typename K::final_plan;
  const vec<typename K::value_type, 1>* scal;  // [q], the pair's parts

  template <int S, int D>
  KOPS_HD KOPS_INLINE const vec<typename K::value_type, 1>& slot() const {
    static_assert(S >= Plan::slot0 && D == 1, "kops: internal error, a slot outside the final chunks' parts");
    return scal[S - Plan::slot0];
  }
};

// The accumulator row of a thread: its output row (GPU_1D, the block-sparse
// kernel) or its partial row in GPU_2D's scratch, zeroed.
template <class K>
__device__ KOPS_INLINE typename K::value_type* final_row(typename K::value_type* row) {
#pragma unroll 4
  for (int k = 0; k < K::formula::dim; ++k) row[k] = typename K::value_type(0);
  return row;
}

// dst[c0 + k] += the sum over the tile's pairs of the output chunk [c0, c0 + C2).
template <class K, int C2, class Scal>
__device__ KOPS_INLINE void final_step(typename K::value_type* dst, const Scal (&scal)[K::tile],
                                       const tile_context<K>& ctx, const typename K::args_type& a, std::int64_t row,
                                       typename K::value_type* buf, std::int64_t j0, int len, int c0, bool valid) {
  using Plan = typename K::final_plan;
  using T = typename K::value_type;
  using Body = std::conditional_t<C2 == Plan::chunk, typename Plan::body, typename Plan::tail_body>;
  constexpr int NW = Plan::template count<K::red_cat>;
  constexpr int NR = Plan::template count<K::row_cat>, NP = Plan::template count<category::param>;
  if constexpr (NW > 0) {
    __syncthreads();  // every thread is done with the buffer
    stage_tile<K, C2, Plan>(buf, a, j0, len, c0);
    __syncthreads();
  }
  if (valid) {
    T rowc[NR > 0 ? NR * C2 : 1], prmc[NP > 0 ? NP * C2 : 1];
    if constexpr (NR > 0) stage_own<K, K::row_cat, C2, Plan>(rowc, a, row, c0);
    if constexpr (NP > 0) stage_own<K, category::param, C2, Plan>(prmc, a, 0, c0);
    vec<T, C2> acc;
#pragma unroll
    for (int k = 0; k < C2; ++k) acc[k] = T(0);
#pragma unroll
    for (int jj = 0; jj < K::tile; ++jj) {
      if (jj < len) {
        const final_context<K, C2> fc{{ctx, rowc, prmc, buf + jj * (NW > 0 ? NW * C2 : 0)}, scal[jj]};
        const kops::detail::chunk_context<final_context<K, C2>> cc{fc, c0};
        const auto v = Body::eval(cc);
#pragma unroll
        for (int k = 0; k < C2; ++k) acc[k] = acc[k] + v[k];
      }
    }
#pragma unroll
    for (int k = 0; k < C2; ++k) dst[c0 + k] = dst[c0 + k] + acc[k];
  }
}

// dst (the thread's accumulator row, final_row) += the terms [jb, je) (file
// comment): the final body of the tile walk (tile_walk.hpp).
template <class K>
__device__ KOPS_INLINE void fold_range_final(typename K::value_type* dst, tile_context<K>& ctx,
                                             const typename K::args_type& a, std::int64_t row, bool valid,
                                             std::int64_t jb, std::int64_t je) {
  using T = typename K::value_type;
  using FP = typename K::final_plan;
  using Scalars = typename FP::scalars;
  constexpr int TB = K::tile, W = FP::width, CH = FP::chunk, NS = FP::nscalars;
  using Scal = vec<T, 1>[NS > 0 ? NS : 1];

  T* buf = shared_tile<T>() + TB * K::red_dims;
  for (tile_walk<K> w(a, jb, je); w.more(); w.advance()) {
    w.load();
    T* const tile = w.tile;
    const std::int64_t j0 = w.j0;
    const int len = w.len;
    Scal scal[TB];
    // The parts of the tile's pairs (rows past the end of the tile: the last
    // loaded row's, never used).
    const auto parts = [&](auto&& context_of) {
      if (valid) {
#pragma unroll
        for (int jj = 0; jj < TB; ++jj) {
          [[maybe_unused]] const int jr = kops::detail::clamp_to_group(jj, len);
          if constexpr (K::red_dims > 0) ctx.red = tile + jr * K::red_dims;
          if constexpr (K::chunked) ctx.chunk.red = j0 + jr;
          const auto& c = context_of(jj);
          [&]<int... Q>(std::integer_sequence<int, Q...>) {
            ((scal[jj][Q] = Scalars::template at<Q>::eval(c)), ...);
          }(std::make_integer_sequence<int, NS>{});
        }
      }
    };
    if constexpr (K::staged) {
      using Plan = typename K::plan;
      using Part = vec<T, 1>[Plan::nsums];
      Part part[TB];
      stage_sums<K>(part, ctx, a, tile, buf, j0, len, valid);
      parts([&](int jj) { return parts_context<K, Part>{ctx, part[jj]}; });
    } else {
      parts([&](int) -> const tile_context<K>& { return ctx; });
    }
    for (int c0 = 0; c0 + CH <= W; c0 += CH) final_step<K, CH>(dst, scal, ctx, a, row, buf, j0, len, c0, valid);
    if constexpr (W % CH != 0) final_step<K, W % CH>(dst, scal, ctx, a, row, buf, j0, len, W - W % CH, valid);
  }
}

} // namespace kops::cuda::detail
