// kops::kokkos::eval: the CPU backend.
//
//   x:(M, Dx) y:(N, Dy) params:(Dp)  ->  out:(rows, red.dim), rows = M (axis_j) or N (axis_i)
//
// The work of one call is a grid of tasks on Kokkos::DefaultHostExecutionSpace:
// blocks of output rows (block_kernel.hpp) times slices of the reduced axis.
// With enough row blocks to keep every thread busy there is one slice, and each
// task accumulates and writes its rows: no thread ever touches another's rows.
// With few rows (M = 16 rows, N = 10^7 terms on 64 threads) the reduced axis is
// cut into slices as well: each task writes the partial accumulators of its
// (block, slice) pair into its own slot (partial.hpp), and a second parallel
// loop over row packs combines the slices of each pack in axis order, with the
// reduction's own combine, and finalizes: the CPU form of GPU_2D. plan_host
// below chooses; docs/backends.md gives the rule.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include <kops/backends/kokkos/block_kernel.hpp>
#include <kops/backends/kokkos/host_space.hpp>
#include <kops/backends/kokkos/partial.hpp>
#include <kops/core/batch.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/core/error.hpp>
#include <kops/core/policy.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/detail/sized.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::detail {

// A Kokkos::View as a range argument (detail/sized.hpp): rank 1, or rank 2
// (rows, dim) in LayoutRight, in memory the host reads.
template <class V>
  requires Kokkos::is_view<V>::value
struct sized_traits<V> {
  static_assert(V::rank == 1 || V::rank == 2,
                "kops::kokkos::eval: a Kokkos::View argument must have rank 1 (rows * dim values) or 2 (rows, dim)");
  static_assert(std::is_same_v<typename V::array_layout, Kokkos::LayoutRight> ||
                    (V::rank == 1 && std::is_same_v<typename V::array_layout, Kokkos::LayoutLeft>),
                "kops::kokkos::eval: a Kokkos::View argument must be contiguous, row-major: Kokkos::LayoutRight");
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename V::memory_space>::accessible,
                "kops::kokkos::eval: a Kokkos::View argument must be in memory the host reads (HostSpace)");
  static auto data(const V& v) { return v.data(); }
  static std::int64_t size(const V& v) { return std::int64_t(v.size()); }
  static std::int64_t cols(const V& v) { return V::rank == 2 ? std::int64_t(v.extent(1)) : -1; }
};

} // namespace kops::detail

namespace kops::kokkos::detail {

// How one call is spread over the host threads: `blocks` row blocks times
// `slices` slices of the reduced axis, each of `slice_terms` terms (the last
// one shorter).
struct host_plan {
  std::int64_t blocks = 0;
  std::int64_t slices = 1;
  std::int64_t slice_terms = 0;
};

// The plan of a call with `rows` output rows in blocks of `rows_per_block`,
// `cols` terms on the reduced axis, on `threads` threads. `slices` > 0 forces
// that many slices (tests); 0 chooses:
//  * tasks wanted: 4 per thread (static scheduling then leaves at most a
//    quarter of a task's time idle per thread at the end);
//  * row blocks alone when they are that many, or on one thread;
//  * otherwise the reduced axis is cut into as many slices as bring the tasks
//    to that number, each slice at least min_slice_terms long (below that, the
//    per-slice cost — filling the row tile, one more combine per pack — is no
//    longer small against the slice's work).
inline constexpr std::int64_t min_slice_terms = 4096;
inline constexpr std::int64_t tasks_per_thread = 4;
// A batched call (core/batch.hpp) has `batches` times the row blocks, and
// slices only when those are still too few.
inline host_plan plan_host(std::int64_t rows, std::int64_t rows_per_block, std::int64_t cols, int threads,
                           std::int64_t slices = 0, std::int64_t batches = 1) {
  host_plan p;
  p.blocks = (rows + rows_per_block - 1) / rows_per_block;
  if (slices <= 0) {
    const std::int64_t want = tasks_per_thread * std::max(threads, 1);
    const std::int64_t blocks = p.blocks * std::max<std::int64_t>(batches, 1);
    slices = 1;
    if (threads > 1 && p.blocks > 0 && blocks < want)
      slices = std::min((want + blocks - 1) / blocks, cols / min_slice_terms);
  }
  slices = std::clamp<std::int64_t>(slices, 1, std::max<std::int64_t>(cols, 1));
  p.slice_terms = (cols + slices - 1) / slices;
  p.slices = p.slice_terms > 0 ? (cols + p.slice_terms - 1) / p.slice_terms : 1;
  return p;
}

// A grow-only buffer per calling thread for the slices' accumulators: a
// sequence of calls allocates only when one needs more than all before it
// (examples/embedded checks that a time loop allocates nothing).
struct host_scratch {
  static constexpr std::size_t align = 256;
  void* data = nullptr;
  std::size_t bytes = 0;
  host_scratch() = default;
  host_scratch(const host_scratch&) = delete;
  host_scratch& operator=(const host_scratch&) = delete;
  ~host_scratch() {
    if (data) ::operator delete(data, std::align_val_t(align));
  }
  void* get(std::size_t n) {
    if (n > bytes) {
      if (data) ::operator delete(data, std::align_val_t(align));
      data = nullptr;
      bytes = 0;
      data = ::operator new(n, std::align_val_t(align));
      bytes = n;
    }
    return data;
  }
};
inline host_scratch& thread_scratch() {
  static thread_local host_scratch s;
  return s;
}

// How the plan runs: on Kokkos::DefaultHostExecutionSpace, or (serial = true)
// in plain loops on the calling thread, in the same task order. tests/unit's
// threads test compares the two; `slices` forces the slicing (see plan_host).
struct host_exec {
  std::int64_t slices = 0;
  bool serial = false;
};

// Task t = (slice, block) = (t / blocks, t % blocks): the partial accumulators
// of the block's packs over the slice, into slots[(slice * blocks + block) * U + u].
template <class Part>
struct slice_accumulate {
  using K = typename Part::K;
  K kernel;
  typename Part::slot* slots;
  host_plan plan;
  void operator()(const std::int64_t t) const {
    const std::int64_t block = t % plan.blocks, slice = t / plan.blocks;
    const std::int64_t r0 = slice * plan.slice_terms;
    const std::int64_t r1 = std::min(kernel.cols, r0 + plan.slice_terms);
    typename Part::acc_type acc[K::U];
    int valid[K::U];
    kernel.accumulate(block, acc, valid, r0, r1);
    for (int u = 0; u < K::U; ++u) {
      typename Part::slot& s = slots[(slice * plan.blocks + block) * K::U + u];
      s.acc = acc[u];
      s.terms = r1 - r0;
    }
  }
};

// Pack p: its slices combined in axis order, then finalized into its rows.
template <class Part, class Red, class Out>
struct slice_finalize {
  using K = typename Part::K;
  typename Part::slot* slots;
  host_plan plan;
  Out* out;
  std::int64_t rows;
  void operator()(const std::int64_t p) const {
    const std::int64_t packs = plan.blocks * K::U;
    typename Part::slot s = slots[p];
    for (std::int64_t c = 1; c < plan.slices; ++c) Part::combine(s, slots[c * packs + p]);
    const std::int64_t row0 = p * K::L;
    const int valid = int(std::clamp<std::int64_t>(rows - row0, 0, K::L));
    for (int l = 0; l < valid; ++l)
      kops::detail::store_row<typename Part::op, typename Part::math, Red::dim>(s.acc, l, out + (row0 + l) * out_stride_v<Red>);
  }
};

// Block-sparse form (core/block_sparsity.hpp): task t is a block of
// K::rows_per_block rows of one row block of s, over that block's intervals.
// task_end[k]: the tasks of row blocks 0 .. k.
template <class K>
struct ranged_rows {
  K kernel;
  block_sparsity s;
  const std::int64_t* task_end;
  void operator()(const std::int64_t t) const {
    const std::int64_t k = std::upper_bound(task_end, task_end + s.row_blocks, t) - task_end;
    const std::int64_t row0 = s.rows[k].begin + (t - (k > 0 ? task_end[k - 1] : 0)) * K::rows_per_block;
    const std::int64_t first = k > 0 ? s.slices[k - 1] : 0;
    typename K::Acc acc[K::U];
    int valid[K::U];
    kernel.accumulate_ranges(row0, s.rows[k].end, acc, valid, s.reduced + first, s.slices[k] - first);
    kernel.write(row0, acc, valid);
  }
};

// The tasks of a ranged pass (ranged_rows): task_end[k] for every row block
// k of s, in the calling thread's scratch; returns their number.
inline std::int64_t ranged_task_ends(const block_sparsity& s, std::int64_t rows_per_block,
                                     std::int64_t*& task_end) {
  task_end = static_cast<std::int64_t*>(thread_scratch().get(std::size_t(s.row_blocks) * sizeof(std::int64_t)));
  std::int64_t tasks = 0;
  for (std::int64_t k = 0; k < s.row_blocks; ++k) {
    tasks += (s.rows[k].end - s.rows[k].begin + rows_per_block - 1) / rows_per_block;
    task_end[k] = tasks;
  }
  return tasks;
}

// A ranged pass: the rows in no block get the empty value (on the calling
// thread: a write per row), then one task per block of rows of a row block.
// The reduced axis is never sliced here: a structure has as many row blocks
// as it has clusters, which keeps the threads busy where it pays off.
template <class K>
void run_ranged(const K& kernel, const block_sparsity& s, bool serial) {
  write_gaps(kernel, s);
  if (s.row_blocks == 0) return;
  std::int64_t* task_end = nullptr;
  const std::int64_t tasks = ranged_task_ends(s, K::rows_per_block, task_end);
  host_for(serial, host_loop::ranges, tasks, ranged_rows<K>{kernel, s, task_end});
}

// Batch b of a batched call (core/batch.hpp): a copy of `kernel` reading batch
// b's arguments (their pointers put into `a`, which must outlive the copy)
// and writing batch b's output rows.
template <class K, class T, int NA>
K batch_view(const K& kernel, const kops::detail::pass_extent& e, std::int64_t b, const T* (&a)[NA]) {
  K kb = kernel;
  for (int k = 0; k < NA; ++k) a[k] = kernel.args[k] + b * e.batch->stride[k];
  kb.args = a;
  kb.out = kernel.out + b * e.out_stride;
  return kb;
}

// Every batch of a pass in one parallel loop (core/batch.hpp): task t is task
// t % tasks of batch t / tasks, with the plan of one batch; with slices, each
// batch's partial accumulators have their own slots.
template <class Part, class Red, int NA, class T, class Out>
void run_batched(const typename Part::K& kernel, const kops::detail::pass_extent& e, const host_plan& plan,
                 bool serial) {
  using K = typename Part::K;
  const std::int64_t B = e.batch->count;
  if (plan.slices == 1) {
    host_for(serial, host_loop::rows, B * plan.blocks, [&](const std::int64_t t) {
      const T* a[NA];
      batch_view(kernel, e, t / plan.blocks, a)(t % plan.blocks);
    });
    return;
  }
  const std::int64_t packs = plan.blocks * K::U, per_batch = plan.slices * packs;
  auto* slots = static_cast<typename Part::slot*>(
      thread_scratch().get(std::size_t(B * per_batch) * sizeof(typename Part::slot)));
  const std::int64_t tasks = plan.blocks * plan.slices;
  host_for(serial, host_loop::slices, B * tasks, [&](const std::int64_t t) {
    const std::int64_t b = t / tasks;
    const T* a[NA];
    slice_accumulate<Part>{batch_view(kernel, e, b, a), slots + b * per_batch, plan}(t % tasks);
  });
  const std::int64_t row_packs = (e.rows + K::L - 1) / K::L;
  host_for(serial, host_loop::combine, B * row_packs, [&](const std::int64_t p) {
    const std::int64_t b = p / row_packs;
    slice_finalize<Part, Red, Out>{slots + b * per_batch, plan, kernel.out + b * e.out_stride, e.rows}(p % row_packs);
  });
}

// A ranged pass of every batch (the same structure for each): the gaps of
// each batch, then one parallel loop over the tasks of every batch.
template <class K, int NA, class T>
void run_ranged_batched(const K& kernel, const kops::detail::pass_extent& e, bool serial) {
  const block_sparsity& s = *e.sparsity;
  const std::int64_t B = e.batch->count;
  for (std::int64_t b = 0; b < B; ++b) {
    const T* a[NA];
    write_gaps(batch_view(kernel, e, b, a), s);
  }
  if (s.row_blocks == 0) return;
  std::int64_t* task_end = nullptr;
  const std::int64_t tasks = ranged_task_ends(s, K::rows_per_block, task_end);
  host_for(serial, host_loop::ranges, B * tasks, [&](const std::int64_t t) {
    const T* a[NA];
    ranged_rows<K>{batch_view(kernel, e, t / tasks, a), s, task_end}(t % tasks);
  });
}

// A temporary of n elements of T in host memory, for the length of f(be, buffer)
// (the backends whose temporaries are host arrays: this one and kops::mpi's).
template <class T, class Be, class F>
bool host_temporary(Be& be, std::size_t n, F&& f) {
  std::vector<T> buffer(n);
  return f(be, buffer.data());
}

// The CPU backend as the front end (detail/dispatch.hpp) sees it: one pass
// on the host threads (or serially, see host_exec), temporaries in host memory.
// Sliced = false compiles no sliced loops (slice_accumulate, slice_finalize):
// kops::kokkos::eval's backend where the host space is Kokkos::Serial, on which
// plan_host never slices (one thread; only tests force slices, through
// eval_impl's host_backend). That is about a third of each reduction's code.
template <bool Sliced>
struct basic_host_backend {
  using option_types = type_list<block_sparsity, batch>;
  // Wide outputs in passes of 32 components (detail/output_chunks.hpp).
  static constexpr int output_chunk_min_dim = KOPS_CPU_OUTPUT_CHUNK_MIN_DIM;
  static constexpr int output_chunk = 32;
  const char* where;
  host_exec exec{};

  basic_host_backend(const char* w, const kops::detail::option_set<block_sparsity, batch>&) : where(w) {}
  basic_host_backend(const char* w, const host_exec& e) : where(w), exec(e) {}

  template <class T, class F>
  bool with_temporary(std::size_t n, F&& f) {
    return host_temporary<T>(*this, n, f);
  }

  // True when a pass may run: serially, or with Kokkos initialized (else reported).
  bool kokkos_ready() const {
    return exec.serial || Kokkos::is_initialized() ||
           kops::detail::fail("%s: Kokkos is not initialized (create a Kokkos::ScopeGuard "
                              "or call Kokkos::initialize first)",
                              where);
  }

  template <class Pol, class Red, class T, class Out>
  bool launch(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    if (!kokkos_ready()) return false;
    using Part = partial<Red, T, Out, Pol>;
    using K = typename Part::K;
    // A serial run plans for the threads a parallel one would have (same tasks).
    const int threads = Kokkos::is_initialized() ? int(host_space().concurrency()) : 1;
    const host_plan plan = plan_host(e.rows, K::rows_per_block, e.cols, threads, exec.slices);
    const K kernel{ptrs, out, e.rows, e.cols};
    if (!Sliced || plan.slices == 1) {
      host_for(exec.serial, host_loop::rows, plan.blocks, kernel);
    } else if constexpr (Sliced) {
      static_assert(alignof(typename Part::slot) <= host_scratch::align,
                    "kops: internal error, partial accumulators more aligned than the scratch buffer");
      const std::int64_t packs = plan.blocks * K::U;
      auto* slots = static_cast<typename Part::slot*>(
          thread_scratch().get(std::size_t(plan.slices * packs) * sizeof(typename Part::slot)));
      host_for(exec.serial, host_loop::slices, plan.blocks * plan.slices,
               slice_accumulate<Part>{kernel, slots, plan});
      host_for(exec.serial, host_loop::combine, (e.rows + K::L - 1) / K::L,
               slice_finalize<Part, Red, Out>{slots, plan, out, e.rows});
    }
    return true;
  }

  // One block-sparse pass (e.sparsity: checked, host memory).
  template <class Pol, class Red, class T, class Out>
  bool launch_ranged(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    if (!kokkos_ready()) return false;
    using K = block_kernel<Red, T, Out, Pol>;
    run_ranged(K{ptrs, out, e.rows, e.cols}, *e.sparsity, exec.serial);
    return true;
  }

  // Every batch of a pass (e.batch), dense or block-sparse, in one parallel loop.
  template <class Pol, class Red, bool Ranged, class T, class Out>
  bool launch_batched(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    if (!kokkos_ready()) return false;
    constexpr int NA = Red::nargs > 0 ? Red::nargs : 1;
    if constexpr (Ranged) {
      using K = block_kernel<Red, T, Out, Pol>;
      run_ranged_batched<K, NA, T>(K{ptrs, out, e.rows, e.cols}, e, exec.serial);
    } else {
      using Part = partial<Red, T, Out, Pol>;
      using K = typename Part::K;
      static_assert(alignof(typename Part::slot) <= host_scratch::align,
                    "kops: internal error, partial accumulators more aligned than the scratch buffer");
      const int threads = Kokkos::is_initialized() ? int(host_space().concurrency()) : 1;
      const host_plan plan = plan_host(e.rows, K::rows_per_block, e.cols, threads, exec.slices, e.batch->count);
      run_batched<Part, Red, NA, T, Out>(K{ptrs, out, e.rows, e.cols}, e, plan, exec.serial);
    }
    return true;
  }

  // out[i] = sum over b of each[b * n + i], b in order (batch_output::sum),
  // in T (the compute type), rounded once to Out.
  template <class T, class Out>
  bool sum_batches(const T* each, std::int64_t B, std::int64_t n, Out* out) {
    constexpr std::int64_t chunk = 4096;
    host_for(exec.serial, host_loop::combine, (n + chunk - 1) / chunk, [&](const std::int64_t c) {
      const std::int64_t i1 = std::min(n, (c + 1) * chunk);
      for (std::int64_t i = c * chunk; i < i1; ++i) {
        T s = each[i];
        for (std::int64_t b = 1; b < B; ++b) s += each[b * n + i];
        out[i] = Out(s);
      }
    });
    return true;
  }
};

// Every loop, sliced or not (tests, kops::mpi).
using host_backend = basic_host_backend<true>;
// kops::kokkos::eval's: no sliced loops on a Serial host space.
using eval_backend = basic_host_backend<!host_space_serial>;

// eval without the public entry's compile-time checks; exec says how to run
// (tests/unit's threads and accuracy tests). False: bad input, reported
// (kops::detail::fail) and nothing written.
template <class Pol, class Red, class Out, class T, class... Args>
bool eval_impl(const host_exec& exec, std::int64_t M, std::int64_t N, Out* out, const Args*... args) {
  constexpr const char* where = "kops::kokkos::eval";
  const T* const ptrs[sizeof...(Args) + 1] = {args..., nullptr};  // + 1: no empty array
  if (!kops::detail::check_call_arguments<Red>(where, M, N, out, ptrs)) return false;
  host_backend be(where, exec);
  return kops::detail::run_passes<Pol, Red>(be, M, N, out, ptrs);
}

} // namespace kops::kokkos::detail

namespace kops::kokkos {

/// kops::kokkos::eval: the CPU backend, on host pointers.
/// ```text
///   x:(M, Dx) y:(N, Dy) params:(Dp)  ->  out:(rows, red.dim), rows = M (axis_j) or N (axis_i)
/// ```
/// out:(rows, red.dim), rows = M for axis_j and N for axis_i; args in variable-index
/// order, each an (M, D) / (N, D) / (D) array of the same element type T
/// (float, double, kops::half or kops::bfloat16; 16-bit arrays are evaluated
/// in float, and the output is then float* or the 16-bit type: core/half.hpp).
/// Arg-type reductions write std::int64_t indices.
/// Policy: compile-time policies in any order (core/policy.hpp): precision,
/// sum_scheme, dtype_acc; e.g. eval<kops::precision::fast>(...),
/// eval<kops::sum_scheme::kahan, kops::dtype_acc::float64>(...).
/// Runs on Kokkos::DefaultHostExecutionSpace with all its threads: over blocks
/// of output rows, and over slices of the reduced axis too when the rows are
/// too few to occupy every thread (docs/backends.md).
/// After the pointers, a kops::block_sparsity (host arrays) makes the call
/// block-sparse: each block of output rows reduces over its intervals of the
/// reduced axis only, rows in no block get the reduction's empty value
/// (docs/block_sparsity.md).
/// A kops::batch{B} after the pointers runs B problems of the same M, N in one
/// parallel loop: arguments marked kops::per_batch(ptr) hold one array per
/// batch, the others are shared; out is (B, rows, red.dim), or (rows, red.dim)
/// with kops::batch_output::sum (core/batch.hpp, docs/concepts.md "Batches").
/// Kokkos must be initialised (a Kokkos::ScopeGuard in main); that and bad input
/// (negative sizes, a null pointer that would be read) throw kops::error — or,
/// in a build without exceptions, call the error handler (kops::set_error_handler)
/// and return with `out` untouched.
template <auto... Policy, ReductionType Red, class Out, class... Args>
void eval(Red red, std::int64_t M, std::int64_t N, Out* out, Args... args) {
  kops::detail::eval_call<detail::eval_backend, Policy...>("kops::kokkos::eval", red, M, N, out, args...);
}

/// The range form (detail/sized.hpp): eval(red, out, x, y, ...[, options])
/// with std::span, std::vector, std::array or Kokkos::View (rank 1 or 2,
/// LayoutRight, host space) in place of (M, N, out, pointers): M and N deduced,
/// every range's size checked (a kops::error naming the argument, the size
/// expected and the size given), then the pointer form above.
template <auto... Policy, ReductionType Red, kops::detail::SizedArgument O, class... Rest>
void eval(Red red, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<Red, false>(
      "kops::kokkos::eval", -1, -1, nullptr, [&](auto... a) { eval<Policy...>(red, a...); }, out, rest...);
}
/// The range form with M and N given (needed only where a formula reads no
/// variable of an axis whose rows the output does not have): checked likewise.
template <auto... Policy, ReductionType Red, kops::detail::SizedArgument O, class... Rest>
void eval(Red red, std::int64_t M, std::int64_t N, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<Red, true>(
      "kops::kokkos::eval", M, N, nullptr, [&](auto... a) { eval<Policy...>(red, a...); }, out, rest...);
}

/// Anything but a reduction first: one error in kops's words (a formula needs
/// a reduction around it; detail/dispatch.hpp, check_is_reduction).
template <auto... Policy, class F, class... Rest>
  requires(!Evaluable<F>)
void eval(F, const Rest&...) {
  (void)kops::detail::check_is_reduction<F>();
}

} // namespace kops::kokkos
