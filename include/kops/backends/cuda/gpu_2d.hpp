// GPU_2D: the reduced axis is split into `chunks` consecutive chunks, so that
// few output rows still make many blocks; a second pass combines the chunks.
//
//   pass 1  grid (ceil(rows / block_rows), chunks)   block (block)   shared (tile, red_dims)
//           reduce_kernel (gpu_1d.hpp) with scratch: block (bx, c) reduces rows
//           bx*block.. over [c*chunk, min(cols, (c+1)*chunk)), starting from
//           init(c*chunk), and stores its accumulators:
//           scratch:(chunks, rows) of acc_type, scratch[c * rows + row]
//   pass 2  grid (ceil(rows / R))   block (slots * R), thread t = g * R + r
//           shared (slots, R) of acc_type
//           thread (g, r), g < G <= slots, folds the chunks [g*chunks/G,
//           (g+1)*chunks/G) of row b*R + r in order; a tree then combines
//           adjacent groups, g with g + s for s = 1, 2, 4, ..., and group 0
//           finalizes:
//           out[row] = finalize(combine(... combine(scratch[0][row], scratch[1][row]) ...))
//           (or, given acc_out, acc_out[row] = the combined accumulator, not
//           finalized: a streamed call's running accumulators, streamed.hpp;
//           acc_out may be scratch[0]: only group 0 reads chunk 0, and it
//           writes acc_out[row] after every read of its row)
//
// Every combine takes the earlier chunks as its first operand (whose range the
// second's follows), so with combine associative GPU_2D gives the same results
// as GPU_1D for every reduction, ties and NaN rules included (sums up to
// rounding: the terms are added in another order). It names no reduction: any
// op with init / accumulate / combine / finalize and a trivially copyable
// accumulator works.
//
// The chunking (plan_gpu_2d) aims at 4 waves of resident blocks in pass 1,
// within three caps: chunks of at least 4 tiles and at most 4096 of them (with
// few rows each block has few busy threads: beyond one wave more chunks only
// add scratch and combining), the grid's 65535 in y, and a scratch budget of
// 256 MiB (gpu_2d_scratch_budget). A plan of one chunk runs as GPU_1D: the same
// reduction, without scratch or second pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <kops/backends/cuda/block_reduce.hpp>
#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/gpu_1d.hpp>
#include <kops/backends/cuda/grid.hpp>

namespace kops::cuda::detail {

// Scratch bytes one GPU_2D call may allocate. Plans shrink their chunk count
// to fit (a fixed budget rather than a share of the device's memory: querying
// free memory at every call costs a runtime call, and what is free now says
// little about what the stream's other work holds when the kernels run).
inline constexpr std::size_t gpu_2d_scratch_budget = std::size_t(256) << 20;
inline constexpr std::int64_t gpu_2d_max_grid_chunks = grid_max_yz;  // gridDim.y
inline constexpr std::int64_t gpu_2d_max_auto_chunks = 4096;
inline constexpr std::int64_t gpu_2d_min_chunk_tiles = 4;
inline constexpr std::int64_t gpu_2d_target_waves = 4;

struct gpu_2d_plan {
  std::int64_t chunk;   // reduced-axis indices per block
  std::int64_t chunks;  // blocks along the reduced axis (grid.y); 1: runs as GPU_1D
};

// The most chunks `rows` rows of `acc_bytes` accumulators may have: the grid's
// limit and the scratch budget, chunks * rows * acc_bytes <= budget.
inline std::int64_t gpu_2d_chunk_limit(std::int64_t rows, std::size_t acc_bytes, std::size_t budget) {
  const std::size_t per_row = budget / acc_bytes;
  const std::size_t n = per_row / std::size_t(rows > 1 ? rows : 1);
  return n < std::size_t(gpu_2d_max_grid_chunks) ? std::int64_t(n) : gpu_2d_max_grid_chunks;
}

// What the host side of a launch needs of one kernel_traits K, as values:
// the planning below and launch.hpp's launches are then compiled once per
// translation unit, not once per reduction.
struct kernel_facts {
  int block;                 // K::block threads
  int block_rows;            // K::block_rows output rows per block (block * rows per thread)
  int tile;                  // K::tile reduced indices per shared-memory tile
  std::size_t shared_bytes;  // K::shared_bytes of dynamic shared memory
  std::size_t acc_bytes;     // sizeof(K::acc_type)
  int combine_threads;       // gpu_2d_combine_traits<K>::threads
  bool combine_tree;         // gpu_2d_combine_traits<K>::tree
};

// Chunk length: as requested (> 0), or chosen so that the pass-1 grid holds
// about 4 waves of resident blocks, 4 * sms * blocks_per_sm, in chunks of
// whole tiles, at least 4 tiles and at most 4096 chunks. Either way the chunk
// is then raised until chunks * rows accumulators fit the scratch budget and
// the grid; when not even two chunks fit, the plan is one chunk (GPU_1D).
inline gpu_2d_plan gpu_2d_plan_for(const kernel_facts& k, std::int64_t rows, std::int64_t cols, int sms,
                                   int blocks_per_sm, std::int64_t requested_chunk,
                                   std::size_t budget = gpu_2d_scratch_budget) {
  const std::int64_t limit = gpu_2d_chunk_limit(rows, k.acc_bytes, budget);
  const gpu_2d_plan whole{cols > 0 ? cols : 1, 1};
  if (cols <= 1 || limit < 2) return whole;
  std::int64_t chunk = requested_chunk;
  if (chunk > 0) {
    // ceil_div rather than chunk * limit: a requested chunk may be near INT64_MAX.
    if (ceil_div(cols, chunk) > limit) chunk = ceil_div(cols, limit);
  } else {
    const std::int64_t row_blocks = ceil_div(rows > 1 ? rows : 1, k.block_rows);
    const std::int64_t target = gpu_2d_target_waves * sms * blocks_per_sm;
    std::int64_t wanted = row_blocks >= target ? 1 : target / row_blocks;
    if (wanted > gpu_2d_max_auto_chunks) wanted = gpu_2d_max_auto_chunks;
    if (wanted > limit) wanted = limit;
    std::int64_t tiles = ceil_div(ceil_div(cols, k.tile), wanted);
    if (tiles < gpu_2d_min_chunk_tiles) tiles = gpu_2d_min_chunk_tiles;
    chunk = tiles * k.tile;  // chunks = ceil(cols / chunk) <= wanted
  }
  const std::int64_t chunks = ceil_div(cols, chunk);
  return chunks > 1 ? gpu_2d_plan{chunk, chunks} : whole;
}

// Threads of a pass-2 block: 256, or as many accumulators as 48 KiB of shared
// memory holds (a power of two), for the tree; accumulators too large for two
// of them get 32 threads, one per row, and no tree.
template <class K>
struct gpu_2d_combine_traits {
  static constexpr std::size_t fit = K::max_shared_bytes / sizeof(typename K::acc_type);
  static constexpr bool tree = fit >= 2;
  static constexpr int threads = [] {
    if (!tree) return 32;
    int t = 256;
    while (std::size_t(t) > fit) t /= 2;
    return t;
  }();
};

// The pass-2 block for `chunks` chunks: threads = (1 << row_shift) rows times
// a power of two of group slots, of which `groups` (<= chunks) are used. Each
// group folds 2 to 4 chunks on its own (more beyond 4 * threads chunks):
// independent loads, no barrier between them, where a tree level costs one.
// The block's other threads take more rows, so that reads coalesce:
// scratch[c * rows + row] is contiguous in row.
struct gpu_2d_combine_shape {
  int row_shift;  // rows per block = 1 << row_shift
  int groups;     // chunk groups per row
};

inline gpu_2d_combine_shape gpu_2d_combine_shape_for(const kernel_facts& k, std::int64_t chunks) {
  int slots = 1;
  if (k.combine_tree) {
    const std::int64_t wanted = ceil_div(chunks, 4);
    while (slots < k.combine_threads && slots < wanted) slots *= 2;
  }
  int row_shift = 0;
  while ((slots << (row_shift + 1)) <= k.combine_threads) ++row_shift;
  return {row_shift, int(chunks < slots ? chunks : slots)};
}

template <class K>
inline constexpr kernel_facts kernel_facts_v{K::block,
                                             K::block_rows,
                                             K::tile,
                                             K::shared_bytes,
                                             sizeof(typename K::acc_type),
                                             gpu_2d_combine_traits<K>::threads,
                                             gpu_2d_combine_traits<K>::tree};

// The plan and the pass-2 block of K (tests, benchmarks).
template <class K>
gpu_2d_plan plan_gpu_2d(std::int64_t rows, std::int64_t cols, int sms, int blocks_per_sm,
                        std::int64_t requested_chunk, std::size_t budget = gpu_2d_scratch_budget) {
  return gpu_2d_plan_for(kernel_facts_v<K>, rows, cols, sms, blocks_per_sm, requested_chunk, budget);
}
template <class K>
gpu_2d_combine_shape gpu_2d_combine_shape_for(std::int64_t chunks) {
  return gpu_2d_combine_shape_for(kernel_facts_v<K>, chunks);
}

// ToAcc: the combined accumulators go to acc_out, not finalized (a kernel of
// its own, gpu_2d_combine_kernel_to: the plain combine stays as it was).
template <class K, bool ToAcc = false>
__device__ KOPS_INLINE void gpu_2d_combine_block(const typename K::acc_type* const scratch, const std::int64_t rows,
                                                 const std::int64_t chunks, const int row_shift, const int groups,
                                                 typename K::out_type* const out,
                                                 [[maybe_unused]] typename K::acc_type* const acc_out) {
  using Math = typename K::math;
  using acc_type = typename K::acc_type;
  const int t = threadIdx.x;
  const int g = t >> row_shift;
  const std::int64_t row = (std::int64_t(blockIdx.x) << row_shift) + (t & ((1 << row_shift) - 1));
  const bool valid = row < rows && g < groups;
  acc_type acc;
  if (valid) {
    const std::int64_t c0 = chunks * g / groups, c1 = chunks * (g + 1) / groups;  // c0 < c1: groups <= chunks
    acc = scratch[c0 * rows + row];
    for (std::int64_t c = c0 + 1; c < c1; ++c) K::op::template combine<Math>(acc, scratch[c * rows + row]);
  }
  if constexpr (gpu_2d_combine_traits<K>::tree) {
    // shared:(slots, rows per block); at step s group g (a multiple of 2s)
    // takes in group g + s, written before the barrier and not rewritten in
    // this step (g + s is no multiple of 2s). groups is uniform: every thread
    // reaches every barrier.
    if (groups > 1) {
      acc_type* const partial = shared_tile<acc_type>();
      if (valid) partial[t] = acc;
      for (int s = 1; s < groups; s *= 2) {
        __syncthreads();
        if (valid && g % (2 * s) == 0 && g + s < groups) {
          K::op::template combine<Math>(acc, partial[t + (s << row_shift)]);
          partial[t] = acc;
        }
      }
    }
  }
  if (valid && g == 0) {
    if constexpr (ToAcc) acc_out[row] = acc;  // a streamed call's running accumulators (streamed.hpp)
    else
      kops::detail::store_row<typename K::op, Math, K::reduction::dim>(acc, 0,
                                                                       out + row * out_stride_v<typename K::reduction>);
  }
}

template <class K>
__global__ void __launch_bounds__(gpu_2d_combine_traits<K>::threads)
gpu_2d_combine_kernel(const typename K::acc_type* const scratch, const std::int64_t rows,
                      const std::int64_t chunks, const int row_shift, const int groups,
                      typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  gpu_2d_combine_block<K>(scratch, rows, chunks, row_shift, groups, out, nullptr);
#endif
}

// The combined accumulators into acc_out, not finalized (streamed.hpp).
template <class K>
__global__ void __launch_bounds__(gpu_2d_combine_traits<K>::threads)
gpu_2d_combine_kernel_to(const typename K::acc_type* const scratch, const std::int64_t rows,
                         const std::int64_t chunks, const int row_shift, const int groups,
                         typename K::acc_type* const acc_out) {
#if KOPS_KERNEL_BODIES
  gpu_2d_combine_block<K, true>(scratch, rows, chunks, row_shift, groups, nullptr, acc_out);
#endif
}

// Every batch's combine (the batches' scratch and outputs at their strides).
// A batch's tree leaves its values in shared memory: a barrier separates
// batches, so that the next one's writes come after every read.
template <class K>
__global__ void __launch_bounds__(gpu_2d_combine_traits<K>::threads)
gpu_2d_combine_kernel_batched(const typename K::acc_type* const scratch, const typename K::batch_type s,
                              const std::int64_t rows, const std::int64_t chunks, const int row_shift,
                              const int groups, typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  for (std::int64_t b = blockIdx.z; b < s.count; b += gridDim.z) {
    if (b != blockIdx.z) __syncthreads();
    gpu_2d_combine_block<K>(scratch + b * s.scratch, rows, chunks, row_shift, groups, out + b * s.out, nullptr);
  }
#endif
}

} // namespace kops::cuda::detail
