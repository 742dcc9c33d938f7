// kops::cuda::eval and kops::cuda::eval_host of a kops::TiedSum
// (reductions/tied.hpp), the gradient w.r.t. a kops::tied cloud: its two
// parts, each an eval with the call's policies and options, the second into a
// temporary, then summed.
//
//   eval(tied, N, N, out, args...)  ==  eval(row_i, N, N, out, args...);
//                                       eval(row_j, N, N, tmp, args...); out += tmp
//
// On device pointers the temporary is a stream-ordered buffer on opts.stream
// and the sum the vector kernel of cuda/solve.hpp (out += 1 * tmp), queued
// after both evals: the call stays asynchronous, as eval is. On host pointers
// (eval_host) both parts come back to the host and are summed there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <cuda_runtime_api.h>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/eval.hpp>
#include <kops/backends/cuda/host.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/backends/cuda/solve.hpp>
#include <kops/detail/tied_call.hpp>
#include <kops/reductions/tied.hpp>

namespace kops::cuda {
namespace detail {

// The kops::cuda::options among a call's trailing arguments (the default ones without).
template <class... Args>
options options_among(const Args&... args) {
  options o;
  ((void)[&] {
    if constexpr (std::is_same_v<Args, options>) o = args;
  }(), ...);
  return o;
}

// out += part on the device, n elements, on `stream` (cuda/solve.hpp's axpy kernel).
template <class T>
[[nodiscard]] bool add_tied_part_on_device(T* out, const T* part, std::int64_t n, cudaStream_t stream,
                                           const char* where) {
  const std::int64_t blocks = (n + vector_block - 1) / vector_block;
  const unsigned grid = unsigned(blocks < max_vector_blocks ? blocks : max_vector_blocks);
  T one = T(1);
  void* p[] = {&n, &one, &part, &out};
  return check_launch(cudaLaunchKernel(solve_axpy_kernel<T>, dim3(grid), dim3(vector_block), p, 0, stream), where,
                      "the sum of a tied gradient's parts");
}

} // namespace detail

/// kops::cuda::eval of a kops::TiedSum: the gradient of a reduction w.r.t. a
/// cloud read on both axes (kops::grad(red, kops::tied(x, y), e)), on device pointers.
///
/// ```text
///   eval<Policy...>(tied, N, N, out, args...[, opts][, s])   args:(N, D), the same array at x's and y's index
///     -> out:(N, tied.dim) = the gradient w.r.t. x (rows i) + the gradient w.r.t. y (rows j)
/// ```
///
/// Two evals (Policy..., opts and a kops::block_sparsity are passed to both), a
/// stream-ordered temporary of N * dim values and one vector kernel, all on
/// opts.stream and opts.device; asynchronous, as eval. M = N is required (the
/// cloud is on both axes); float or double arrays, no batches.
template <auto... Policy, TiedReduction R, class Out, class... Args>
void eval(R, std::int64_t M, std::int64_t N, Out* out, Args... args) {
  constexpr const char* where = "kops::cuda::eval";
  if constexpr (kops::detail::check_tied_call<Out, Args...>()) {
    if (!kops::detail::check_tied_sizes(where, M, N)) return;
    // The first part first: its checks (those of the second, but for the
    // output) come before anything is allocated.
    kops::cuda::eval<Policy...>(typename R::row_i{}, M, N, out, args...);
    const std::int64_t n = N * R::dim;
    if (n == 0) return;
    const options o = detail::options_among(args...);
    detail::device_guard guard(o.device, where);
    if (!guard.ok()) return;
    detail::device_facts facts;
    if (!detail::current_facts(where, facts)) return;
    detail::stream_buffer part(std::size_t(n) * sizeof(Out), o.stream, facts.memory_pools, where,
                               "the tied gradient's second part");
    if (!part.ok()) return;
    kops::cuda::eval<Policy...>(typename R::row_j{}, M, N, part.get<Out>(), args...);
    if (!detail::add_tied_part_on_device(out, part.get<Out>(), n, o.stream, where)) return;
    (void)part.release(where, "the tied gradient's second part");
  }
}

/// kops::cuda::eval_host of a kops::TiedSum: eval's, on host pointers; the
/// two parts are kops::cuda::eval_host calls and are summed on the host. Synchronous.
template <auto... Policy, TiedReduction R, class Out, class... Args>
void eval_host(R, std::int64_t M, std::int64_t N, Out* out, Args... args) {
  if constexpr (kops::detail::check_tied_call<Out, Args...>())
    kops::detail::eval_tied_on_host<R>("kops::cuda::eval_host", M, N, out, [&](auto part, Out* o) {
      kops::cuda::eval_host<Policy...>(part, M, N, o, args...);
    });
}

/// The range form of eval of a kops::TiedSum (detail/sized.hpp): ranges in place
/// of (M, N, out, pointers); N deduced from the cloud's range, every size checked
/// as for the first part (the gradient w.r.t. x, rows i), then the pointer form.
template <auto... Policy, TiedReduction R, kops::detail::SizedArgument O, class... Rest>
void eval(R tied, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<typename R::row_i, false>(
      "kops::cuda::eval", -1, -1, nullptr, [&](auto... a) { eval<Policy...>(tied, a...); }, out, rest...);
}

/// The range form of eval_host of a kops::TiedSum (detail/sized.hpp): ranges in place
/// of (M, N, out, pointers); N deduced from the cloud's range, every size checked
/// as for the first part (the gradient w.r.t. x, rows i), then the pointer form.
template <auto... Policy, TiedReduction R, kops::detail::SizedArgument O, class... Rest>
void eval_host(R tied, O&& out, const Rest&... rest) {
  kops::detail::eval_range_call<typename R::row_i, false>(
      "kops::cuda::eval_host", -1, -1, nullptr, [&](auto... a) { eval_host<Policy...>(tied, a...); }, out, rest...);
}

} // namespace kops::cuda
