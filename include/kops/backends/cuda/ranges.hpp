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
// A ranged call always runs this way, whatever the scheme option says: the
// row blocks of a clustered structure already make many CUDA blocks. (Few long
// rows blocks with long interval lists would want GPU_2D's split of the
// reduced axis: not done yet.)
#pragma once

#include <cstdint>

#include <kops/backends/cuda/block_reduce.hpp>
#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/gpu_1d.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/detail/sparsity.hpp>

namespace kops::cuda::detail {

struct ranged_task {
  std::int64_t row0, row_end;  // rows [row0, row_end)
  std::int64_t t0, t1;         // intervals reduced[t0 .. t1)
};

template <class K>
__global__ void __launch_bounds__(K::block)
ranged_kernel(const typename K::args_type a, const ranged_task* const tasks, const range* const reduced,
              typename K::out_type* const out) {
  using Red = typename K::reduction;
  const ranged_task task = tasks[blockIdx.x];
  const std::int64_t row = task.row0 + threadIdx.x;
  const bool valid = row < task.row_end;
  tile_context<K> ctx;
  load_row<K>(ctx, a, row, valid);
  std::int64_t t = task.t0;
  while (t < task.t1 && reduced[t].begin == reduced[t].end) ++t;
  auto acc = K::op::template init<typename K::math, typename K::value_type, K::formula::dim>(
      t < task.t1 ? reduced[t].begin : -1);
  int tiles_unflushed = 0;
  for (; t < task.t1; ++t) fold_range<K>(acc, ctx, tiles_unflushed, a, valid, reduced[t].begin, reduced[t].end);
  if (valid) K::op::template finalize<typename K::math>(acc, 0, out + row * Red::dim);
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

// One ranged pass on the current device, queued on `stream`. s: a checked
// structure in host memory. True when queued; false after a reported failure.
template <class K>
[[nodiscard]] bool launch_ranged_pass(const typename K::args_type& a, const block_sparsity& s, std::int64_t rows,
                                 typename K::out_type* out, cudaStream_t stream, const char* where) {
  const auto tasks = ranged_tasks(s, rows, K::block);
  if (tasks.size() == 0) return true;
  if (tasks.size() > 2147483647)
    return kops::detail::fail("%s: %lld row tiles of a block-sparse call exceed the GPU grid (2^31 - 1 blocks)",
                              where, (long long)tasks.size());
  const std::size_t task_bytes = std::size_t(tasks.size()) * sizeof(ranged_task);
  const std::size_t intervals = std::size_t(kops::detail::sparsity_intervals(s));
  device_facts facts;
  if (!current_facts(where, facts)) return false;
  stream_buffer buffer(task_bytes + intervals * sizeof(range), stream, facts.memory_pools, where,
                       "the block-sparsity structure");
  if (!buffer.ok()) return false;
  auto* dev_tasks = buffer.get<ranged_task>();
  auto* dev_reduced = reinterpret_cast<range*>(buffer.get<unsigned char>() + task_bytes);
  // From pageable memory: each copy returns once its source has been read,
  // so the host arrays may go when this function returns.
  if (!check(cudaMemcpyAsync(dev_tasks, tasks.data(), task_bytes, cudaMemcpyHostToDevice, stream), where,
             "copying the block-sparse tasks to the device"))
    return false;
  if (intervals > 0 &&
      !check(cudaMemcpyAsync(dev_reduced, s.reduced, intervals * sizeof(range), cudaMemcpyHostToDevice, stream),
             where, "copying the block-sparsity intervals to the device"))
    return false;
  auto args = a;
  const ranged_task* tp = dev_tasks;
  const range* rp = dev_reduced;
  void* params[] = {&args, &tp, &rp, &out};
  if (!check_launch(cudaLaunchKernel(ranged_kernel<K>, dim3(unsigned(tasks.size())), dim3(K::block), params,
                                     K::shared_bytes, stream),
                    where, "block-sparse"))
    return false;
  return buffer.release(where, "the block-sparsity structure");
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
