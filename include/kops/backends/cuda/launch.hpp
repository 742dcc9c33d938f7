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
//   (a kernel tuned to R rows per thread, kernel_traits.hpp: B = ceil(rows / (R block)))
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
#include <type_traits>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/gpu_1d.hpp>
#include <kops/backends/cuda/gpu_2d.hpp>
#include <kops/backends/cuda/grid.hpp>
#include <kops/backends/cuda/options.hpp>

namespace kops::cuda::detail {

// The constants of the estimate (file comment), in reduced indices walked by a block.
inline constexpr double block_overhead_indices = 32;  // o
inline constexpr double second_pass_indices = 64;

// The launch cost model (file comment), shared by the dense schemes here and
// the block-sparse split of ranges.hpp (choose_ranged_split); every term in
// block-walks of one reduced index, with `slots` block slots.
// One pass of `blocks` blocks, each walking `walk` reduced indices:
//   waves(blocks) * (walk + o)
inline double pass_estimate(std::int64_t blocks, std::int64_t slots, std::int64_t walk) {
  return double(ceil_div(blocks, slots)) * (double(walk) + block_overhead_indices);
}
// Scratch of bytes = the product of `factors`, written once and read once by
// `threads` threads at a time, a byte priced as one pair evaluation:
// 2 * bytes / threads (multiplied left to right, in double).
template <class T, class... N>
double scratch_estimate(T threads, N... factors) {
  return (2.0 * ... * double(factors)) / double(threads);
}
// Two passes: pass 1 of `pieces` blocks walking `chunk` indices each, the
// second launch, and the scratch between them (`scratch`: scratch_estimate).
inline double split_estimate(std::int64_t pieces, std::int64_t slots, std::int64_t chunk, double scratch) {
  return pass_estimate(pieces, slots, chunk) + second_pass_indices + scratch;
}

// The estimated run times of choose_scheme, in block-walks of one reduced index.
struct scheme_estimate {
  double gpu_1d;
  double gpu_2d;  // +inf when the plan has one chunk
};

// block_rows: the rows a block takes (0: block, one per thread; a tuned
// kernel, kernel_traits.hpp: tuning, takes block * rows per thread; the
// tensor-core kernel, tensor_core.hpp, 16 per warp).
inline scheme_estimate estimate_schemes(std::int64_t rows, std::int64_t cols, int block, std::size_t acc_bytes,
                                        int sms, int blocks_per_sm, const gpu_2d_plan& plan, int block_rows = 0) {
  const std::int64_t slots = std::int64_t(sms > 0 ? sms : 1) * (blocks_per_sm > 0 ? blocks_per_sm : 1);
  const std::int64_t b = ceil_div(rows > 1 ? rows : 1, std::int64_t(block_rows > 0 ? block_rows : block));
  scheme_estimate e{pass_estimate(b, slots, cols), std::numeric_limits<double>::infinity()};
  if (plan.chunks > 1) {
    // rows * chunks accumulators of acc_bytes, by every thread of the slots.
    const double scratch = scratch_estimate(double(slots) * block, rows, plan.chunks, acc_bytes);
    e.gpu_2d = split_estimate(b * plan.chunks, slots, plan.chunk, scratch);
  }
  return e;
}

// The scheme automatic resolves to (file comment), given the device's SM
// count, the reduce kernel's resident blocks per SM and the GPU_2D plan.
inline scheme choose_scheme(const kernel_facts& k, std::int64_t rows, std::int64_t cols, int sms, int blocks_per_sm,
                            const gpu_2d_plan& plan) {
  const scheme_estimate e =
      estimate_schemes(rows, cols, k.block, k.acc_bytes, sms, blocks_per_sm, plan, k.block_rows);
  return e.gpu_2d < e.gpu_1d ? scheme::gpu_2d : scheme::gpu_1d;
}
template <class K>
scheme choose_scheme(std::int64_t rows, std::int64_t cols, int sms, int blocks_per_sm, const gpu_2d_plan& plan) {
  return choose_scheme(kernel_facts_v<K>, rows, cols, sms, blocks_per_sm, plan);
}

// What a call runs: the scheme, resolved (never automatic), and the GPU_2D plan.
struct launch_plan {
  kops::cuda::scheme scheme;
  gpu_2d_plan plan;
  bool memory_pools;  // of the device, for GPU_2D's scratch
};

// One reduction's kernels as the host sees them (kernel_entry_v<K, Batched>):
// launchers of its reduce and combine kernels (batched or not), the reduce
// kernel's occupancy query and cache, and its facts. Everything a launch does
// on the host (planning, scratch, the two passes, errors) is then one untyped
// function per translation unit (launch_entry), not one per reduction; what
// stays per reduction is these few lines.
using kernel_launcher = cudaError_t (*)(dim3 grid, dim3 block, void** params, std::size_t shared,
                                        cudaStream_t stream);
struct kernel_entry {
  kernel_launcher reduce;   // reduce_kernel<K> (reduce_kernel_batched<K>)
  kernel_launcher combine;  // gpu_2d_combine_kernel<K> (..._batched<K>)
  cudaError_t (*occupancy)(int* n, int block, std::size_t shared);  // of `reduce`
  int* occupancy_cache;     // cached_devices entries, 0 = not yet known
  kernel_facts facts;
  // kernel_entry_from_v only (a streamed piece, an MPI rank's slice; null
  // elsewhere, so that only those calls compile the two kernels):
  kernel_launcher reduce_from = nullptr;  // reduce_kernel_from<K>: indices from `first` on
  kernel_launcher combine_to = nullptr;   // gpu_2d_combine_kernel_to<K>: accumulators left unfinalized
};

template <class K, bool Batched>
struct kernel_launchers {
  static cudaError_t reduce(dim3 grid, dim3 block, void** params, std::size_t shared, cudaStream_t stream) {
    if constexpr (Batched) return cudaLaunchKernel(reduce_kernel_batched<K>, grid, block, params, shared, stream);
    else return cudaLaunchKernel(reduce_kernel<K>, grid, block, params, shared, stream);
  }
  static cudaError_t combine(dim3 grid, dim3 block, void** params, std::size_t shared, cudaStream_t stream) {
    if constexpr (Batched)
      return cudaLaunchKernel(gpu_2d_combine_kernel_batched<K>, grid, block, params, shared, stream);
    else return cudaLaunchKernel(gpu_2d_combine_kernel<K>, grid, block, params, shared, stream);
  }
  static cudaError_t occupancy(int* n, int block, std::size_t shared) {
    if constexpr (Batched)
      return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, reduce_kernel_batched<K>, block, shared);
    else return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, reduce_kernel<K>, block, shared);
  }
  static inline int occupancy_cache[cached_devices] = {};
};

template <class K, bool Batched>
inline constexpr kernel_entry kernel_entry_v{&kernel_launchers<K, Batched>::reduce,
                                             &kernel_launchers<K, Batched>::combine,
                                             &kernel_launchers<K, Batched>::occupancy,
                                             kernel_launchers<K, Batched>::occupancy_cache, kernel_facts_v<K>};

template <class K>
struct offset_launchers {
  static cudaError_t reduce_from(dim3 grid, dim3 block, void** params, std::size_t shared, cudaStream_t stream) {
    return cudaLaunchKernel(reduce_kernel_from<K>, grid, block, params, shared, stream);
  }
  static cudaError_t combine_to(dim3 grid, dim3 block, void** params, std::size_t shared, cudaStream_t stream) {
    return cudaLaunchKernel(gpu_2d_combine_kernel_to<K>, grid, block, params, shared, stream);
  }
};

// kernel_entry_v<K, false> with the kernels of a range that does not start at
// index 0 and of unfinalized combines (streamed.hpp, mpi_cuda.hpp).
template <class K>
inline constexpr kernel_entry kernel_entry_from_v{&kernel_launchers<K, false>::reduce,
                                                  &kernel_launchers<K, false>::combine,
                                                  &kernel_launchers<K, false>::occupancy,
                                                  kernel_launchers<K, false>::occupancy_cache,
                                                  kernel_facts_v<K>,
                                                  &offset_launchers<K>::reduce_from,
                                                  &offset_launchers<K>::combine_to};

// A launch's kernel parameters, untyped (launch<K, Batched> fills it).
struct launch_operands {
  void* args;                             // -> a K::args_type
  void* out;                              // a K::out_type*
  void* batch = nullptr;                  // -> a K::batch_type (batched calls), else null
  std::int64_t* batch_scratch = nullptr;  // -> its scratch stride, set by GPU_2D
  std::int64_t batches = 1;               // its count
};

// rows >= 1. Queries the current device (cached) unless GPU_1D is forced. A
// GPU_2D plan of one chunk runs as GPU_1D, forced or not: the same reduction
// without scratch or second pass. Into `p`; false when a query fails
// (reported: thrown, or, without exceptions, passed to the error handler).
// (For a batched entry, `rows` counts the rows of every batch.)
[[nodiscard]] inline bool plan_launch_entry(const kernel_entry& k, std::int64_t rows, std::int64_t cols,
                                            const options& opts, const char* where, launch_plan& p) {
  const gpu_2d_plan whole{cols > 0 ? cols : 1, 1};
  p = {scheme::gpu_1d, whole, false};
  if (opts.scheme == scheme::gpu_1d) return true;
  int device = 0, per_sm = 0;
  device_facts facts;
  if (!current_device(where, device) || !facts_of(device, where, facts)) return false;
  if (!cached_blocks_per_sm(k.occupancy_cache, device, per_sm) &&
      !remember_blocks_per_sm(k.occupancy_cache, device,
                              k.occupancy(&per_sm, k.facts.block, k.facts.shared_bytes), where, per_sm))
    return false;
  const gpu_2d_plan plan = gpu_2d_plan_for(k.facts, rows, cols, facts.sms, per_sm, opts.gpu_2d_chunk);
  if (plan.chunks < 2) {
    p = {scheme::gpu_1d, whole, facts.memory_pools};
    return true;
  }
  const scheme s =
      opts.scheme == scheme::gpu_2d ? scheme::gpu_2d : choose_scheme(k.facts, rows, cols, facts.sms, per_sm, plan);
  p = {s, plan, facts.memory_pools};
  return true;
}

// Into `p`. Batched: the plan of a batched call (its kernel's occupancy;
// `rows` then counts the rows of every batch).
template <class K, bool Batched = false>
[[nodiscard]] bool plan_launch(std::int64_t rows, std::int64_t cols, const options& opts, const char* where,
                               launch_plan& p) {
  return plan_launch_entry(kernel_entry_v<K, Batched>, rows, cols, opts, where, p);
}

// The plan alone (tests, benchmarks): a failing query throws; without
// exceptions it is reported and the GPU_1D plan returned.
template <class K>
launch_plan plan_launch(std::int64_t rows, std::int64_t cols, const options& opts, const char* where) {
  launch_plan p;
  (void)plan_launch<K>(rows, cols, opts, where, p);
  return p;
}

// A kernel's parameter list for cudaLaunchKernel: the first parameter, then
// the batch (batched kernels only: `batch` non-null), then the rest: the
// batched and unbatched launches of launch_entry (compiled in every
// translation unit) share one launch sequence.
struct kernel_params {
  void* p[8];
  int n = 0;
  kernel_params(void* first, void* batch) {
    p[n++] = first;
    if (batch) p[n++] = batch;
  }
  template <class... A>
  void add(A*... a) {
    ((p[n++] = a), ...);
  }
};

// The reduce kernel (gpu_1d.hpp) over the reduced indices [first, cols) in
// `chunks` blocks of `chunk` along the grid's y: with `scratch` (GPU_2D's
// pass 1, a streamed piece) block (bx, c) stores its accumulators at
// scratch[c * rows + row], without (GPU_1D: one chunk) it finalizes into
// `out`. A batched call: every batch in the same launch. True when
// launched; false after a reported failure (without exceptions).
[[nodiscard]] inline bool launch_reduce(const kernel_entry& k, const launch_operands& o, std::int64_t rows,
                                        std::int64_t first, std::int64_t cols, std::int64_t chunk,
                                        std::int64_t chunks, void* scratch, void* out, cudaStream_t stream,
                                        const char* where, const char* what) {
  unsigned blocks = 0;
  if (!row_blocks(rows, k.facts.block_rows, where, blocks)) return false;
  const unsigned bz = o.batch ? batch_grid(o.batches) : 1;
  kernel_params params(o.args, o.batch);
  if (first == 0) {
    params.add(&rows, &cols, &chunk, &scratch, &out);
    return check_launch(k.reduce(dim3(blocks, unsigned(chunks), bz), dim3(k.facts.block), params.p,
                                 k.facts.shared_bytes, stream),
                        where, what);
  }
  if (k.reduce_from == nullptr || o.batch)
    return kops::detail::fail("%s: internal error, a reduction from index %lld without its kernel", where,
                              (long long)first);
  params.add(&rows, &first, &cols, &chunk, &scratch, &out);
  return check_launch(k.reduce_from(dim3(blocks, unsigned(chunks), bz), dim3(k.facts.block), params.p,
                                    k.facts.shared_bytes, stream),
                      where, what);
}

// GPU_2D's pass 2 (gpu_2d.hpp) on `chunks` chunks of accumulators in
// `scratch`: finalized into `out`, or, with acc_out, left combined there (a
// streamed call). A batched call: every batch in the same launch.
[[nodiscard]] inline bool launch_combine(const kernel_entry& k, const launch_operands& o, std::int64_t rows,
                                         std::int64_t chunks, void* scratch, void* out, void* acc_out,
                                         cudaStream_t stream, const char* where) {
  gpu_2d_combine_shape shape = gpu_2d_combine_shape_for(k.facts, chunks);
  unsigned combine_blocks = 0;
  if (!row_blocks(rows, 1 << shape.row_shift, where, combine_blocks)) return false;
  const int threads = k.facts.combine_threads;
  const std::size_t shared = shape.groups > 1 ? threads * k.facts.acc_bytes : 0;
  const unsigned bz = o.batch ? batch_grid(o.batches) : 1;
  kernel_params params(&scratch, o.batch);
  if (acc_out == nullptr) {
    params.add(&rows, &chunks, &shape.row_shift, &shape.groups, &out);
    return check_launch(k.combine(dim3(combine_blocks, 1, bz), dim3(threads), params.p, shared, stream), where,
                        "GPU_2D combine");
  }
  if (k.combine_to == nullptr || o.batch)
    return kops::detail::fail("%s: internal error, an unfinalized combine without its kernel", where);
  params.add(&rows, &chunks, &shape.row_shift, &shape.groups, &acc_out);
  return check_launch(k.combine_to(dim3(combine_blocks, 1, bz), dim3(threads), params.p, shared, stream), where,
                      "GPU_2D combine");
}

// GPU_1D (gpu_1d.hpp): true when launched; false after a reported failure
// (without exceptions). A batched call: every batch in the same launch.
[[nodiscard]] inline bool launch_gpu_1d(const kernel_entry& k, const launch_operands& o, std::int64_t rows,
                                        std::int64_t cols, cudaStream_t stream, const char* where) {
  return launch_reduce(k, o, rows, 0, cols, cols > 0 ? cols : 1, 1, nullptr, o.out, stream, where, "GPU_1D");
}

// GPU_2D (gpu_2d.hpp): true when both passes are queued; false after a
// reported failure (without exceptions: nothing after the failing step runs).
// A batched call: every batch in the same two launches, the scratch holding
// every batch's partial accumulators.
[[nodiscard]] inline bool launch_gpu_2d(const kernel_entry& k, const launch_operands& o, std::int64_t rows,
                                        std::int64_t cols, gpu_2d_plan plan, cudaStream_t stream, bool pools,
                                        const char* where) {
  const std::size_t per_chunk = std::size_t(rows) * k.facts.acc_bytes;
  const std::size_t batches = o.batch ? std::size_t(o.batches) : 1;
  if (std::size_t(plan.chunks) > std::size_t(-1) / per_chunk / batches)
    return kops::detail::fail("%s: the GPU_2D scratch size overflows", where);
  stream_buffer scratch(std::size_t(plan.chunks) * per_chunk * batches, stream, pools, where,
                        "the GPU_2D partial accumulators");
  if (!scratch.ok()) return false;
  if (o.batch) *o.batch_scratch = plan.chunks * rows;
  return launch_reduce(k, o, rows, 0, cols, plan.chunk, plan.chunks, scratch.get(), nullptr, stream, where,
                       "GPU_2D partial-reduction") &&
         launch_combine(k, o, rows, plan.chunks, scratch.get(), o.out, nullptr, stream, where) &&
         scratch.release(where, "the GPU_2D partial accumulators");
}

// rows >= 1. Runs on the current device, asynchronously on opts.stream. True
// when queued; false after a reported failure (only without exceptions).
// A batched entry (o.batch set): every batch in the same launches, planned as
// one call with the rows of every batch.
[[nodiscard, gnu::noinline]] inline bool launch_entry(const kernel_entry& k, const launch_operands& o, std::int64_t rows,
                                       std::int64_t cols, const options& opts, const char* where) {
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  const std::int64_t all_rows = !o.batch ? rows : o.batches > most / rows ? most : rows * o.batches;
  launch_plan p;
  if (!plan_launch_entry(k, all_rows, cols, opts, where, p)) return false;
  if (p.scheme == scheme::gpu_2d) return launch_gpu_2d(k, o, rows, cols, p.plan, opts.stream, p.memory_pools, where);
  return launch_gpu_1d(k, o, rows, cols, opts.stream, where);
}

// rows >= 1: launch_entry of K's kernels. Batched: every batch of `batch`
// (non-null, count >= 1) in the same launches.
template <class K, bool Batched = false>
[[nodiscard]] bool launch(const typename K::args_type& a, std::int64_t rows, std::int64_t cols,
                          typename K::out_type* out, const options& opts, const char* where,
                          const typename K::batch_type* batch = nullptr) {
  static_assert(std::is_trivially_copyable_v<typename K::acc_type>,
                "kops::cuda::eval: GPU_2D stores the reduction's accumulators in scratch memory; "
                "its accumulator type must be trivially copyable");
  auto args = a;  // the kernels' parameters are copied at the launch, from here
  launch_operands o{&args, out};
  typename K::batch_type strides{};
  if constexpr (Batched) {
    strides = *batch;
    o.batch = &strides;
    o.batch_scratch = &strides.scratch;
    o.batches = batch->count;
  }
  return launch_entry(kernel_entry_v<K, Batched>, o, rows, cols, opts, where);
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
