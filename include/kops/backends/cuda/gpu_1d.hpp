// GPU_1D: one thread per output row, the whole reduced axis per block.
//
//   grid  (ceil(rows / block_rows))   block (block)   shared (tile, red_dims)
//   args: row vars (rows, D) reduced vars (cols, D) params (D)  ->  out:(rows, red.dim)
//
// Each thread keeps its row variables, the parameters and the reduction's
// accumulator in registers, walks the reduced axis through shared-memory tiles
// (block_reduce.hpp), and writes its output row once. No atomics, no scratch.
#pragma once

#include <cstdint>
#include <string>

#include <kops/backends/cuda/block_reduce.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/grid.hpp>
#include <kops/backends/cuda/tensor_core.hpp>

namespace kops::cuda::detail {

// The one reduction kernel, shared by GPU_1D and GPU_2D's first pass (one
// kernel per reduction instead of two: half the device code to compile).
// Block (bx, c) reduces rows bx*block_rows.. (block_rows = block unless tuned)
// over [c*chunk, min(cols, (c+1)*chunk)),
// or with Offset over [first + c*chunk, min(cols, first + (c+1)*chunk)) (where
// a streamed piece or an MPI rank's slice starts: backends/cuda/streamed.hpp,
// mpi_cuda.hpp; indices are the reduced axis's own). The offset is a kernel of
// its own (reduce_kernel_from): a run-time `first` in the one kernel took the
// flagship Gaussian from 32 to 37 registers (occupancy 0.94 -> 0.75, bench/sass).
// without scratch (GPU_1D: one chunk, the whole axis) each thread finalizes
// its row into out, with scratch (GPU_2D) it stores its accumulator there:
//   scratch:(chunks, rows) of acc_type, scratch[c * rows + row].
// A thread's accumulator of row `row`, stored: into scratch (GPU_2D's pass 1,
// chunk blockIdx.y) or finalized into out.
template <class K>
__device__ KOPS_INLINE void store_acc(const typename K::acc_type& acc, const std::int64_t row, const std::int64_t rows,
                                      typename K::acc_type* const scratch, typename K::out_type* const out) {
  if (scratch) scratch[std::int64_t(blockIdx.y) * rows + row] = acc;
  else kops::detail::store_row<typename K::op, typename K::math, K::reduction::dim>(acc, 0, out + row * out_stride_v<typename K::reduction>);
}

// Register blocking (K::rows_per_thread = R > 1, kernel_traits.hpp: tuning):
// the thread owns rows row + r * block, r < R (consecutive threads, consecutive
// rows: loads and stores stay coalesced), with R contexts and accumulators,
// and reads each tile element once for all of them (fold_rows). A row past the
// end reads the first row's variables (in range whenever `valid`) and is not
// stored.
template <class K>
__device__ KOPS_INLINE void reduce_rows(const typename K::args_type& a, const std::int64_t row, const bool valid,
                                        const std::int64_t rows, const std::int64_t jb, const std::int64_t je,
                                        typename K::acc_type* const scratch, typename K::out_type* const out) {
  constexpr int R = K::rows_per_thread;
  tile_context<K> ctx[R];
  typename K::acc_type acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const std::int64_t rr = row + std::int64_t(r) * K::block;
    load_row<K>(ctx[r], a, rr < rows ? rr : row, valid);
    acc[r] = range_init<K>(jb, je);
  }
  int tiles_unflushed = 0;
  fold_rows<K, R>(acc, ctx, tiles_unflushed, a, valid, jb, je);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const std::int64_t rr = row + std::int64_t(r) * K::block;
    if (rr < rows) store_acc<K>(acc[r], rr, rows, scratch, out);
  }
}

template <class K, bool Offset = false>
__device__ KOPS_INLINE void reduce_block(const typename K::args_type& a, const std::int64_t rows,
                                         [[maybe_unused]] const std::int64_t first, const std::int64_t cols,
                                         const std::int64_t chunk, typename K::acc_type* const scratch,
                                         typename K::out_type* const out) {
  using Red = typename K::reduction;
  const std::int64_t row = std::int64_t(blockIdx.x) * K::block_rows + threadIdx.x;
  const bool valid = row < rows;
  std::int64_t jb = std::int64_t(blockIdx.y) * chunk;
  if constexpr (Offset) jb += first;
  const std::int64_t je = cols - jb < chunk ? cols : jb + chunk;
  if constexpr (K::tensor_core) {
    // The tensor-core kernel (tensor_core.hpp): 16 rows per warp, not one per thread.
    tc_reduce<K>(a, rows, jb, je, [&](const typename K::acc_type& acc, std::int64_t r) {
      store_acc<K>(acc, r, rows, scratch, out);
    });
  } else if constexpr (K::final_chunks) {
    // The output row, or the partial row in scratch, is the accumulator (final_chunks.hpp).
    tile_context<K> ctx;
    load_row<K>(ctx, a, row, valid);
    typename K::value_type* dst = nullptr;
    if (valid) dst = final_row<K>(scratch ? &scratch[std::int64_t(blockIdx.y) * rows + row].s[0] : out + row * out_stride_v<Red>);
    fold_range_final<K>(dst, ctx, a, row, valid, jb, je);
  } else if constexpr (K::rows_per_thread > 1) {
    reduce_rows<K>(a, row, valid, rows, jb, je, scratch, out);
  } else {
    const auto acc = reduce_range<K>(a, row, valid, jb, je);
    if (valid) store_acc<K>(acc, row, rows, scratch, out);
  }
}

template <class K>
__global__ void __launch_bounds__(K::block)
reduce_kernel(const typename K::args_type a, const std::int64_t rows, const std::int64_t cols,
              const std::int64_t chunk, typename K::acc_type* const scratch, typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  reduce_block<K>(a, rows, 0, cols, chunk, scratch, out);
#endif
}

// The same from the reduced index `first` on (a streamed piece, an MPI rank's slice).
template <class K>
__global__ void __launch_bounds__(K::block)
reduce_kernel_from(const typename K::args_type a, const std::int64_t rows, const std::int64_t first,
                   const std::int64_t cols, const std::int64_t chunk, typename K::acc_type* const scratch,
                   typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  reduce_block<K, true>(a, rows, first, cols, chunk, scratch, out);
#endif
}

// Every batch of a batched call (core/batch.hpp) in one grid: batch b on
// blocks with blockIdx.z = b mod gridDim.z (the grid's z is at most grid_max_yz: grid.hpp).
// The barriers stay uniform: every thread of a block walks the same batches.
template <class K>
__global__ void __launch_bounds__(K::block)
reduce_kernel_batched(const typename K::args_type a, const typename K::batch_type s, const std::int64_t rows,
                      const std::int64_t cols, const std::int64_t chunk, typename K::acc_type* const scratch,
                      typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  for (std::int64_t b = blockIdx.z; b < s.count; b += gridDim.z)
    reduce_block<K>(batch_args<K>(a, s, b), rows, 0, cols, chunk, batch_at(scratch, b, s.scratch),
                    batch_at(out, b, s.out));
#endif
}

} // namespace kops::cuda::detail
