// kops::cuda::eval: the GPU backend's entry on device pointers, and the
// backend the eval front end (detail/dispatch.hpp) runs its passes on.
// device_backend models the whole protocol: a dense pass is one launch of
// GPU_1D or GPU_2D plus its combine (launch.hpp, gpu_1d.hpp, gpu_2d.hpp), a
// block-sparse pass the ranged kernels (ranges.hpp), a batched pass one launch
// with the batch on the grid's z axis; its temporaries are stream-ordered
// device buffers, wide outputs run in passes of 32 components, and a
// structure in device memory is copied to the host for its checks
// (host_sparsity). Everything goes on opts.stream and opts.device
// (options.hpp); the entry itself is one line into eval_call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/launch.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/backends/cuda/pointers.hpp>
#include <kops/backends/cuda/ranges.hpp>
#include <kops/backends/cuda/resident_sparsity.hpp>
#include <kops/core/batch.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/core/policy.hpp>
#include <kops/core/precision.hpp>
#include <kops/core/scalar_math.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/detail/sized.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::cuda {
namespace detail {

// Whether the tensor-core kernel of TK runs on the current device: compute
// capability 8.0 or more, and the kernel compiled for 8.0 or more (a build for
// an older architecture, run on a newer device through its PTX, has no
// mma.sync: tensor_core.hpp's MMAs trap there). Asked once per device and TK.
template <class TK>
[[nodiscard]] bool tc_runs_here(const char* where, bool& yes) {
  static int cache[cached_devices];  // 1 + yes, 0 = not yet known
  int d = 0;
  if (!current_device(where, d)) return false;
  const bool cached = d >= 0 && d < cached_devices;
  if (cached) {
    if (const int w = __atomic_load_n(&cache[d], __ATOMIC_RELAXED); w != 0) {
      yes = w == 2;
      return true;
    }
  }
  int major = 0;
  if (!check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d), where,
             "querying the compute capability"))
    return false;
  cudaFuncAttributes attr{};
  if (!check(cudaFuncGetAttributes(&attr, reduce_kernel<TK>), where, "querying the tensor-core kernel's architecture"))
    return false;
  yes = major >= 8 && attr.ptxVersion >= 80;
  if (cached) __atomic_store_n(&cache[d], yes ? 2 : 1, __ATOMIC_RELAXED);
  return true;
}

// The GPU backend as the front end (detail/dispatch.hpp) sees it: one pass
// is one launch (GPU_1D, or GPU_2D and its combine) on opts.stream and
// opts.device; a temporary is a stream-ordered device buffer. Tune: the dense
// kernels' tuning (kernel_traits.hpp; default_tuning but in eval_tuned);
// block-sparse and batched passes keep the default (ranges.hpp: one row per
// thread; batched variants are not tested).
template <class Tune = default_tuning>
struct basic_device_backend {
  using option_types = type_list<options, block_sparsity, batch>;
  // Wide outputs in passes of 32 components (detail/output_chunks.hpp).
  static constexpr int output_chunk_min_dim = KOPS_GPU_OUTPUT_CHUNK_MIN_DIM;
  static constexpr int output_chunk = 32;
  const char* where;
  options opts;

  basic_device_backend(const char* w, const kops::detail::option_set<options, block_sparsity, batch>& o)
      : where(w), opts(kops::detail::get_option<options>(o)) {}
  basic_device_backend(const char* w, const options& o) : where(w), opts(o) {}

  // The user's pointers reach opts.device (pointers.hpp), before any work.
  template <class Red, class T, class Out>
  bool check_pointers(std::int64_t M, std::int64_t N, const Out* out, const T* const* ptrs) {
    device_guard guard(opts.device, where);
    return guard.ok() && check_device_pointers<Red>(where, M, N, out, ptrs);
  }

  // A block-sparsity structure is in device memory: a resident_sparsity's
  // (resident_sparsity.hpp) has its host copy already; any other is copied to
  // the host (for its checks and the tasks) on opts.stream, on opts.device,
  // which a capture cannot take.
  bool host_sparsity(const block_sparsity& s, kops::detail::sparsity_copy& host, block_sparsity& view) {
    if (const kops::cuda::resident_sparsity* r = find_resident(s)) {
      view = *r->host_view_of(s);
      return true;
    }
    device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    if (!refuse_capture(opts.stream, where, "a block-sparse call copies its structure to the host and waits for it",
                        ranged_capture_instead))
      return false;
    return copy_sparsity_to_host(s, opts.stream, where, host, view);
  }

  // The transpose of a resident structure's host copy s, kept with it (the
  // passes on the other axis: detail/dispatch.hpp), or null.
  const block_sparsity* kept_transpose(const block_sparsity& s) const {
    const kops::cuda::resident_sparsity* r = find_resident(s);
    return r != nullptr ? r->transpose_of(s) : nullptr;
  }

  // The two passes of a Chained reduction share the buffer, on opts.device
  // (set once here: `inner` leaves the device as it finds it).
  template <class T, class F>
  bool with_temporary(std::size_t n, F&& f) {
    device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    device_facts facts;
    if (!current_facts(where, facts)) return false;
    stream_buffer buffer(n * sizeof(T), opts.stream, facts.memory_pools, where,
                         "the first pass of a two-pass gradient");
    if (!buffer.ok()) return false;
    basic_device_backend inner(where, options{opts.stream, opts.scheme, -1, opts.gpu_2d_chunk});
    if (!f(inner, buffer.get<T>())) return false;
    return buffer.release(where, "the first pass of a two-pass gradient");
  }

  template <class Pol, class Red, class T, class Out>
  bool launch(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    return launch_pass<Pol, Red, false>(e, out, ptrs);
  }

  // One block-sparse pass (ranges.hpp); e.sparsity: checked, host memory.
  template <class Pol, class Red, class T, class Out>
  bool launch_ranged(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    return launch_pass<Pol, Red, true>(e, out, ptrs);
  }

  // Every batch of a pass (e.batch) in one launch: the batch on the grid's z axis.
  template <class Pol, class Red, bool Ranged, class T, class Out>
  bool launch_batched(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    return launch_pass<Pol, Red, Ranged, true>(e, out, ptrs);
  }

  // out[i] = the sum over b of each[b * n + i] (batch_output::sum), on opts.stream.
  template <class T, class Out>
  bool sum_batches(const T* each, std::int64_t B, std::int64_t n, Out* out) {
    device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    return launch_sum_batches(each, B, n, out, opts.stream, where);
  }

  template <class Pol, class Red, bool Ranged, bool Batched = false, class T, class Out>
  bool launch_pass(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    // 16-bit arrays: kernel_traits.hpp, stored_io
    using K = pass_traits_t<Pol, Red, T, Out, std::conditional_t<Ranged || Batched, default_tuning, Tune>>;
    typename K::args_type a{};
    for (int k = 0; k < Red::nargs; ++k) a.p[k] = ptrs[k];
    typename K::batch_type s{};
    if constexpr (Batched) {
      for (int k = 0; k < Red::nargs; ++k) s.arg[k] = e.batch->stride[k];
      s.count = e.batch->count;
      s.out = e.out_stride;
    }
    device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    if constexpr (Ranged) {
      return launch_ranged_pass<K, Batched>(a, *e.sparsity, e.rows, out, opts, where, &s);
    } else {
      // The tensor-core kernel (tensor_core.hpp) where the policy allows, the
      // formula has its form and the device has mma.sync (sm_80+).
      if constexpr (Pol::tc == kops::tensor_cores::automatic && tc_choice<K, Pol::prec>::ok) {
        using TK = tc_traits<K, Pol::prec>;
        bool here = false;
        if (!tc_runs_here<TK>(where, here)) return false;
        if (here) return kops::cuda::detail::launch<TK, Batched>(a, e.rows, e.cols, out, opts, where, &s);
      }
      return kops::cuda::detail::launch<K, Batched>(a, e.rows, e.cols, out, opts, where, &s);
    }
  }
};
using device_backend = basic_device_backend<>;

// Checks, then runs on opts.device (if set). `ptrs`: Red::nargs device pointers.
// Pol: kops::policy<precision, sum_scheme, dtype_acc> (core/policy.hpp).
// True when queued. Bad input or a failing CUDA call throws; without
// exceptions it is reported and run returns false at once, `out` untouched
// unless a kernel writing it was already queued (the second pass's failure).
template <class Pol, class Red, class T, class Out>
[[nodiscard]] bool run(std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs, const options& opts,
                       const char* where) {
  if (!kops::detail::check_call_arguments<Red>(where, M, N, out, ptrs)) return false;
  device_backend be(where, opts);
  return kops::detail::run_passes<Pol, Red>(be, M, N, out, ptrs);
}

} // namespace detail

/// kops::cuda::eval: the GPU backend, on device pointers.
///
/// ```text
///   eval<Pol...>(red, M, N, out, args...)          default stream, automatic scheme, current device
///   eval<Pol...>(red, M, N, out, args..., opts)    opts: kops::cuda::options (stream, scheme, device)
/// ```
///
/// ```text
///   x:(M, Dx) y:(N, Dy) params:(Dp)  ->  out:(rows, red.dim), rows = M (axis_j) or N (axis_i)
/// ```
///
/// All pointers are device pointers (or managed memory), in variable-index
/// order, of one element type T (float, double, kops::half or kops::bfloat16,
/// or CUDA's __half / __nv_bfloat16 when <cuda_fp16.h> / <cuda_bf16.h> come
/// before kops; 16-bit arrays are evaluated in float, and the output is then
/// float* or the 16-bit type: core/half.hpp); arg-type reductions write
/// std::int64_t indices. Pol...: compile-time policies in any order
/// (core/policy.hpp): the precision (accurate uses CUDA's expf/logf/...
/// (kops::scalar_math), fast the intrinsics of cuda/fast_math.hpp), the
/// summation scheme and the accumulator type of sums.
///
/// Asynchronous, like any kernel launch: the call queues its kernels (and, for
/// GPU_2D, a stream-ordered scratch allocation and free) on opts.stream and
/// returns; `out` is ready once the stream is synchronised, and the inputs must
/// stay valid until then. Launch errors throw kops::cuda_error at once; faults
/// inside the kernels surface at the next synchronising CUDA call, as usual.
/// Bad input (negative sizes, null pointers, an output overlapping an input,
/// an array in host memory the GPU cannot reach: pointers.hpp) throws
/// kops::error. Without exceptions (-fno-exceptions, KOPS_NO_EXCEPTIONS)
/// both go to the kops::set_error_handler handler instead and eval returns at
/// once: after bad input nothing is queued and `out` is untouched.
///
/// out:(rows, red.dim) on the device; args: device pointers in variable-index
/// order (arrays decay to pointers, as for the CPU backend), optionally
/// followed by one kops::cuda::options and/or one kops::block_sparsity (its
/// arrays in device memory). A block-sparse call copies the structure to the
/// host for its checks and tasks: it synchronises opts.stream (so it cannot
/// be captured in a CUDA graph) before queuing its kernel; a
/// kops::cuda::resident_sparsity's sparsity() is checked on the copy it keeps
/// and runs on the task lists it keeps on the device: no synchronisation, so
/// it can be captured (resident_sparsity.hpp, docs/block_sparsity.md).
/// A kops::batch{B} runs B problems of the same M, N in one launch (the batch
/// on the grid's z axis); arguments marked kops::per_batch(ptr) hold one array
/// per batch, the others are shared (core/batch.hpp, docs/concepts.md "Batches").
template <auto... Policy, ReductionType Red, class Out, class... Rest>
void eval(Red red, std::int64_t M, std::int64_t N, Out* out, Rest... rest) {
  kops::detail::eval_call<detail::device_backend, Policy...>("kops::cuda::eval", red, M, N, out, rest...);
}

/// The range form (detail/sized.hpp): eval(red, out, x, y, ...[, options])
/// with std::span (of device memory) in place of (M, N, out, pointers): M and
/// N deduced, every range's size checked (a kops::error naming the argument,
/// the size expected and the size given), then the pointer form above.
template <auto... Policy, ReductionType Red, kops::detail::SizedArgument O, class... Rest>
void eval(Red red, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<Red, false>(
      "kops::cuda::eval", -1, -1, nullptr, [&](auto... a) { eval<Policy...>(red, a...); }, out, rest...);
}
/// The range form with M and N given: checked likewise.
template <auto... Policy, ReductionType Red, kops::detail::SizedArgument O, class... Rest>
void eval(Red red, std::int64_t M, std::int64_t N, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<Red, true>(
      "kops::cuda::eval", M, N, nullptr, [&](auto... a) { eval<Policy...>(red, a...); }, out, rest...);
}

/// Anything but a reduction first: one error in kops's words (a formula needs
/// a reduction around it; detail/dispatch.hpp, check_is_reduction).
template <auto... Policy, class F, class... Rest>
  requires(!Evaluable<F>)
void eval(F, const Rest&...) {
  (void)kops::detail::check_is_reduction<F>();
}

namespace detail {
// eval with the dense kernels tuned by Tune (kernel_traits.hpp: tuning<R, B>),
// not part of the public API: the variants bench/sass and the scoreboard
// (bench/peer, kops_peer --variants) measure, and their tests.
template <class Tune, auto... Policy, ReductionType Red, class Out, class... Rest>
void eval_tuned(Red red, std::int64_t M, std::int64_t N, Out* out, Rest... rest) {
  kops::detail::eval_call<basic_device_backend<Tune>, Policy...>("kops::cuda::eval", red, M, N, out, rest...);
}
} // namespace detail

} // namespace kops::cuda
