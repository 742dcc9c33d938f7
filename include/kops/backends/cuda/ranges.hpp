// Block-sparse reductions on the GPU (core/block_sparsity.hpp).
//
//   grid (tasks)   block (block)   shared (tile, red_dims)
//   task t: rows [row0, row_end) (at most `block` of them, one row block's)
//           over the intervals reduced[t0 .. t1) of the reduced axis, in order
//
// The host cuts every row block into tasks of `block` rows, and the rows in no
// block into tasks without intervals (they write the reduction's empty value:
// never left as they were). Tasks and intervals go to the device in one
// stream-ordered buffer; each thread then walks its task's intervals tile by
// tile as GPU_1D walks the whole axis (block_reduce.hpp: the same loop, the
// accumulator and a summation scheme's flush count carried from one interval
// to the next), and finalizes its row. The barriers stay uniform: a task's
// intervals are the same for every thread of its block.
//
// Split (the GPU_2D form): few tasks with long interval lists would leave
// most of the GPU idle, so the host cuts each task's terms into pieces of at
// most `chunk` terms (an interval may be cut in two), each piece a task of
// its own over its own list of intervals:
//   pass 1  grid (pieces)   the same kernel; piece p stores its accumulators
//           in scratch[p * block + thread] instead of finalizing
//   pass 2  grid (tasks)    block (block): row r of task t combines the
//           accumulators of its pieces p0 .. p1, in order, and finalizes
//           (a task without intervals finalizes the empty value)
// as GPU_2D combines its chunks. choose_ranged_split decides: a forced
// gpu_2d scheme splits (when some task is longer than a chunk), automatic
// compares the estimated times of both forms as launch.hpp does for dense
// calls, gpu_1d never splits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <kops/backends/cuda/block_reduce.hpp>
#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/gpu_1d.hpp>
#include <kops/backends/cuda/grid.hpp>
#include <kops/backends/cuda/launch.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/backends/cuda/resident_sparsity.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/detail/sparsity.hpp>

namespace kops::cuda::detail {

// Split: the accumulators go to scratch[blockIdx.x * block + thread] (pass 1
// of a split call) instead of being finalized into out.
template <class K, bool Split = false>
__device__ KOPS_INLINE void ranged_block(const typename K::args_type& a, const ranged_task* const tasks,
                                         const range* const reduced, typename K::out_type* const out,
                                         typename K::acc_type* const scratch = nullptr) {
  using Red = typename K::reduction;
  const ranged_task task = tasks[blockIdx.x];
  const std::int64_t row = task.row0 + threadIdx.x;
  const bool valid = row < task.row_end;
  tile_context<K> ctx;
  load_row<K>(ctx, a, row, valid);
  std::int64_t t = task.t0;
  while (t < task.t1 && reduced[t].begin == reduced[t].end) ++t;
  if constexpr (K::final_chunks) {
    // The output row, or the piece's row in scratch, is the accumulator (final_chunks.hpp).
    typename K::value_type* dst = nullptr;
    if (valid)
      dst = final_row<K>(Split ? &scratch[std::int64_t(blockIdx.x) * K::block + threadIdx.x].s[0]
                               : out + row * out_stride_v<Red>);
    for (; t < task.t1; ++t) fold_range_final<K>(dst, ctx, a, row, valid, reduced[t].begin, reduced[t].end);
    return;
  }
  auto acc = K::op::template init<typename K::math, typename K::value_type, K::formula::dim>(
      t < task.t1 ? reduced[t].begin : -1);
  int tiles_unflushed = 0;
  for (; t < task.t1; ++t) fold_range<K>(acc, ctx, tiles_unflushed, a, valid, reduced[t].begin, reduced[t].end);
  if constexpr (Split) {
    if (valid) scratch[std::int64_t(blockIdx.x) * K::block + threadIdx.x] = acc;
  } else {
    if (valid) kops::detail::store_row<typename K::op, typename K::math, Red::dim>(acc, 0, out + row * out_stride_v<Red>);
  }
}

template <class K>
__global__ void __launch_bounds__(K::block)
ranged_kernel(const typename K::args_type a, const ranged_task* const tasks, const range* const reduced,
              typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  ranged_block<K>(a, tasks, reduced, out);
#endif
}

// Every batch of a batched call (the same tasks for each): batch b on blocks
// with blockIdx.z = b mod gridDim.z, as reduce_kernel_batched.
template <class K>
__global__ void __launch_bounds__(K::block)
ranged_kernel_batched(const typename K::args_type a, const typename K::batch_type s, const ranged_task* const tasks,
                      const range* const reduced, typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  for (std::int64_t b = blockIdx.z; b < s.count; b += gridDim.z)
    ranged_block<K>(batch_args<K>(a, s, b), tasks, reduced, out + b * s.out);
#endif
}

// Pass 1 of a split call: every piece's accumulators into scratch (batch b's
// at scratch + b * s.scratch; s.count = 1 for a plain call).
template <class K>
__global__ void __launch_bounds__(K::block)
ranged_split_kernel(const typename K::args_type a, const typename K::batch_type s, const ranged_task* const pieces,
                    const range* const reduced, typename K::acc_type* const scratch) {
#if KOPS_KERNEL_BODIES
  for (std::int64_t b = blockIdx.z; b < s.count; b += gridDim.z)
    ranged_block<K, true>(batch_args<K>(a, s, b), pieces, reduced, nullptr, scratch + b * s.scratch);
#endif
}

// Pass 2 of a split call: task t (t0 .. t1: its pieces) combines its pieces'
// accumulators row by row, in order, and finalizes.
template <class K>
__global__ void __launch_bounds__(K::block)
ranged_combine_kernel(const typename K::batch_type s, const ranged_task* const tasks,
                      const typename K::acc_type* const scratch, typename K::out_type* const out) {
#if KOPS_KERNEL_BODIES
  using Math = typename K::math;
  const ranged_task task = tasks[blockIdx.x];
  const std::int64_t row = task.row0 + threadIdx.x;
  if (row >= task.row_end) return;
  for (std::int64_t b = blockIdx.z; b < s.count; b += gridDim.z) {
    const typename K::acc_type* part = scratch + b * s.scratch + threadIdx.x;
    auto acc = task.t0 < task.t1 ? part[task.t0 * K::block]
                                 : K::op::template init<Math, typename K::value_type, K::formula::dim>(-1);
    for (std::int64_t p = task.t0 + 1; p < task.t1; ++p) K::op::template combine<Math>(acc, part[p * K::block]);
    kops::detail::store_row<typename K::op, Math, K::reduction::dim>(acc, 0,
                                                                      out + b * s.out + row * out_stride_v<typename K::reduction>);
  }
#endif
}

// The pieces of a split call (file comment): `pieces` over their own
// intervals, and `tasks` with t0 .. t1 their pieces.
struct ranged_split {
  kops::detail::owned_array<ranged_task> pieces, tasks;
  kops::detail::owned_array<range> intervals;
};

// Cuts the terms of every task of `tasks` (over reduced) into pieces of at
// most `chunk` (> 0) terms: counted, then written.
inline ranged_split split_ranged_tasks(const kops::detail::owned_array<ranged_task>& tasks, const range* reduced,
                                       std::int64_t chunk) {
  ranged_split sp;
  sp.tasks = kops::detail::owned_array<ranged_task>(tasks.size());
  for (int walk = 0; walk < 2; ++walk) {
    std::int64_t np = 0, ni = 0;
    for (std::int64_t k = 0; k < tasks.size(); ++k) {
      const ranged_task& t = tasks[k];
      const std::int64_t p0 = np;
      std::int64_t terms = 0, first = ni;
      auto close = [&] {
        if (walk == 1) sp.pieces[np] = {t.row0, t.row_end, first, ni};
        ++np;
        terms = 0;
        first = ni;
      };
      for (std::int64_t q = t.t0; q < t.t1; ++q)
        for (std::int64_t j = reduced[q].begin; j < reduced[q].end;) {
          const std::int64_t take = reduced[q].end - j < chunk - terms ? reduced[q].end - j : chunk - terms;
          if (walk == 1) sp.intervals[ni] = {j, j + take};
          ++ni;
          j += take;
          terms += take;
          if (terms == chunk) close();
        }
      if (ni > first) close();
      if (walk == 1) sp.tasks[k] = {t.row0, t.row_end, p0, np};
    }
    if (walk == 0) {
      sp.pieces = kops::detail::owned_array<ranged_task>(np);
      sp.intervals = kops::detail::owned_array<range>(ni);
    }
  }
  return sp;
}

template <class K> struct ranged_tag {};  // the occupancy cache of ranged_kernel<K>

// Whether a ranged call of these tasks runs split (into `split`), and with
// which chunk (into `chunk`); see the file comment. `batches` >= 1. The chunk
// is raised until every batch's pieces' accumulators fit GPU_2D's scratch
// budget (gpu_2d_scratch_budget); a call that cannot fit runs unsplit. False
// when a query fails (reported; nothing split).
template <class K>
[[nodiscard]] bool choose_ranged_split(const kops::detail::owned_array<ranged_task>& tasks, const range* reduced,
                                       std::int64_t batches, const options& opts, const char* where,
                                       std::int64_t& chunk, bool& split) {
  split = false;
  chunk = 0;
  if (opts.scheme == scheme::gpu_1d || tasks.size() == 0) return true;
  std::int64_t longest = 0, total = 0;
  for (std::int64_t k = 0; k < tasks.size(); ++k) {
    std::int64_t terms = 0;
    for (std::int64_t q = tasks[k].t0; q < tasks[k].t1; ++q) terms += reduced[q].end - reduced[q].begin;
    longest = terms > longest ? terms : longest;
    total += terms;
  }
  int device = 0, per_sm = 0;
  device_facts facts;
  if (!current_device(where, device) || !facts_of(device, where, facts) ||
      !blocks_per_sm<ranged_tag<K>>(ranged_kernel<K>, device, K::block, K::shared_bytes, where, per_sm))
    return false;
  const std::int64_t slots = std::int64_t(facts.sms > 0 ? facts.sms : 1) * per_sm;
  chunk = opts.gpu_2d_chunk;
  if (chunk <= 0) {
    // About gpu_2d_target_waves waves of pieces, each at least gpu_2d_min_chunk_tiles tiles.
    const std::int64_t wanted = gpu_2d_target_waves * slots;
    chunk = batches > (std::int64_t(1) << 62) / (total > 0 ? total : 1) ? std::int64_t(1) << 62
                                                                        : ceil_div(total * batches, wanted);
    if (chunk < gpu_2d_min_chunk_tiles * K::tile) chunk = gpu_2d_min_chunk_tiles * K::tile;
  }
  // The pieces (at most ceil(total / chunk) + tasks) of every batch, block
  // accumulators each, within the scratch budget.
  const double per_piece = double(K::block) * double(sizeof(typename K::acc_type)) * double(batches);
  while (chunk < longest &&
         (double(ceil_div(total, chunk)) + double(tasks.size())) * per_piece > double(gpu_2d_scratch_budget))
    chunk = chunk > longest / 2 ? longest : 2 * chunk;
  if (longest <= chunk) return true;  // nothing to split, or no room to
  if (opts.scheme == scheme::gpu_2d) {
    split = true;
    return true;
  }
  // launch.hpp's cost model: every task walking the longest one's terms,
  // against pieces of `chunk` terms and their scratch (block accumulators per
  // piece, by block threads per slot: the block size cancels).
  const std::int64_t pieces = ceil_div(total, chunk) + tasks.size();  // at most
  const double gpu_1d = pass_estimate(tasks.size() * batches, slots, longest);
  const double scratch = scratch_estimate(slots, pieces * batches, sizeof(typename K::acc_type));
  const double gpu_2d = split_estimate(pieces * batches, slots, chunk, scratch);
  split = gpu_2d < gpu_1d;
  return true;
}

// The tasks of a ranged pass over `rows` output rows (s checked, host memory):
// counted, then written.
inline kops::detail::owned_array<ranged_task> ranged_tasks(const block_sparsity& s, std::int64_t rows, int block) {
  kops::detail::owned_array<ranged_task> tasks;
  std::int64_t n = 0;
  auto cut = [&](std::int64_t r0, std::int64_t r1, std::int64_t t0, std::int64_t t1) {
    for (std::int64_t r = r0; r < r1; r += block, ++n)
      if (tasks.data()) tasks[n] = {r, r1 - r < block ? r1 : r + block, t0, t1};
  };
  for (int walk = 0; walk < 2; ++walk) {
    n = 0;
    std::int64_t prev = 0, first = 0;
    for (std::int64_t k = 0; k < s.row_blocks; first = s.slices[k], ++k) {
      if (s.rows[k].begin == s.rows[k].end) continue;  // an empty block may sit anywhere
      cut(prev, s.rows[k].begin, 0, 0);
      cut(s.rows[k].begin, s.rows[k].end, first, s.slices[k]);
      prev = s.rows[k].end;
    }
    cut(prev, rows, 0, 0);
    if (walk == 0) {
      if (n == 0) break;
      tasks = kops::detail::owned_array<ranged_task>(n);
    }
  }
  return tasks;
}

// A ranged call's task list on the host, in the one block of bytes that goes
// to the device (ranged_layout): the tasks, a split call's pieces, and the
// intervals they index unless the structure's own are on the device already
// (`intervals` null: a resident_sparsity's).
struct ranged_plan {
  ranged_layout layout;
  kops::detail::owned_array<unsigned char> bytes;

  ranged_plan(const kops::detail::owned_array<ranged_task>& tasks, const kops::detail::owned_array<ranged_task>* pieces,
              const range* intervals, std::int64_t nintervals, bool split) {
    layout.ntasks = tasks.size();
    layout.npieces = pieces != nullptr ? pieces->size() : 0;
    layout.pieces_at = std::size_t(layout.ntasks) * sizeof(ranged_task);
    layout.reduced_at = layout.pieces_at + std::size_t(layout.npieces) * sizeof(ranged_task);
    layout.own_intervals = intervals != nullptr;
    layout.split = split;
    layout.bytes = layout.reduced_at + (intervals != nullptr ? std::size_t(nintervals) * sizeof(range) : 0);
    bytes = kops::detail::owned_array<unsigned char>(std::int64_t(layout.bytes));
    auto put = [&](std::size_t at, const void* src, std::size_t n) {
      if (n > 0) std::memcpy(bytes.data() + at, src, n);
    };
    put(0, tasks.data(), layout.pieces_at);
    if (pieces != nullptr) put(layout.pieces_at, pieces->data(), layout.reduced_at - layout.pieces_at);
    if (intervals != nullptr) put(layout.reduced_at, intervals, layout.bytes - layout.reduced_at);
  }
};

// The kernels of a ranged call whose arrays are on the device (d), on
// `stream`: one launch, or the two passes of a split call (file comment) with
// their stream-ordered scratch. batch: null for a plain call.
template <class K, bool Batched>
[[nodiscard]] bool launch_ranged_arrays(const typename K::args_type& a, const ranged_device& d,
                                        typename K::out_type* out, cudaStream_t stream, const char* where,
                                        const typename K::batch_type* batch) {
  auto args = a;
  const ranged_task* tp = d.tasks;
  const range* rp = d.reduced;
  if (!d.split) {
    if constexpr (Batched) {
      auto strides = *batch;
      void* params[] = {&args, &strides, &tp, &rp, &out};
      return check_launch(cudaLaunchKernel(ranged_kernel_batched<K>,
                                           dim3(unsigned(d.ntasks), 1, batch_grid(batch->count)), dim3(K::block),
                                           params, K::shared_bytes, stream),
                          where, "block-sparse");
    } else {
      void* params[] = {&args, &tp, &rp, &out};
      return check_launch(cudaLaunchKernel(ranged_kernel<K>, dim3(unsigned(d.ntasks)), dim3(K::block), params,
                                           K::shared_bytes, stream),
                          where, "block-sparse");
    }
  }
  using acc_type = typename K::acc_type;
  static_assert(std::is_trivially_copyable_v<acc_type>,
                "kops::cuda::eval: a split block-sparse call stores the reduction's accumulators in scratch "
                "memory; its accumulator type must be trivially copyable");
  typename K::batch_type strides{};
  if (batch != nullptr) strides = *batch;
  else strides.count = 1;
  strides.scratch = d.npieces * K::block;
  const std::size_t per_batch = std::size_t(strides.scratch) * sizeof(acc_type);
  if (per_batch != 0 && std::size_t(strides.count) > std::size_t(-1) / per_batch)
    return kops::detail::fail("%s: the scratch of a split block-sparse call overflows", where);
  device_facts facts;
  if (!current_facts(where, facts)) return false;
  stream_buffer scratch(per_batch * std::size_t(strides.count), stream, facts.memory_pools, where,
                        "the block-sparse partial accumulators");
  if (!scratch.ok()) return false;
  acc_type* partial = scratch.get<acc_type>();
  const ranged_task* pp = d.pieces;
  const unsigned bz = batch_grid(strides.count);
  if (d.npieces > 0) {
    void* pass1[] = {&args, &strides, &pp, &rp, &partial};
    if (!check_launch(cudaLaunchKernel(ranged_split_kernel<K>, dim3(unsigned(d.npieces), 1, bz), dim3(K::block),
                                       pass1, K::shared_bytes, stream),
                      where, "block-sparse partial-reduction"))
      return false;
  }
  const acc_type* partial_c = partial;
  void* pass2[] = {&strides, &tp, &partial_c, &out};
  if (!check_launch(cudaLaunchKernel(ranged_combine_kernel<K>, dim3(unsigned(d.ntasks), 1, bz), dim3(K::block),
                                     pass2, 0, stream),
                    where, "block-sparse combine"))
    return false;
  return scratch.release(where, "the block-sparse partial accumulators");
}

// The task list of `plan` on the device for one call: a stream-ordered
// buffer, copied from pageable memory (each copy returns once its source has
// been read, so the plan may go when this returns), then the kernels.
template <class K, bool Batched>
[[nodiscard]] bool launch_ranged_copied(const typename K::args_type& a, const ranged_plan& plan,
                                        typename K::out_type* out, cudaStream_t stream, const char* where,
                                        const typename K::batch_type* batch) {
  device_facts facts;
  if (!current_facts(where, facts)) return false;
  stream_buffer buffer(plan.layout.bytes, stream, facts.memory_pools, where, "the block-sparse tasks");
  if (!buffer.ok()) return false;
  if (!check(cudaMemcpyAsync(buffer.get(), plan.bytes.data(), plan.layout.bytes, cudaMemcpyHostToDevice, stream),
             where, "copying the block-sparse tasks to the device"))
    return false;
  return launch_ranged_arrays<K, Batched>(a, plan.layout.on(buffer.get(), nullptr), out, stream, where, batch) &&
         buffer.release(where, "the block-sparse tasks");
}

// Whether a resident structure's cache may take a new task list on this call:
// not under capture (it allocates and copies), and only on the structure's
// device. False after a reported failure.
[[nodiscard]] inline bool resident_ready(const kops::cuda::resident_sparsity* r, cudaStream_t stream,
                                         std::int64_t rows, const char* where) {
  bool capturing = false;
  if (!stream_capturing(stream, where, capturing)) return false;
  if (capturing)
    return kops::detail::fail("%s: this kops::cuda::resident_sparsity keeps no task list yet for a call over %lld "
                              "output rows with this reduction and scheme, and making one allocates and copies, "
                              "which a stream under capture (a CUDA graph) cannot do: make the same call once "
                              "before the capture (docs/cuda.md, \"CUDA graphs\")",
                              where, (long long)rows);
  int device = 0;
  if (!current_device(where, device)) return false;
  if (device != r->device())
    return kops::detail::fail("%s: a kops::cuda::resident_sparsity lives on device %d, expected the call's device, "
                              "given device %d",
                              where, r->device(), device);
  return true;
}

// One ranged pass on the current device, queued on opts.stream, split or not
// (choose_ranged_split). s: a checked structure in host memory. True when
// queued; false after a reported failure. Batched: every batch of `batch`
// (non-null) in the same launches. When s is a kops::cuda::resident_sparsity's
// host copy, the task list is the one its cache holds (filled here at the
// first call that needs it, outside a capture): nothing is copied per call,
// and a capturing stream may take the call; any other structure is refused
// under capture (its task list is a host array that dies with the call).
template <class K, bool Batched = false>
[[nodiscard]] bool launch_ranged_pass(const typename K::args_type& a, const block_sparsity& s, std::int64_t rows,
                                      typename K::out_type* out, const options& opts, const char* where,
                                      const typename K::batch_type* batch = nullptr) {
  const cudaStream_t stream = opts.stream;
  const kops::cuda::resident_sparsity* resident = find_resident(s);
  if (resident == nullptr && !refuse_capture(stream, where, ranged_capture_refusal, ranged_capture_instead))
    return false;
  const auto tasks = ranged_tasks(s, rows, K::block);
  if (tasks.size() == 0) return true;
  if (tasks.size() > grid_max_x)
    return kops::detail::fail("%s: %lld row tiles of a block-sparse call exceed the GPU grid (2^31 - 1 blocks)",
                              where, (long long)tasks.size());
  std::int64_t chunk = 0;
  bool split = false;
  if (!choose_ranged_split<K>(tasks, s.reduced, Batched ? batch->count : 1, opts, where, chunk, split)) return false;
  const typename K::batch_type* b = Batched ? batch : nullptr;
  const ranged_key key{s.rows, K::block, rows, split ? chunk : 0};
  ranged_device d;
  if (resident != nullptr && resident->cached(key, d)) return launch_ranged_arrays<K, Batched>(a, d, out, stream, where, b);
  ranged_split sp;
  if (split) {
    sp = split_ranged_tasks(tasks, s.reduced, chunk);
    if (sp.pieces.size() > grid_max_x)
      return kops::detail::fail("%s: %lld pieces of a block-sparse call exceed the GPU grid (2^31 - 1 blocks)",
                                where, (long long)sp.pieces.size());
  }
  // A resident structure's unsplit tasks index its intervals on the device.
  const bool shared = resident != nullptr && !split;
  const ranged_plan plan(split ? sp.tasks : tasks, split ? &sp.pieces : nullptr,
                         shared ? nullptr : split ? sp.intervals.data() : s.reduced,
                         split ? sp.intervals.size() : kops::detail::sparsity_intervals(s), split);
  if (resident != nullptr) {
    if (!resident_ready(resident, stream, rows, where)) return false;
    bool failed = false;
    if (resident->remember(key, plan.layout, plan.bytes.data(), resident->device_reduced(s), d, where, failed))
      return launch_ranged_arrays<K, Batched>(a, d, out, stream, where, b);
    if (failed) return false;
    if (shared) {  // a full cache: this call's own copy, over the structure's intervals
      const ranged_plan own(tasks, nullptr, s.reduced, kops::detail::sparsity_intervals(s), false);
      return launch_ranged_copied<K, Batched>(a, own, out, stream, where, b);
    }
  }
  return launch_ranged_copied<K, Batched>(a, plan, out, stream, where, b);
}

// s (arrays in device memory, as the user passes them) copied to the host,
// into `host`, for the front end's checks and the tasks; `view` is what to
// check: the copy, or s itself when its sizes or pointers are already invalid
// (then the check reports it, and nothing is read). Synchronises `stream`.
[[nodiscard]] inline bool copy_sparsity_to_host(const block_sparsity& s, cudaStream_t stream, const char* where,
                                                kops::detail::sparsity_copy& host, block_sparsity& view) {
  view = s;
  if (s.row_blocks <= 0 || !s.rows || !s.slices) return true;
  // Sizes read from the caller (or from device memory) bound what is copied:
  // arrays larger than the device's memory cannot be there.
  std::size_t free_bytes = 0, total_bytes = 0;
  if (!check(cudaMemGetInfo(&free_bytes, &total_bytes), where, "querying the device memory size"))
    return false;
  auto too_large = [&](std::int64_t count, std::size_t bytes_each) {
    return std::uint64_t(count) > std::uint64_t(total_bytes / bytes_each);
  };
  if (too_large(s.row_blocks, sizeof(range) + sizeof(std::int64_t)))
    return kops::detail::fail("%s: block_sparsity: row_blocks = %lld row blocks do not fit in the device's memory",
                              where, (long long)s.row_blocks);
  const auto n = std::size_t(s.row_blocks);
  host.rows = kops::detail::owned_array<range>(s.row_blocks);
  host.slices = kops::detail::owned_array<std::int64_t>(s.row_blocks);
  host.row_blocks = s.row_blocks;
  if (!check(cudaMemcpyAsync(host.rows.data(), s.rows, n * sizeof(range), cudaMemcpyDeviceToHost, stream), where,
             "copying the block_sparsity row blocks to the host") ||
      !check(cudaMemcpyAsync(host.slices.data(), s.slices, n * sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream),
             where, "copying the block_sparsity slices to the host") ||
      !check(cudaStreamSynchronize(stream), where, "copying the block_sparsity structure to the host"))
    return false;
  host.axis = s.axis;
  view = host.view();
  const std::int64_t total = host.slices[s.row_blocks - 1];
  view.reduced = s.reduced;  // null stays null: reported by the check
  // Only what the check will accept is read: a total that the slices make
  // non-decreasing from 0 (else the check reports the slices first).
  bool monotone = host.slices[0] >= 0;
  for (std::size_t k = 1; k < n && monotone; ++k) monotone = host.slices[k] >= host.slices[k - 1];
  if (total > 0 && s.reduced && monotone) {
    if (too_large(total, sizeof(range)))
      return kops::detail::fail("%s: block_sparsity: slices[%lld] = %lld intervals do not fit in the device's memory",
                                where, (long long)(n - 1), (long long)total);
    host.reduced = kops::detail::owned_array<range>(total);
    if (!check(cudaMemcpyAsync(host.reduced.data(), s.reduced, std::size_t(total) * sizeof(range),
                               cudaMemcpyDeviceToHost, stream),
               where, "copying the block_sparsity intervals to the host") ||
        !check(cudaStreamSynchronize(stream), where, "copying the block_sparsity structure to the host"))
      return false;
    view.reduced = host.reduced.data();
  }
  return true;
}

} // namespace kops::cuda::detail
