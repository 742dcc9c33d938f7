// kops::cuda::eval_host: the GPU backend on host arrays. host_copy_backend is
// an own-call backend of the eval front end (detail/dispatch.hpp): its call
// checks a block-sparsity structure where it is (host memory, like the
// arguments), copies the arguments the reduction reads to stream-ordered
// device buffers (once per batch for those marked kops::per_batch), runs the
// passes on device_backend (eval.hpp), copies the output back and
// synchronises the stream, so the call is synchronous.
// copy_arguments_to_device is shared with kops::cuda::solve_host (solve.hpp).
// With options::devices (two or more GPUs), the output rows are split across
// them: each device runs this call on its slice of the rows, in a host thread
// of its own, on a stream of its own (split_rows).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/eval.hpp>
#include <kops/backends/cuda/options.hpp>
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
template <class Red, class T>
[[nodiscard]] bool copy_arguments_to_device(std::int64_t M, std::int64_t N, const T* const* host,
                                            stream_buffer* buffers, const T** device, cudaStream_t stream,
                                            bool pools, const char* where,
                                            const kops::detail::batch_extent* batch = nullptr) {
  bool ok = true;
  [&]<class... S>(type_list<S...>) {
    ([&] {
      if constexpr (!kops::detail::is_unused_slot_v<S>) {
        const std::int64_t n = S::cat == category::i ? M : S::cat == category::j ? N : 1;
        const std::size_t copies = batch != nullptr && batch->stride[S::index] != 0 ? std::size_t(batch->count) : 1;
        const std::size_t bytes = std::size_t(n) * S::dim * sizeof(T) * copies;
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

// A stream of its own on the current device, destroyed at scope exit.
struct own_stream {
  cudaStream_t s = nullptr;
  bool ok = false;
  explicit own_stream(const char* where) {
    ok = check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), where, "creating a stream (cudaStreamCreate)");
  }
  ~own_stream() {
    if (s != nullptr) forget_quiet_failure(cudaStreamDestroy(s));
  }
  own_stream(const own_stream&) = delete;
  own_stream& operator=(const own_stream&) = delete;
};

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
  if (dl.requested > device_list::capacity)
    return kops::detail::fail("%s: options::devices lists %d devices, at most %d are taken", be.where, dl.requested,
                              device_list::capacity);
  const std::int64_t rows = kops::detail::output_rows<Red>(M, N);
  const int parts = int(std::min<std::int64_t>(dl.count, rows));
  bool ok[device_list::capacity] = {};
#if KOPS_EXCEPTIONS
  std::exception_ptr error[device_list::capacity];
#endif
  auto part = [&](int k) {
    const std::int64_t r0 = rows * k / parts, r1 = rows * (k + 1) / parts;
    B one = be;
    one.opts.device = dl.ids[k];
    one.opts.devices = device_list{};
    device_guard guard(dl.ids[k], be.where);
    if (!guard.ok()) return;
    own_stream stream(be.where);
    if (!stream.ok) return;
    one.opts.stream = stream.s;
    const T* shifted[Red::nargs > 0 ? Red::nargs : 1] = {};
    shift_row_arguments<Red>(host, r0, shifted);
    const bool on_i = Red::row_cat == category::i;
    ok[k] = one.template call<Pol, Red, false, false>(on_i ? r1 - r0 : M, on_i ? N : r1 - r0,
                                                      out + r0 * kops::out_stride_v<Red>, shifted, form);
  };
  std::vector<std::thread> threads;
  threads.reserve(std::size_t(parts));
  for (int k = 0; k < parts; ++k)
    threads.emplace_back([&, k] {
#if KOPS_EXCEPTIONS
      try {
        part(k);
      } catch (...) {
        error[k] = std::current_exception();
      }
#else
      part(k);
#endif
    });
  for (auto& t : threads) t.join();
#if KOPS_EXCEPTIONS
  for (int k = 0; k < parts; ++k)
    if (error[k]) std::rethrow_exception(error[k]);
#endif
  return std::all_of(ok, ok + parts, [](bool b) { return b; });
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
    // Several devices: one-pass calls split their output rows. (A two-pass
    // call's first pass needs every row of the other axis, a block-sparse or
    // batched one is not split yet: they run on the first device listed.)
    if (opts.devices.count >= 2 || opts.devices.requested > device_list::capacity) {
      if constexpr (!Ranged && !Batched && !kops::is_chained_v<Red>) {
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

    constexpr int nargs = Red::nargs;
    stream_buffer buffers[nargs > 0 ? nargs : 1];
    const T* device[nargs > 0 ? nargs : 1] = {};
    if (!copy_arguments_to_device<Red>(M, N, host, buffers, device, stream, facts.memory_pools, where, form.batch))
      return false;

    const std::size_t out_bytes = std::size_t(rows) * Red::dim * sizeof(Out) * std::size_t(out_batches);
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
/// eval, copies `out` back and waits for the stream. Every buffer is owned by an
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
