// GPU_1D: one thread per output row, the whole reduced axis per block.
//
//   grid  (ceil(rows / block))   block (block)   shared (tile, red_dims)
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

namespace kops::cuda::detail {

template <class K>
__global__ void __launch_bounds__(K::block)
gpu_1d_kernel(const typename K::args_type a, const std::int64_t rows, const std::int64_t cols,
              typename K::out_type* const out) {
  using Red = typename K::reduction;
  const std::int64_t row = std::int64_t(blockIdx.x) * K::block + threadIdx.x;
  const bool valid = row < rows;
  const auto acc = reduce_range<K>(a, row, valid, 0, cols);
  if (valid) K::op::template finalize<typename K::math>(acc, 0, out + row * Red::dim);
}

// Blocks needed to cover `rows` rows, within the grid's x limit.
template <class K>
unsigned row_blocks(std::int64_t rows, const char* where) {
  const std::int64_t n = (rows + K::block - 1) / K::block;
  if (n > 2147483647)
    throw error(std::string(where) + ": " + std::to_string(rows) +
                " output rows exceed the GPU grid (2^31 - 1 blocks of " + std::to_string(K::block) + ")");
  return unsigned(n);
}

template <class K>
void launch_gpu_1d(const typename K::args_type& a, std::int64_t rows, std::int64_t cols,
                   typename K::out_type* out, cudaStream_t stream, const char* where) {
  auto args = a;
  void* params[] = {&args, &rows, &cols, &out};
  check_launch(cudaLaunchKernel(gpu_1d_kernel<K>, dim3(row_blocks<K>(rows, where)), dim3(K::block),
                                params, K::shared_bytes, stream),
               where, "GPU_1D");
}

} // namespace kops::cuda::detail
