// kops::cuda::eval_host: the GPU backend on host arrays. host_copy_backend is
// an own-call backend of the eval front end (detail/dispatch.hpp): its call
// checks a block-sparsity structure where it is (host memory, like the
// arguments), copies the arguments the reduction reads to stream-ordered
// device buffers (once per batch for those marked kops::per_batch), runs the
// passes on device_backend (eval.hpp), copies the output back and
// synchronises the stream, so the call is synchronous.
// copy_arguments_to_device is shared with kops::cuda::solve_host (solve.hpp).
// With options::devices (two or more GPUs), the output rows are split across
// them when there are at least 256 per device: each device runs this call on
// its slice of the rows, in a host thread of its own, on a stream of its own
// (split_rows); fewer rows split the reduced axis instead (streamed.hpp).
// Arguments and output larger than 3/4 of the device memory the call may use
// (options::max_device_bytes) are streamed through it (streamed.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/eval.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/backends/cuda/streamed.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/core/batch.hpp>
#include <kops/core/block_sparsity.hpp>
#include <kops/detail/dispatch.hpp>
#include <kops/detail/sized.hpp>

namespace kops::cuda {
namespace detail {

// Copies the arguments Red reads from `host` into `buffers` (stream-ordered
// device buffers, one per argument index; unused slots and empty arrays stay
// empty) and their device pointers into `device`. False after a reported
// failure (only without exceptions): nothing after it is queued.
// batch: with the strides of a batched call, the arguments marked per_batch
// are copied for every batch.
// The bytes argument S of a call takes (every batch's, for one marked per_batch).
template <class S, class T>
std::size_t argument_bytes(std::int64_t M, std::int64_t N, const kops::detail::batch_extent* batch) {
  const std::int64_t n = S::cat == category::i ? M : S::cat == category::j ? N : 1;
  const std::size_t copies = batch != nullptr && batch->stride[S::index] != 0 ? std::size_t(batch->count) : 1;
  return std::size_t(n) * S::dim * sizeof(T) * copies;
}

// The bytes of every argument Red reads.
template <class Red, class T>
std::size_t arguments_bytes(std::int64_t M, std::int64_t N, const kops::detail::batch_extent* batch) {
  std::size_t total = 0;
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (!kops::detail::is_unused_slot_v<S>) total += argument_bytes<S, T>(M, N, batch);
    }(), ...);
  }(typename Red::signature{});
  return total;
}

template <class Red, class T>
[[nodiscard]] bool copy_arguments_to_device(std::int64_t M, std::int64_t N, const T* const* host,
                                            stream_buffer* buffers, const T** device, cudaStream_t stream,
                                            bool pools, const char* where,
                                            const kops::detail::batch_extent* batch = nullptr) {
  bool ok = true;
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (!kops::detail::is_unused_slot_v<S>) {
        const std::size_t bytes = argument_bytes<S, T>(M, N, batch);
        if (!ok || bytes == 0) return;
        buffers[S::index] = stream_buffer(bytes, stream, pools, where, "argument", S::index);
        if (!buffers[S::index].ok()) {
          ok = false;
          return;
        }
        if (const cudaError_t e = cudaMemcpyAsync(buffers[S::index].get(), host[S::index], bytes,
                                                  cudaMemcpyHostToDevice, stream);
            e != cudaSuccess) {
          ok = report_cuda_error(e, where, "copying argument %d to the device", S::index);
          return;
        }
        device[S::index] = buffers[S::index].template get<T>();
      }
    }(), ...);
  }(typename Red::signature{});
  return ok;
}

// The pointers of a call on the output rows [r0, ...) of Red: the arguments of
// the rows' category advanced by r0 rows, the others as given.
template <class Red, class T>
void shift_row_arguments(const T* const* host, std::int64_t r0, const T** shifted) {
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (kops::detail::is_unused_slot_v<S>) {
        shifted[S::index] = host[S::index];
      } else {
        const bool rows = S::cat == Red::row_cat;
        shifted[S::index] = rows && host[S::index] != nullptr ? host[S::index] + r0 * S::dim : host[S::index];
      }
    }(), ...);
  }(typename Red::signature{});
}

// be's call split across be.opts.devices by output rows: device k runs rows
// [rows k / n, rows (k + 1) / n) (n: the devices, at most the rows), as a
// call of its own on a stream of its own, in a host thread of its own; each
// row is computed as a one-device call computes it (given the same scheme).
// True when every part succeeded; the first exception of a part is rethrown
// once every thread has finished.
template <class Pol, class Red, class B, class T, class Out>
[[nodiscard]] bool split_rows(const B& be, std::int64_t M, std::int64_t N, Out* out, const T* const* host,
                              const kops::detail::call_form& form) {
  const device_list& dl = be.opts.devices;
  const std::int64_t rows = kops::detail::output_rows<Red>(M, N);
  const int parts = int(std::min<std::int64_t>(dl.count, rows));
  return on_threads(parts, [&](int k) {
    const std::int64_t r0 = rows * k / parts, r1 = rows * (k + 1) / parts;
    B one = be;
    one.opts.device = dl.ids[k];
    one.opts.devices = device_list{};
    device_guard guard(dl.ids[k], be.where);
    if (!guard.ok()) return false;
    own_stream stream(be.where);
    if (!stream.ok) return false;
    one.opts.stream = stream.s;
    const T* shifted[Red::nargs > 0 ? Red::nargs : 1] = {};
    shift_row_arguments<Red>(host, r0, shifted);
    const bool on_i = Red::row_cat == category::i;
    return one.template call<Pol, Red, false, false>(on_i ? r1 - r0 : M, on_i ? N : r1 - r0,
                                                     out + r0 * kops::out_stride_v<Red>, shifted, form);
  });
}

// kops::cuda::eval_host for the front end (detail/dispatch.hpp): its call
// copies the arguments in, runs the passes on the device (device_backend), and
// copies the output back. call() is true when `out` holds the result; false
// after a reported failure (only without exceptions; `out` then untouched).
struct host_copy_backend {
  using option_types = type_list<options, block_sparsity, batch>;
  static constexpr bool own_call = true;
  const char* where;
  options opts;

  host_copy_backend(const char* w, const kops::detail::option_set<options, block_sparsity, batch>& o)
      : where(w), opts(kops::detail::get_option<options>(o)) {}
  host_copy_backend(const char* w, const options& o) : where(w), opts(o) {}

  // form.sparsity (Ranged): in host memory, like the arguments (checked before
  // any CUDA call); form.batch (Batched): the arguments marked per_batch and
  // the output (unless summed) hold every batch.
  template <class Pol, class Red, bool Ranged, bool Batched, class T, class Out>
  [[nodiscard]] bool call(std::int64_t M, std::int64_t N, Out* out, const T* const* host,
                          const kops::detail::call_form& form) {
    // What the device passes get: a structure in host memory, a
    // resident_sparsity's own copy when form.sparsity is its sparsity().
    kops::detail::call_form on_device = form;
    on_device.sparsity_on_host = true;
    [[maybe_unused]] const kops::cuda::resident_sparsity* resident = nullptr;
    if constexpr (Ranged) {
      if ((resident = find_resident(*form.sparsity)) != nullptr) on_device.sparsity = resident->host_view_of(*form.sparsity);
      if (!kops::detail::check_sparsity_for<Red>(where, *on_device.sparsity, M, N)) return false;
    }
    std::int64_t out_batches = 1;
    if constexpr (Batched) {
      if (form.batch->count == 0) return true;
      if (form.batch->output == batch_output::each) out_batches = form.batch->count;
    }
    const std::int64_t rows = kops::detail::output_rows<Red>(M, N);
    if (rows == 0) return true;
    if (opts.max_device_bytes < 0)
      return kops::detail::fail("%s: options::max_device_bytes is negative, expected 0 (what the device has free) or "
                                "a byte count, given %lld",
                                where, (long long)opts.max_device_bytes);
    // Several devices: one-pass calls with enough rows split their output
    // rows; others (fewer rows, or a two-pass gradient, whose first pass has
    // rows of the other axis) run their passes through streamed_backend,
    // which splits each pass's reduced axis when its rows are few. (A
    // block-sparse or batched call is not split: it runs on the first device.)
    if (opts.devices.count >= 2 || opts.devices.requested > device_list::capacity) {
      if constexpr (!Ranged && !Batched) {
        if (opts.devices.requested > device_list::capacity || kops::is_chained_v<Red> ||
            rows < column_split_rows_per_device * opts.devices.count)
          return run_streamed<Pol, Red>(M, N, out, host, form);
        return split_rows<Pol, Red>(*this, M, N, out, host, form);
      } else {
        host_copy_backend first = *this;
        first.opts.device = opts.devices.ids[0];
        first.opts.devices = device_list{};
        return first.template call<Pol, Red, Ranged, Batched>(M, N, out, host, form);
      }
    }

    device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    if constexpr (Ranged) {  // refused before the copies in are queued, unless resident
      if (resident == nullptr && !refuse_capture(opts.stream, where, ranged_capture_refusal, ranged_capture_instead))
        return false;
    }
    device_facts facts;
    if (!current_facts(where, facts)) return false;
    const cudaStream_t stream = opts.stream;
    // The free memory is not queried under capture (a resident call is
    // recorded as before; a streamed one is refused: streamed.hpp).
    bool capturing_now = false;
    if (opts.max_device_bytes == 0 && !stream_capturing(stream, where, capturing_now)) return false;
    std::int64_t budget = std::numeric_limits<std::int64_t>::max();
    if (!capturing_now && !device_budget(opts, where, budget)) return false;
    const std::size_t out_bytes = std::size_t(rows) * Red::dim * sizeof(Out) * std::size_t(out_batches);
    const std::size_t resident_bytes = arguments_bytes<Red, T>(M, N, form.batch) + out_bytes;
    if (resident_bytes > std::size_t(budget) / 4 * 3) {
      // Past the budget (3/4 of it: GPU_2D's scratch and a two-pass
      // gradient's temporary take the rest): streamed, when the form allows.
      if constexpr (Ranged || Batched)
        return kops::detail::fail("%s: the arguments and output take %zu bytes of device memory, more than 3/4 of "
                                  "the %lld the call may use (options::max_device_bytes, or what the device has "
                                  "free), and a %s call is not streamed: expected at most %lld bytes",
                                  where, resident_bytes, (long long)budget, Ranged ? "block-sparse" : "batched",
                                  (long long)(budget / 4 * 3));
      else
        return run_streamed<Pol, Red>(M, N, out, host, form);
    }

    constexpr int nargs = Red::nargs;
    stream_buffer buffers[nargs > 0 ? nargs : 1];
    const T* device[nargs > 0 ? nargs : 1] = {};
    if (!copy_arguments_to_device<Red>(M, N, host, buffers, device, stream, facts.memory_pools, where, form.batch))
      return false;

    stream_buffer dout(out_bytes, stream, facts.memory_pools, where, "the output");
    if (!dout.ok()) return false;
    device_backend dev(where, options{stream, opts.scheme, -1, opts.gpu_2d_chunk});
    if (!kops::detail::run_call<Pol, Red, Ranged, Batched>(dev, M, N, dout.get<Out>(), device, on_device))
      return false;
    if (!check(cudaMemcpyAsync(out, dout.get(), out_bytes, cudaMemcpyDeviceToHost, stream), where,
               "copying the output to the host"))
      return false;
    // Under capture (a CUDA graph), the copies in, the passes and the copy out
    // are recorded; the caller waits for the graph's stream instead.
    bool capturing = false;
    if (!stream_capturing(stream, where, capturing)) return false;
    if (!capturing && !check(cudaStreamSynchronize(stream), where, "running the reduction (cudaStreamSynchronize)"))
      return false;
    if (!dout.release(where, "the output")) return false;
    for (auto& b : buffers)
      if (!b.release(where, "an argument buffer")) return false;
    return true;
  }

  // The passes of the call through streamed_backend (streamed.hpp).
  template <class Pol, class Red, class T, class Out>
  [[nodiscard]] bool run_streamed(std::int64_t M, std::int64_t N, Out* out, const T* const* host,
                                  const kops::detail::call_form& form) {
    if (opts.devices.requested > device_list::capacity)
      return kops::detail::fail("%s: options::devices lists %d devices, at most %d are taken", where,
                                opts.devices.requested, device_list::capacity);
    streamed_backend be{where, opts};
    return kops::detail::run_call<Pol, Red, false, false>(be, M, N, out, host, form);
  }
};

} // namespace detail

/// kops::cuda::eval_host: the GPU backend on host arrays, for convenience and
/// tests. Same arguments as eval, but host pointers; synchronous.
///
/// ```text
///   eval_host<Pol...>(red, M, N, out, args...[, opts][, s][, batch])   Pol...: policies, as for eval;
///                                           s: a kops::block_sparsity in host memory;
///                                           batch: a kops::batch, args marked kops::per_batch
/// ```
///
/// Allocates device buffers for the arguments the formula reads and for `out`
/// (stream-ordered, on opts.stream and opts.device), copies the inputs in, runs
/// eval, copies `out` back and waits for the stream. Arguments and output
/// larger than 3/4 of options::max_device_bytes (default: the device's free
/// memory less 1/16 of it) are streamed through the device in pieces
/// instead; options::devices splits the call across several devices
/// (docs/cuda.md, "Larger than the device" and "Several GPUs"). Every buffer is owned by an
/// RAII object, so an exception at any step leaks nothing. Unused argument
/// slots are not copied (their pointers may be null, as for eval). Bad input
/// throws kops::error, a failing CUDA call kops::cuda_error; without exceptions
/// both go to the kops::set_error_handler handler and eval_host returns at once
/// (after bad input, before any CUDA call, `out` untouched).
template <auto... Policy, ReductionType Red, class Out, class... Rest>
void eval_host(Red red, std::int64_t M, std::int64_t N, Out* out, Rest... rest) {
  kops::detail::eval_call<detail::host_copy_backend, Policy...>("kops::cuda::eval_host", red, M, N, out, rest...);
}

/// The range form (detail/sized.hpp): eval_host(red, out, x, y, ...[, options])
/// with std::span, std::vector or std::array of host memory in place of (M, N,
/// out, pointers): M and N deduced, every range's size checked, then the
/// pointer form above.
template <auto... Policy, ReductionType Red, kops::detail::SizedArgument O, class... Rest>
void eval_host(Red red, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<Red, false>(
      "kops::cuda::eval_host", -1, -1, nullptr, [&](auto... a) { eval_host<Policy...>(red, a...); }, out, rest...);
}
/// The range form with M and N given: checked likewise.
template <auto... Policy, ReductionType Red, kops::detail::SizedArgument O, class... Rest>
void eval_host(Red red, std::int64_t M, std::int64_t N, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<Red, true>(
      "kops::cuda::eval_host", M, N, nullptr, [&](auto... a) { eval_host<Policy...>(red, a...); }, out, rest...);
}

/// Anything but a reduction first: one error in kops's words (a formula needs
/// a reduction around it; detail/dispatch.hpp, check_is_reduction).
template <auto... Policy, class F, class... Rest>
  requires(!Evaluable<F>)
void eval_host(F, const Rest&...) {
  (void)kops::detail::check_is_reduction<F>();
}

} // namespace kops::cuda
