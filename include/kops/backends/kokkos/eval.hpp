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
#include <string>
#include <type_traits>
#include <vector>

#include <kops/backends/kokkos/block_kernel.hpp>
#include <kops/backends/kokkos/host_space.hpp>
#include <kops/backends/kokkos/partial.hpp>
#include <kops/core/error.hpp>
#include <kops/core/policy.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/reduction.hpp>

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
inline host_plan plan_host(std::int64_t rows, std::int64_t rows_per_block, std::int64_t cols, int threads,
                           std::int64_t slices = 0) {
  host_plan p;
  p.blocks = (rows + rows_per_block - 1) / rows_per_block;
  if (slices <= 0) {
    const std::int64_t want = tasks_per_thread * std::max(threads, 1);
    slices = 1;
    if (threads > 1 && p.blocks > 0 && p.blocks < want) slices = std::min((want + p.blocks - 1) / p.blocks, cols / min_slice_terms);
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
      Part::op::template finalize<typename Part::math>(s.acc, l, out + (row0 + l) * Red::dim);
  }
};

// eval without the public entry's policy checks; exec says how to run.
// False: bad input, reported (kops::detail::fail) and nothing written.
template <class Pol, class Red, class Out, class T, class... Args>
bool eval_impl(const host_exec& exec, std::int64_t M, std::int64_t N, Out* out, const Args*... args) {
  const T* const ptrs[sizeof...(Args) + 1] = {args..., nullptr};  // + 1: no empty array
  if (!kops::detail::check_arguments<Red>("kops::kokkos::eval", M, N, out, ptrs)) return false;
  if (!kops::detail::check_no_overlap<Red>("kops::kokkos::eval", M, N, out, ptrs)) return false;

  if constexpr (is_chained_v<Red>) {
    // Two passes (reductions/chained.hpp): First into a temporary, then Second reading it.
    using First = typename Red::first;
    std::vector<T> buffer(std::size_t((First::row_cat == category::i ? M : N) * First::dim));
    return eval_impl<Pol, First, T, T>(exec, M, N, buffer.data(), args...) &&
           eval_impl<Pol, typename Red::second, Out, T>(exec, M, N, out, args..., static_cast<const T*>(buffer.data()));
  } else {
    const std::int64_t rows = Red::row_cat == category::i ? M : N;
    const std::int64_t cols = Red::no_work ? 0 : Red::row_cat == category::i ? N : M;
    if (rows == 0) return true;
    if (!exec.serial && !Kokkos::is_initialized())
      return kops::detail::fail("kops::kokkos::eval: Kokkos is not initialized (create a Kokkos::ScopeGuard "
                                "or call Kokkos::initialize first)");
    using Part = partial<Red, T, Out, Pol>;
    using K = typename Part::K;
    // A serial run plans for the threads a parallel one would have (same tasks).
    const int threads = Kokkos::is_initialized() ? int(host_space().concurrency()) : 1;
    const host_plan plan = plan_host(rows, K::rows_per_block, cols, threads, exec.slices);
    const K kernel{ptrs, out, rows, cols};
    if (plan.slices == 1) {
      host_for(exec.serial, host_loop::rows, plan.blocks, kernel);
    } else {
      static_assert(alignof(typename Part::slot) <= host_scratch::align,
                    "kops: internal error, partial accumulators more aligned than the scratch buffer");
      const std::int64_t packs = plan.blocks * K::U;
      auto* slots = static_cast<typename Part::slot*>(
          thread_scratch().get(std::size_t(plan.slices * packs) * sizeof(typename Part::slot)));
      host_for(exec.serial, host_loop::slices, plan.blocks * plan.slices,
               slice_accumulate<Part>{kernel, slots, plan});
      if (!exec.serial) host_fence();
      host_for(exec.serial, host_loop::combine, (rows + K::L - 1) / K::L,
               slice_finalize<Part, Red, Out>{slots, plan, out, rows});
    }
    if (!exec.serial) host_fence();
    return true;
  }
}

} // namespace kops::kokkos::detail

namespace kops::kokkos {

/// kops::kokkos::eval: the CPU backend, on host pointers.
/// ```text
///   x:(M, Dx) y:(N, Dy) params:(Dp)  ->  out:(rows, red.dim), rows = M (axis_j) or N (axis_i)
/// ```
/// out:(rows, red.dim), rows = M for axis_j and N for axis_i; args in variable-index
/// order, each an (M, D) / (N, D) / (D) array of the same element type T
/// (float or double). Arg-type reductions write std::int64_t indices.
/// Policy: compile-time policies in any order (core/policy.hpp): precision,
/// sum_scheme, dtype_acc; e.g. eval<kops::precision::fast>(...),
/// eval<kops::sum_scheme::kahan, kops::dtype_acc::float64>(...).
/// Runs on Kokkos::DefaultHostExecutionSpace with all its threads: over blocks
/// of output rows, and over slices of the reduced axis too when the rows are
/// too few to occupy every thread (docs/backends.md).
/// Kokkos must be initialised (a Kokkos::ScopeGuard in main); that and bad input
/// (negative sizes, a null pointer that would be read) throw kops::error — or,
/// in a build without exceptions, call the error handler (kops::set_error_handler)
/// and return with `out` untouched.
template <auto... Policy, ReductionType Red, class Out, class... Args>
void eval(Red, std::int64_t M, std::int64_t N, Out* out, const Args*... args) {
  static_assert(kops::detail::valid_policies_v<Policy...>,
                "kops::kokkos::eval: the template arguments are policies, at most one of each kind: "
                "a kops::precision, a kops::sum_scheme, a kops::dtype_acc");
  using T = kops::detail::call_element_t<Out, Args...>;
  static_assert(sizeof...(Args) == Red::nargs,
                "kops::kokkos::eval: pass exactly one pointer per argument index of the formula "
                "(0 .. max index), in index order");
  static_assert(std::is_same_v<Out, typename Red::op::template out_t<T>>,
                "kops::kokkos::eval: wrong output pointer type (value reductions write T*, "
                "index reductions such as argmin write std::int64_t*, value-and-index reductions such as "
                "min_argmin write kops::value_index<T>*)");
  (void)detail::eval_impl<kops::detail::policy_of_t<Policy...>, Red, Out, T>(detail::host_exec{}, M, N, out, args...);
}

} // namespace kops::kokkos
