// GPU_2D: the reduced axis is split into `chunks` consecutive chunks, so that
// few output rows still make many blocks; a second pass combines the chunks.
//
//   pass 1  grid (ceil(rows / block), chunks)   block (block)   shared (tile, red_dims)
//           reduce_kernel (gpu_1d.hpp) with scratch: block (bx, c) reduces rows
//           bx*block.. over [c*chunk, min(cols, (c+1)*chunk)), starting from
//           init(c*chunk), and stores its accumulators:
//           scratch:(chunks, rows) of acc_type, scratch[c * rows + row]
//   pass 2  grid (ceil(rows / block))   block (block)
//           out[row] = finalize(combine(... combine(scratch[0][row], scratch[1][row]) ...))
//
// Chunks are combined in increasing order with the reduction's own combine
// (whose second operand's range follows the first's), so GPU_2D gives the
// same results as GPU_1D for every reduction, ties and NaN rules included
// (sums up to rounding: the terms are added in another order). It names no
// reduction: any op with init / accumulate / combine / finalize and a
// trivially copyable accumulator works.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <kops/backends/cuda/block_reduce.hpp>
#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/gpu_1d.hpp>

namespace kops::cuda::detail {

template <class K>
__global__ void __launch_bounds__(K::block)
gpu_2d_combine_kernel(const typename K::acc_type* const scratch, const std::int64_t rows,
                      const std::int64_t chunks, typename K::out_type* const out) {
  using M = typename K::math;
  const std::int64_t row = std::int64_t(blockIdx.x) * K::block + threadIdx.x;
  if (row >= rows) return;
  auto acc = scratch[row];
  for (std::int64_t c = 1; c < chunks; ++c) K::op::template combine<M>(acc, scratch[c * rows + row]);
  K::op::template finalize<M>(acc, 0, out + row * K::reduction::dim);
}

struct gpu_2d_plan {
  std::int64_t chunk;   // reduced-axis indices per block
  std::int64_t chunks;  // blocks along the reduced axis (grid.y)
};

// Chunk length: as given (> 0), or chosen so that the pass-1 grid holds about
// 4 waves of resident blocks, 4 * sms * blocks_per_sm, with at least one tile
// per chunk and chunks a whole number of tiles. At most 65535 chunks (grid.y).
template <class K>
gpu_2d_plan plan_gpu_2d(std::int64_t rows, std::int64_t cols, int sms, int blocks_per_sm,
                        std::int64_t requested_chunk) {
  std::int64_t chunk = requested_chunk;
  if (chunk <= 0) {
    const std::int64_t row_blocks = (rows + K::block - 1) / K::block;
    const std::int64_t target = 4 * std::int64_t(sms) * blocks_per_sm;
    const std::int64_t wanted = row_blocks >= target ? 1 : target / row_blocks;
    const std::int64_t tiles = (cols + K::tile - 1) / K::tile;
    chunk = ((tiles + wanted - 1) / wanted) * K::tile;
    if (chunk < K::tile) chunk = K::tile;
  }
  constexpr std::int64_t max_chunks = 65535;
  if (cols > chunk * max_chunks) chunk = (cols + max_chunks - 1) / max_chunks;
  const std::int64_t chunks = cols == 0 ? 1 : (cols + chunk - 1) / chunk;
  return {chunk, chunks};
}

template <class K>
void launch_gpu_2d(const typename K::args_type& a, std::int64_t rows, std::int64_t cols,
                   typename K::out_type* out, gpu_2d_plan plan, cudaStream_t stream, bool pools,
                   const char* where) {
  using acc_type = typename K::acc_type;
  static_assert(std::is_trivially_copyable_v<acc_type>,
                "kops::cuda::eval: GPU_2D stores the reduction's accumulators in scratch memory; "
                "its accumulator type must be trivially copyable");
  const unsigned blocks = row_blocks(rows, K::block, where);
  const std::size_t per_chunk = std::size_t(rows) * sizeof(acc_type);
  if (std::size_t(plan.chunks) > std::size_t(-1) / per_chunk)
    kops::detail::fail("%s: the GPU_2D scratch size overflows", where);

  stream_buffer scratch(std::size_t(plan.chunks) * per_chunk, stream, pools, where,
                        "the GPU_2D partial accumulators");
  auto args = a;
  auto* partial = scratch.get<acc_type>();
  typename K::out_type* no_out = nullptr;
  void* pass1[] = {&args, &rows, &cols, &plan.chunk, &partial, &no_out};
  check_launch(cudaLaunchKernel(reduce_kernel<K>, dim3(blocks, unsigned(plan.chunks)),
                                dim3(K::block), pass1, K::shared_bytes, stream),
               where, "GPU_2D partial-reduction");
  const acc_type* partial_c = partial;
  void* pass2[] = {&partial_c, &rows, &plan.chunks, &out};
  check_launch(cudaLaunchKernel(gpu_2d_combine_kernel<K>, dim3(blocks), dim3(K::block), pass2,
                                std::size_t(0), stream),
               where, "GPU_2D combine");
  scratch.release(where, "the GPU_2D partial accumulators");
}

} // namespace kops::cuda::detail
