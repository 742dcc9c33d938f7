// kops::mpi::cuda::eval: kops::mpi::eval (include/kops/mpi.hpp) with each
// rank's data on its own GPU (device pointers, kops::cuda::options for the
// stream and device):
//
//   kops::mpi::cuda::eval<Policy...>(red, comm, M, N_r, out, dx, dy_r, db_r, dg[, opts]);
//
// The layout per rank is kops::mpi::eval's with the reduced axis split: this
// rank's slice of the reduced axis' variables (N_r rows for axis_j), the whole
// arrays of the other axis and the parameters, all in device memory; out is
// whole on every rank (device memory). Each rank runs GPU_2D's first pass over
// its slice (the chunks of launch.hpp's plan, indices global: the slice's
// offset is the MPI_Exscan of the slice sizes, so arg reductions give indices
// on the whole axis) and folds its chunks into one accumulator per row with
// GPU_2D's combine (unfinalized); the accumulators come to the host, where
// kops::mpi::eval's MPI_Allreduce merges them with the reduction's own combine
// through the same non-commutative MPI_Op (rank order: the lower ranks' first
// operand), then go back to the device, where GPU_2D's combine finalizes them
// into out. The call is collective and synchronous (it waits for its stream).
//
// Results: the reductions whose combine is exact (min, max, arg and k-
// reductions) give the bits of one kops::cuda::eval over the whole axis; sums
// differ by the order of their partial sums, as GPU_2D's chunks do.
//
// Limitations: one-pass reductions (a two-pass gradient is a compile-time
// error), float or double arrays, no block-sparse or batched form; the merge
// runs the reduction's combine on the host, so the policy's math must be
// callable there (precision::accurate; the fast policy's intrinsics are
// device code under nvcc); Kokkos need not be initialised, but mpi.hpp's
// header (Kokkos) must be found.
#pragma once

#include <cstdint>
#include <vector>

#include <kops/cuda.hpp>
#include <kops/mpi.hpp>

namespace kops::mpi {
namespace detail {

inline constexpr const char* cuda_where = "kops::mpi::cuda::eval";

// GPU accumulators as mpi_backend::merge_slots merges them: K::acc_type
// slots, combined on the host with the reduction's own combine.
template <class K>
struct gpu_slots {
  using slot = typename K::acc_type;
  static void combine(slot& earlier, const slot& later) {
    K::op::template combine<typename K::math>(earlier, later);
  }
};

// The passes of a kops::mpi::cuda::eval call (file comment), on opts.stream
// and opts.device: mpi_backend's merge, GPU passes.
template <category C>
struct mpi_cuda_backend : mpi_backend<C> {
  ::kops::cuda::options opts;

  template <class T, class F>
  bool with_temporary(std::size_t, F&&) {
    static_assert(sizeof(T) == 0, "kops::mpi::cuda::eval: two-pass gradients are not supported");
    return false;
  }

  template <class Pol, class Red, class T, class Out>
  bool launch(const kops::detail::pass_extent& e, Out* out, const T* const* ptrs) {
    namespace cd = ::kops::cuda::detail;
    using K = cd::pass_traits_t<Pol, Red, T, Out>;
    const char* const where = this->where;
    cd::device_guard guard(opts.device, where);
    if (!guard.ok()) return false;
    const std::int64_t first = this->s.offset;
    // Read at the global index j from the slice: its pointers moved back by the offset.
    typename K::args_type a{};
    [&]<class... S>(type_list<S...>) {
      ([&] {
        const T* p = ptrs[S::index];
        if constexpr (!kops::detail::is_unused_slot_v<S>) {
          const std::int64_t back = first * S::dim * std::int64_t(sizeof(T));
          if (S::cat == Red::red_cat && p != nullptr)
            p = reinterpret_cast<const T*>(std::uintptr_t(p) - std::uintptr_t(back));
        }
        a.p[S::index] = p;
      }(), ...);
    }(typename Red::signature{});
    cd::launch_plan plan;
    if (!cd::plan_launch<K>(e.rows, e.cols, opts, where, plan)) return false;
    const std::int64_t chunk = plan.plan.chunk;
    const std::int64_t chunks = e.cols > 0 ? cd::ceil_div(e.cols, chunk) : 1;
    const cd::kernel_entry& k = cd::kernel_entry_from_v<K>;
    const cudaStream_t stream = opts.stream;
    const std::size_t bytes = std::size_t(e.rows) * sizeof(typename K::acc_type);
    cd::stream_buffer scratch(bytes * std::size_t(chunks), stream, plan.memory_pools, where,
                              "the partial accumulators");
    if (!scratch.ok()) return false;
    const cd::launch_operands o{&a, nullptr};
    std::vector<typename K::acc_type> slots(std::size_t(e.rows));
    if (!cd::launch_reduce(k, o, e.rows, first, first + e.cols, chunk, chunks, scratch.get(), nullptr, stream, where,
                           "partial-reduction") ||
        (chunks > 1 &&
         !cd::launch_combine(k, o, e.rows, chunks, scratch.get(), nullptr, scratch.get(), stream, where)) ||
        !cd::check(cudaMemcpyAsync(slots.data(), scratch.get(), bytes, cudaMemcpyDeviceToHost, stream), where,
                   "copying the partial accumulators to the host") ||
        !cd::check(cudaStreamSynchronize(stream), where, "waiting for the partial accumulators"))
      return false;
    if (!this->template merge_slots<gpu_slots<K>>(slots)) return false;
    return cd::check(cudaMemcpyAsync(scratch.get(), slots.data(), bytes, cudaMemcpyHostToDevice, stream), where,
                     "copying the merged accumulators to the device") &&
           cd::launch_combine(k, o, e.rows, 1, scratch.get(), out, nullptr, stream, where) &&
           cd::check(cudaStreamSynchronize(stream), where, "finalizing the merged accumulators") &&
           scratch.release(where, "the partial accumulators");
  }
};

// kops::mpi::cuda::eval for the eval front end (detail/dispatch.hpp): every
// rank's arguments checked and agreed on (check_collectively), then the one
// pass on mpi_cuda_backend.
struct mpi_cuda_entry {
  using option_types = type_list<::kops::cuda::options, communicator>;
  static constexpr bool own_call = true;
  static constexpr bool own_checks = true;
  const char* where;
  MPI_Comm comm;
  ::kops::cuda::options opts;

  mpi_cuda_entry(const char* w, const kops::detail::option_set<::kops::cuda::options, communicator>& o)
      : where(w), comm(kops::detail::get_option<communicator>(o).comm),
        opts(kops::detail::get_option<::kops::cuda::options>(o)) {}

  template <class Pol, class Red, bool Ranged, bool Batched, class T, class Out>
  [[nodiscard]] bool call(std::int64_t M, std::int64_t N, Out* out, const T* const* ptrs,
                          const kops::detail::call_form&) {
    constexpr bool wide = !kops::detail::is_16bit_v<T>;
    static_assert(wide, "kops::mpi::cuda::eval takes float or double arrays");
    static_assert(!is_chained_v<Red>, "kops::mpi::cuda::eval: two-pass gradients are not supported");
    if constexpr (wide && !is_chained_v<Red>) {
      using K = ::kops::cuda::detail::pass_traits_t<Pol, Red, T, Out>;
      slice s{0, 0};
      if (!check_collectively<Red, Red::red_cat>(comm, M, N, out, ptrs, sizeof(typename K::acc_type), s, false))
        return false;
      mpi_cuda_backend<Red::red_cat> be{{cuda_where, comm, s}, opts};
      return kops::detail::run_passes<Pol, Red>(be, M, N, out, ptrs);
    } else {
      return false;
    }
  }
};

} // namespace detail

/// kops::mpi::cuda: kops::mpi::eval with each rank's data on its own GPU.
namespace cuda {

/// \brief kops::mpi::eval's reduced-axis split on GPUs: every rank's slice of
/// the reduced axis reduced on its device, the partial accumulators merged
/// across ranks in rank order; collective over `comm`, synchronous.
///
/// M, N: this rank's sizes (its slice of the reduced axis, the whole other
/// axis); out:(rows, red.dim) and args: device pointers (this rank's slice of
/// the reduced axis' variables, the whole other arrays and parameters),
/// optionally followed by kops::cuda::options (stream, device, scheme,
/// gpu_2d_chunk). Every rank receives the whole output. One-pass reductions,
/// float or double (include/kops/mpi_cuda.hpp's file comment). Throws
/// kops::error on every rank when any rank's arguments are bad or the ranks
/// disagree; a failing CUDA call throws kops::cuda_error on its rank.
template <auto... Policy, ReductionType Red, class Out, class... Rest>
void eval(Red red, MPI_Comm comm, std::int64_t M, std::int64_t N, Out* out, const Rest&... rest) {
  kops::detail::eval_call<detail::mpi_cuda_entry, Policy...>(detail::cuda_where, red, M, N, out, rest...,
                                                             detail::communicator{comm});
}

} // namespace cuda
} // namespace kops::mpi
