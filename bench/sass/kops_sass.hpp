// Shared by the kernel sources of bench/sass/ (compiled with nvcc -cubin by
// run.sh, never run). Each source instantiates one kops reduction on the CUDA
// backend, for the element type SASS_T and the precision policy SASS_PREC
// (-DSASS_T=float -DSASS_PREC=fast on the command line).
//
// Launch facts are host-side numbers (K::shared_bytes and K::block, passed to
// cudaLaunchKernel), invisible in the cubin. So that the parser can report
// them, they are exported here as a __device__ array per kernel_traits K,
// kops_sass::launch_facts<K> = {dynamic shared bytes, tile, block, staged chunks, chunk width,
// final chunks, final chunk width, rows per thread}, whose
// value sass_stats.py reads from the cubin's ELF (.nv.global.init) and whose K
// it matches with that of reduce_kernel<K>. Nothing here changes the kernels.
#pragma once

#include <kops/cuda.hpp>

#ifndef SASS_T
#error "compile with -DSASS_T=float, double, kops::half or kops::bfloat16"
#endif
#ifndef SASS_PREC
#error "compile with -DSASS_PREC=fast or -DSASS_PREC=accurate"
#endif
#ifndef SASS_D
#define SASS_D 3
#endif
// A tuned variant of the kernels (backends/cuda/kernel_traits.hpp: tuning<R, B>):
// -DSASS_TUNE_R=2 -DSASS_TUNE_B=128 (cases.sh's variant_cases). Without them
// nothing here names the tuning, so that compare.sh can build the cases
// against the include/ of revisions older than it.
#if defined(SASS_TUNE_R) != defined(SASS_TUNE_B)
#error "define both SASS_TUNE_R and SASS_TUNE_B, or neither"
#endif

namespace kops_sass {

using T = SASS_T;
inline constexpr kops::precision prec = kops::precision::SASS_PREC;
// The CUDA-core kernels (the set's rows, compared with keopscore's); with
// SASS_TC the tensor-core kernel where it applies (bench/sass/tensor_cores.sh).
// (compare.sh builds older revisions with this file too: before the policy
// existed, every kernel was a CUDA-core one.)
#if __has_include(<kops/core/tensor_cores.hpp>)
#define SASS_TC_POLICY , tensor_cores
#if defined(SASS_TC)
inline constexpr kops::tensor_cores tensor_cores = kops::tensor_cores::automatic;
#else
inline constexpr kops::tensor_cores tensor_cores = kops::tensor_cores::off;
#endif
#else
#define SASS_TC_POLICY
#endif
inline constexpr int D = SASS_D;
#if defined(SASS_TUNE_R)
using tune = kops::cuda::detail::tuning<SASS_TUNE_R, SASS_TUNE_B>;
template <class Pol, class Red, class Out>
using traits_t = kops::cuda::detail::pass_traits_t<Pol, Red, T, Out, tune>;
#else
template <class Pol, class Red, class Out>
using traits_t = kops::cuda::detail::pass_traits_t<Pol, Red, T, Out>;
#endif

// Not const: a const variable has internal linkage, and its symbol a per-file prefix.
// The fourth and fifth: the full chunks a tile runs through in the staged
// chunk loop (backends/cuda/chunk_loop.hpp) and their width; 0 for every other kernel.
template <class K>
constexpr unsigned long long staged_chunks() {
  if constexpr (K::staged) return (unsigned long long)(K::plan::width / K::plan::chunk);
  else return 0;
}
template <class K>
constexpr unsigned long long staged_chunk_width() {
  if constexpr (K::staged) return (unsigned long long)K::plan::chunk;
  else return 0;
}
// The sixth and seventh: the full output chunks a tile runs through in final
// chunks (backends/cuda/final_chunks.hpp) and their width; 0 for every other kernel.
template <class K>
constexpr unsigned long long final_chunks() {
  if constexpr (K::final_chunks) return (unsigned long long)(K::final_plan::width / K::final_plan::chunk);
  else return 0;
}
template <class K>
constexpr unsigned long long final_chunk_width() {
  if constexpr (K::final_chunks) return (unsigned long long)K::final_plan::chunk;
  else return 0;
}
// The eighth: output rows per thread (K::rows_per_thread, 1 before the
// tuning existed: a pair-loop iteration evaluates that many pairs per tile
// element it reads).
template <class K>
constexpr unsigned long long rows_per_thread() {
  if constexpr (requires { K::rows_per_thread; }) return (unsigned long long)K::rows_per_thread;
  else return 1;
}
template <class K>
__device__ unsigned long long launch_facts[8] = {K::shared_bytes,       (unsigned long long)K::tile,
                                                 (unsigned long long)K::block, staged_chunks<K>(),
                                                 staged_chunk_width<K>(), final_chunks<K>(),
                                                 final_chunk_width<K>(), rows_per_thread<K>()};

// Instantiates launch_facts<K> for every kernel pass of Red (a chained
// reduction has two: the first writes the compute type), K as the call's
// (Pol: its policy). Taking the variable's address in host code is enough to
// make nvcc emit the device definition.
template <class Pol, class Red, class Out>
void export_launch_facts() {
  if constexpr (kops::is_chained_v<Red>) {
    export_launch_facts<Pol, typename Red::first, kops::detail::compute_t<T>>();
    export_launch_facts<Pol, typename Red::second, Out>();
  } else {
    using K = traits_t<Pol, Red, Out>;
    const volatile void* p = &launch_facts<K>;
    (void)p;
  }
}

// eval on device pointers (detail::eval_tuned for a variant): instantiates
// reduce_kernel<K> (GPU_1D and GPU_2D pass 1) and gpu_2d_combine_kernel<K>
// for every pass, plus the launch facts above.
template <class Red, class Out, class... Args>
void instantiate(Red red, Out* out, const Args*... args) {
  export_launch_facts<kops::detail::call_policy_t<Red, T, prec SASS_TC_POLICY>, Red, Out>();
#if defined(SASS_TUNE_R)
  kops::cuda::detail::eval_tuned<tune, prec SASS_TC_POLICY>(red, 1000, 1000, out, args...);
#else
  kops::cuda::eval<prec SASS_TC_POLICY>(red, 1000, 1000, out, args...);
#endif
}

} // namespace kops_sass
