// Scheme choice and launch of one reduction on the current device.
//
// scheme::automatic estimates the run time of both schemes from their grids
// and takes the smaller (choose_scheme; GPU_1D on a tie, and whenever the
// GPU_2D plan has a single chunk). With S = SMs * resident blocks per SM (the
// occupancy of reduce_kernel, queried once per device) block slots, a grid of
// G blocks runs in waves(G) = ceil(G / S) waves, and a wave lasts as long as
// its longest block: a partial wave costs a full one. In units of one block
// walking one reduced index:
//
//   B = ceil(rows / block) row blocks, o = 32 (a block's start and its write)
//   GPU_1D  waves(B) * (cols + o)
//   GPU_2D  waves(B * chunks) * (chunk + o)                          pass 1
//           + 64                       the second launch and the scratch's allocation
//           + 2 * rows * chunks * acc_bytes / (S * block)            scratch written and read
//
// The last term prices a byte of scratch traffic as one pair evaluation, about
// an H100's ratio of memory bandwidth to pair throughput on the cheapest
// formulas (a Gaussian: ~3.4e12 pairs/s, ~3.3e12 B/s); heavier formulas make
// it an overestimate, i.e. the rule leans to GPU_1D. The 64 is ~5 us there.
// So GPU_1D runs when its grid fills its waves well (rows = 1e6: 3.95 waves of
// 4 on an H100 at 10 blocks per SM) or the reduced axis is short (one GPU_2D
// chunk, or too few indices to pay for the second pass); GPU_2D runs when
// GPU_1D would leave most block slots of its last (or only) wave idle while
// the reduced axis is long. Partial waves costing full ones is pessimistic for
// GPU_1D (a lightly loaded SM runs its blocks faster); the constants are
// estimates, to be tuned with bench/run_gpu.sh (docs/cuda.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/gpu_1d.hpp>
#include <kops/backends/cuda/gpu_2d.hpp>
#include <kops/backends/cuda/options.hpp>

namespace kops::cuda::detail {

// The constants of the estimate (file comment), in reduced indices walked by a block.
inline constexpr double block_overhead_indices = 32;  // o
inline constexpr double second_pass_indices = 64;

// The estimated run times of choose_scheme, in block-walks of one reduced index.
struct scheme_estimate {
  double gpu_1d;
  double gpu_2d;  // +inf when the plan has one chunk
};

inline scheme_estimate estimate_schemes(std::int64_t rows, std::int64_t cols, int block, std::size_t acc_bytes,
                                        int sms, int blocks_per_sm, const gpu_2d_plan& plan) {
  const std::int64_t slots = std::int64_t(sms > 0 ? sms : 1) * (blocks_per_sm > 0 ? blocks_per_sm : 1);
  const std::int64_t b = ceil_div(rows > 1 ? rows : 1, block);
  const double o = block_overhead_indices;
  scheme_estimate e{double(ceil_div(b, slots)) * (double(cols) + o), std::numeric_limits<double>::infinity()};
  if (plan.chunks > 1) {
    const double scratch = 2.0 * double(rows) * double(plan.chunks) * double(acc_bytes) / (double(slots) * block);
    e.gpu_2d = double(ceil_div(b * plan.chunks, slots)) * (double(plan.chunk) + o) + second_pass_indices + scratch;
  }
  return e;
}

// The scheme automatic resolves to (file comment), given the device's SM
// count, the reduce kernel's resident blocks per SM and the GPU_2D plan.
template <class K>
scheme choose_scheme(std::int64_t rows, std::int64_t cols, int sms, int blocks_per_sm, const gpu_2d_plan& plan) {
  const scheme_estimate e =
      estimate_schemes(rows, cols, K::block, sizeof(typename K::acc_type), sms, blocks_per_sm, plan);
  return e.gpu_2d < e.gpu_1d ? scheme::gpu_2d : scheme::gpu_1d;
}

// What a call runs: the scheme, resolved (never automatic), and the GPU_2D plan.
struct launch_plan {
  kops::cuda::scheme scheme;
  gpu_2d_plan plan;
  bool memory_pools;  // of the device, for GPU_2D's scratch
};

// rows >= 1. Queries the current device (cached) unless GPU_1D is forced. A
// GPU_2D plan of one chunk runs as GPU_1D, forced or not: the same reduction
// without scratch or second pass. Into `p`; false when a query fails
// (reported: thrown, or, without exceptions, passed to the error handler).
template <class K> struct batched_tag {};  // the occupancy cache of reduce_kernel_batched<K>

// Batched: the plan of a batched call (its kernel's occupancy; `rows` then
// counts the rows of every batch).
template <class K, bool Batched = false>
[[nodiscard]] bool plan_launch(std::int64_t rows, std::int64_t cols, const options& opts, const char* where,
                               launch_plan& p) {
  const gpu_2d_plan whole{cols > 0 ? cols : 1, 1};
  p = {scheme::gpu_1d, whole, false};
  if (opts.scheme == scheme::gpu_1d) return true;
  int device = 0, per_sm = 0;
  device_facts facts;
  if (!current_device(where, device) || !facts_of(device, where, facts)) return false;
  if constexpr (Batched) {
    if (!blocks_per_sm<batched_tag<K>>(reduce_kernel_batched<K>, device, K::block, K::shared_bytes, where, per_sm))
      return false;
  } else {
    if (!blocks_per_sm<K>(reduce_kernel<K>, device, K::block, K::shared_bytes, where, per_sm)) return false;
  }
  const gpu_2d_plan plan = plan_gpu_2d<K>(rows, cols, facts.sms, per_sm, opts.gpu_2d_chunk);
  if (plan.chunks < 2) {
    p = {scheme::gpu_1d, whole, facts.memory_pools};
    return true;
  }
  const scheme s =
      opts.scheme == scheme::gpu_2d ? scheme::gpu_2d : choose_scheme<K>(rows, cols, facts.sms, per_sm, plan);
  p = {s, plan, facts.memory_pools};
  return true;
}

// The plan alone (tests, benchmarks): a failing query throws; without
// exceptions it is reported and the GPU_1D plan returned.
template <class K>
launch_plan plan_launch(std::int64_t rows, std::int64_t cols, const options& opts, const char* where) {
  launch_plan p;
  (void)plan_launch<K>(rows, cols, opts, where, p);
  return p;
}

// rows >= 1. Runs on the current device, asynchronously on opts.stream. True
// when queued; false after a reported failure (only without exceptions).
// Batched: every batch of `batch` (non-null, count >= 1) in the same launches,
// planned as one call with the rows of every batch.
template <class K, bool Batched = false>
[[nodiscard]] bool launch(const typename K::args_type& a, std::int64_t rows, std::int64_t cols,
                          typename K::out_type* out, const options& opts, const char* where,
                          const typename K::batch_type* batch = nullptr) {
  launch_plan p;
  std::int64_t all_rows = rows;
  if constexpr (Batched)
    all_rows = batch->count > std::numeric_limits<std::int64_t>::max() / rows ? std::numeric_limits<std::int64_t>::max()
                                                                              : rows * batch->count;
  if (!plan_launch<K, Batched>(all_rows, cols, opts, where, p)) return false;
  if (p.scheme == scheme::gpu_2d)
    return launch_gpu_2d<K, Batched>(a, rows, cols, out, p.plan, opts.stream, p.memory_pools, where, batch);
  return launch_gpu_1d<K, Batched>(a, rows, cols, out, opts.stream, where, batch);
}

// out[i] = each[i] + each[n + i] + ... + each[(B - 1) n + i], in that order
// (batch_output::sum: core/batch.hpp), a grid-stride loop over i; in T,
// rounded once to Out (a 16-bit output).
template <class T, class Out>
__global__ void sum_batches_kernel(const T* const each, const std::int64_t B, const std::int64_t n, Out* const out) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    T s = each[i];
    for (std::int64_t b = 1; b < B; ++b) s += each[b * n + i];
    out[i] = Out(s);
  }
}

// Queues sum_batches_kernel on `stream` (n >= 1); false after a reported failure.
template <class T, class Out>
[[nodiscard]] bool launch_sum_batches(const T* each, std::int64_t B, std::int64_t n, Out* out, cudaStream_t stream,
                                      const char* where) {
  constexpr int threads = 256;
  const std::int64_t blocks = ceil_div(n, threads);
  const unsigned grid = blocks < 1048576 ? unsigned(blocks) : 1048576u;
  void* params[] = {&each, &B, &n, &out};
  return check_launch(cudaLaunchKernel(sum_batches_kernel<T, Out>, dim3(grid), dim3(threads), params, 0, stream), where,
                      "batch sum");
}

} // namespace kops::cuda::detail
