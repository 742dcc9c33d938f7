#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/kernel_traits.hpp>
#include <kops/backends/cuda/launch.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/core/policy.hpp>
#include <kops/core/precision.hpp>
#include <kops/core/scalar_math.hpp>
#include <kops/detail/arguments.hpp>
#include <kops/reductions/chained.hpp>
#include <kops/reductions/reduction.hpp>

namespace kops::cuda {
namespace detail {

// Checks, then runs on opts.device (if set). `ptrs`: Red::nargs device pointers.
// Pol: kops::policy<precision, sum_scheme, dtype_acc> (core/policy.hpp).
// True when queued. Bad input or a failing CUDA call throws; without
// exceptions it is reported and run returns false at once, `out` untouched
// unless a kernel writing it was already queued (the second pass's failure).
template <class Pol, class Red, class T, class Out>
[[nodiscard]] bool run(std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs, const options& opts,
                       const char* where) {
  if (!kops::detail::check_arguments<Red>(where, M, N, out, ptrs)) return false;
  if (!kops::detail::check_no_overlap<Red>(where, M, N, out, ptrs)) return false;
  if constexpr (is_chained_v<Red>) {
    // Two passes (reductions/chained.hpp): First into a stream-ordered
    // temporary, then Second reading it as its last argument.
    using First = typename Red::first;
    const std::int64_t rows1 = First::row_cat == category::i ? M : N;
    device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    device_facts facts;
    if (!current_facts(where, facts)) return false;
    stream_buffer buffer(std::size_t(rows1) * First::dim * sizeof(T), opts.stream, facts.memory_pools, where,
                         "the first pass of a two-pass gradient");
    if (!buffer.ok()) return false;
    const options here{opts.stream, opts.scheme, -1, opts.gpu_2d_chunk};
    if (!run<Pol, First>(M, N, buffer.get<T>(), ptrs, here, where)) return false;
    const T* ptrs2[Red::nargs + 1];
    for (int k = 0; k < Red::nargs; ++k) ptrs2[k] = ptrs[k];
    ptrs2[Red::nargs] = buffer.get<T>();
    if (!run<Pol, typename Red::second>(M, N, out, ptrs2, here, where)) return false;
    return buffer.release(where, "the first pass of a two-pass gradient");
  } else {
    const std::int64_t rows = Red::row_cat == category::i ? M : N;
    // A sum of the zero formula is zero: an empty reduced range gives it.
    const std::int64_t cols = Red::no_work ? 0 : Red::row_cat == category::i ? N : M;
    if (rows == 0) return true;
    using K = kernel_traits<Red, T, Pol::prec, Pol::scheme, Pol::acc>;
    typename K::args_type a{};
    for (int k = 0; k < Red::nargs; ++k) a.p[k] = ptrs[k];
    device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    return launch<K>(a, rows, cols, out, opts, where);
  }
}

template <class... Ts>
inline constexpr bool ends_with_options = false;
template <class T, class... Ts>
inline constexpr bool ends_with_options<T, Ts...> =
    std::is_same_v<std::remove_cvref_t<std::tuple_element_t<sizeof...(Ts), std::tuple<T, Ts...>>>, options>;

template <class A>
inline constexpr bool is_argument_pointer_v =
    std::is_pointer_v<A> && !std::is_same_v<std::remove_cv_t<std::remove_pointer_t<A>>, options>;

// Calls f(opts, pointers...) with the trailing options object split off (or
// default options when there is none).
template <class Fn, class... Rest>
void split_options(Fn&& f, const Rest&... rest) {
  if constexpr (ends_with_options<Rest...>) {
    const auto all = std::forward_as_tuple(rest...);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      f(std::get<sizeof...(Rest) - 1>(all), std::get<I>(all)...);
    }(std::make_index_sequence<sizeof...(Rest) - 1>{});
  } else {
    f(options{}, rest...);
  }
}

// The compile-time checks of eval and eval_host; true when the call is well
// formed (the callers compile the call only then, so that a failed check is
// the only error reported).
template <class Red, class Out, class... Args>
constexpr bool check_call() {
  using T = kops::detail::call_element_t<Out, Args...>;
  constexpr bool same = (std::is_same_v<T, std::remove_cv_t<Args>> && ...);
  constexpr bool count = sizeof...(Args) == Red::nargs;
  constexpr bool output = std::is_same_v<Out, typename Red::op::template out_t<T>>;
  static_assert(count,
                "kops::cuda::eval: pass exactly one pointer per argument index of the formula "
                "(0 .. max index), in index order");
  static_assert(output,
                "kops::cuda::eval: wrong output pointer type (value reductions write T*, "
                "index reductions such as argmin write std::int64_t*, value-and-index reductions such as "
                "min_argmin write kops::value_index<T>*)");
  return same && count && output;
}

template <class... Rest>
constexpr bool check_pointers() {
  if constexpr (ends_with_options<Rest...>) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (is_argument_pointer_v<std::tuple_element_t<I, std::tuple<Rest...>>> && ...);
    }(std::make_index_sequence<sizeof...(Rest) - 1>{});
  } else {
    return (is_argument_pointer_v<Rest> && ...);
  }
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
/// order, of one element type T (float or double); arg-type reductions write
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
/// Bad input (negative sizes, null pointers, an output overlapping an input)
/// throws kops::error. Without exceptions (-fno-exceptions, KOPS_NO_EXCEPTIONS)
/// both go to the kops::set_error_handler handler instead and eval returns at
/// once: after bad input nothing is queued and `out` is untouched.
///
/// out:(rows, red.dim) on the device; args: device pointers in variable-index
/// order (arrays decay to pointers, as for the CPU backend), optionally
/// followed by one kops::cuda::options.
template <auto... Policy, ReductionType Red, class Out, class... Rest>
void eval(Red, std::int64_t M, std::int64_t N, Out* out, Rest... rest) {
  static_assert(kops::detail::valid_policies_v<Policy...>,
                "kops::cuda::eval: the template arguments are policies, at most one of each kind: "
                "a kops::precision, a kops::sum_scheme, a kops::dtype_acc");
  constexpr bool pointers = detail::check_pointers<Rest...>();
  static_assert(pointers,
                "kops::cuda::eval: after the output pointer, pass one device pointer per argument "
                "index, optionally followed by a kops::cuda::options (last)");
  if constexpr (pointers) {
    detail::split_options(
        [&]<class... Args>(const options& opts, const Args*... args) {
          if constexpr (detail::check_call<Red, Out, Args...>()) {
            const kops::detail::call_element_t<Out, Args...>* const ptrs[sizeof...(Args) + 1] = {args..., nullptr};
            (void)detail::run<kops::detail::policy_of_t<Policy...>, Red>(M, N, out, ptrs, opts, "kops::cuda::eval");
          }
        },
        rest...);
  }
}

} // namespace kops::cuda
