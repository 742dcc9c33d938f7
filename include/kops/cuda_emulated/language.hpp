// The CUDA C++ language extensions a .cu file uses, for the host compiler
// (kops::cuda_emulated): the function and variable space keywords, the
// built-in index variables, __syncthreads, atomics and the float intrinsics.
//
//   __global__ __device__ __host__ __constant__ __managed__  nothing (host functions, globals)
//   __shared__                                       `static`: launches run one block at a
//                                                    time process-wide, so a static array is
//                                                    the running block's own
//   extern __shared__ T a[];                         not available: use
//                                                    kops::cuda_emulated::dynamic_shared<T>()
//   threadIdx blockIdx blockDim gridDim warpSize     the running fiber's coordinates
//   kernel<<<grid, block, shared, stream>>>(...)     not C++: use cudaLaunchKernel
//
// Math intrinsics (__expf, __logf, ...) evaluate with the host's libm: they are
// more accurate here than on a GPU.
//
//   __syncwarp(mask)  __shfl_sync  __shfl_xor_sync  __shfl_up_sync  __shfl_down_sync
//                     warp-level, with every lane of the warp taking part (a full mask:
//                     0xffffffff, or every lane of a last partial warp); a partial mask
//                     is a fatal error here (kops's kernels never use one). Cooperative
//                     groups are not provided.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <kops/cuda_emulated/scheduler.hpp>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __grid_constant__

#define threadIdx (::kops::cuda_emulated::detail::thread_idx())
#define blockIdx (::kops::cuda_emulated::detail::block_idx())
#define blockDim (::kops::cuda_emulated::detail::block_dim())
#define gridDim (::kops::cuda_emulated::detail::grid_dim())

inline constexpr int warpSize = 32;

inline void __syncthreads() { ::kops::cuda_emulated::syncthreads(); }

namespace kops::cuda_emulated::detail {
// The lanes a warp-level intrinsic's mask must name: all of the calling warp's.
inline void check_full_mask(unsigned mask, const char* what) {
  const warp_of_thread w = current_warp(what);
  const unsigned all = w.lanes == 32 ? 0xffffffffu : (1u << w.lanes) - 1u;
  if ((mask & all) != all)
    fatal("%s with mask 0x%08x: kops::cuda_emulated supports warp-level operations with every lane of the warp "
          "(0x%08x) only",
          what, mask, all);
}
// A shuffle: lane l receives the value of lane source(l % width) of its
// width-wide segment (an out-of-range source: its own value).
template <class T, class Source>
T shuffle(unsigned mask, const T& v, int width, const char* what, Source source) {
  check_full_mask(mask, what);
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0) fatal("%s: width %d is not a power of 2 <= 32", what, width);
  return warp_exchange(v, [&](auto lane_value, unsigned lane, unsigned lanes) {
    const int base = int(lane) & ~(width - 1);
    const int src = source(int(lane) - base);
    const int from = src >= 0 && src < width ? base + src : int(lane);
    return lane_value(unsigned(from) < lanes ? unsigned(from) : lane);
  });
}
} // namespace kops::cuda_emulated::detail

inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::kops::cuda_emulated::detail::check_full_mask(mask, "__syncwarp");
  ::kops::cuda_emulated::syncwarp();
}
template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return ::kops::cuda_emulated::detail::shuffle(mask, var, width, "__shfl_sync",
                                                [&](int) { return ((src_lane % width) + width) % width; });
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return ::kops::cuda_emulated::detail::shuffle(mask, var, width, "__shfl_xor_sync",
                                                [&](int l) { return l ^ lane_mask; });
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ::kops::cuda_emulated::detail::shuffle(mask, var, width, "__shfl_up_sync",
                                                [&](int l) { return l - int(delta); });
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return ::kops::cuda_emulated::detail::shuffle(mask, var, width, "__shfl_down_sync",
                                                [&](int l) { return l + int(delta); });
}
// The position of the lowest set bit, from 1; 0 for x = 0.
inline int __ffs(int x) { return __builtin_ffs(x); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <class T>
inline T __ldg(const T* p) {
  return *p;
}

// Atomics: the compiler's __atomic builtins (real atomics, which
// ThreadSanitizer understands); floating-point additions by compare-and-swap.
template <class T>
inline T atomicAdd(T* p, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    T desired = old + v;
    while (!__atomic_compare_exchange(p, &old, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) desired = old + v;
    return old;
  } else {
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
  }
}
template <class T>
inline T atomicSub(T* p, T v) {
  return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
}
template <class T>
inline T atomicExch(T* p, T v) {
  T old;
  __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
  return old;
}
template <class T>
inline T atomicCAS(T* p, T expected, T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
template <class T>
inline T atomicMin(T* p, T v) {
  T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}
template <class T>
inline T atomicMax(T* p, T v) {
  T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}

inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline double __fma_rn(double x, double y, double z) { return std::fma(x, y, z); }
inline int __float_as_int(float x) {
  int i;
  std::memcpy(&i, &x, sizeof i);
  return i;
}
inline float __int_as_float(int i) {
  float x;
  std::memcpy(&x, &i, sizeof x);
  return x;
}
