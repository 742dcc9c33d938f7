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

// The one reduction kernel, shared by GPU_1D and GPU_2D's first pass (one
// kernel per reduction instead of two: half the device code to compile).
// Block (bx, c) reduces rows bx*block.. over [c*chunk, min(cols, (c+1)*chunk));
// without scratch (GPU_1D: one chunk, the whole axis) each thread finalizes
// its row into out, with scratch (GPU_2D) it stores its accumulator there:
//   scratch:(chunks, rows) of acc_type, scratch[c * rows + row].
template <class K>
__device__ KOPS_INLINE void reduce_block(const typename K::args_type& a, const std::int64_t rows,
                                         const std::int64_t cols, const std::int64_t chunk,
                                         typename K::acc_type* const scratch, typename K::out_type* const out) {
  using Red = typename K::reduction;
  const std::int64_t row = std::int64_t(blockIdx.x) * K::block + threadIdx.x;
  const bool valid = row < rows;
  const std::int64_t jb = std::int64_t(blockIdx.y) * chunk;
  const std::int64_t je = cols - jb < chunk ? cols : jb + chunk;
  if constexpr (K::final_chunks) {
    // The output row, or the partial row in scratch, is the accumulator (final_chunks.hpp).
    tile_context<K> ctx;
    load_row<K>(ctx, a, row, valid);
    typename K::value_type* dst = nullptr;
    if (valid) dst = final_row<K>(scratch ? &scratch[std::int64_t(blockIdx.y) * rows + row].s[0] : out + row * out_stride_v<Red>);
    fold_range_final<K>(dst, ctx, a, row, valid, jb, je);
    return;
  }
  const auto acc = reduce_range<K>(a, row, valid, jb, je);
  if (!valid) return;
  if (scratch) scratch[std::int64_t(blockIdx.y) * rows + row] = acc;
  else kops::detail::store_row<typename K::op, typename K::math, Red::dim>(acc, 0, out + row * out_stride_v<Red>);
}

template <class K>
__global__ void __launch_bounds__(K::block)
reduce_kernel(const typename K::args_type a, const std::int64_t rows, const std::int64_t cols,
              const std::int64_t chunk, typename K::acc_type* const scratch, typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  reduce_block<K>(a, rows, cols, chunk, scratch, out);
#endif
}

// Every batch of a batched call (core/batch.hpp) in one grid: batch b on
// blocks with blockIdx.z = b mod gridDim.z (the grid's z is at most 65535).
// The barriers stay uniform: every thread of a block walks the same batches.
template <class K>
__global__ void __launch_bounds__(K::block)
reduce_kernel_batched(const typename K::args_type a, const typename K::batch_type s, const std::int64_t rows,
                      const std::int64_t cols, const std::int64_t chunk, typename K::acc_type* const scratch,
                      typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  for (std::int64_t b = blockIdx.z; b < s.count; b += gridDim.z)
    reduce_block<K>(batch_args<K>(a, s, b), rows, cols, chunk, batch_at(scratch, b, s.scratch),
                    batch_at(out, b, s.out));
#endif
}

// The most batches one grid holds on its z axis: the grid's limit, 65535
// (tests lower it to exercise the kernels' loop over the batches beyond it).
inline unsigned& max_batch_grid() {
  static unsigned z = 65535;
  return z;
}
// The grid's z extent for `count` batches.
inline unsigned batch_grid(std::int64_t count) {
  const unsigned z = max_batch_grid();
  return count < std::int64_t(z) ? unsigned(count) : z;
}

__attribute__((noinline, cold)) inline bool too_many_rows(std::int64_t rows, int block, const char* where) {
  return kops::detail::fail("%s: %lld output rows exceed the GPU grid (2^31 - 1 blocks of %d)", where,
                            (long long)rows, block);
}

// ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

// Blocks of `block` threads needed to cover `rows` rows, into `n`; false (a
// kops::error thrown, or reported without exceptions) past the grid's x limit.
[[nodiscard]] inline bool row_blocks(std::int64_t rows, int block, const char* where, unsigned& n) {
  const std::int64_t b = ceil_div(rows, block);
  n = 0;
  if (b > 2147483647) return too_many_rows(rows, block, where);
  n = unsigned(b);
  return true;
}

} // namespace kops::cuda::detail
