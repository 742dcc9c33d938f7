// fast_math: the math provider of kops::precision::fast on the GPU. In device
// code, float arguments use the hardware's special-function unit (the
// intrinsics that nvcc -use_fast_math substitutes, and that KeOps compiles with
// by default):
//
//   exp    __expf            max error 2 + floor(|1.173 x|) ulp; results below
//                            2^-126 flush to 0 (as precision.hpp says of fast exp)
//   exp2   ex2.approx.ftz    what __expf computes after its multiply by log2 e
//                            (PTX; the fast policy evaluates exp(a) as exp2(a log2 e))
//   log    __logf            abs error <= 2^-21.41 on [0.5, 2], else <= 3 ulp
//   sin    __sinf            abs error <= 2^-21.41 on [-pi, pi]; no argument
//   cos    __cosf            reduction, so the error grows with |x| beyond that
//   sqrt   sqrt.approx.f32   relative error <= 2^-23 (PTX; special values as IEEE)
//   rsqrt  rsqrtf            <= 2 ulp; rsqrt(0) = 0 as in scalar_math
//
// (bounds from the CUDA C++ Programming Guide, "Intrinsic Functions", and the
// PTX ISA). Everything else, double arguments and host code use scalar_math:
// CUDA has no fast double intrinsics, and on the host this provider only serves
// reference evaluations.
#pragma once

#include <type_traits>

#include <kops/config.hpp>
#include <kops/core/scalar_math.hpp>

namespace kops::cuda {

struct fast_math : scalar_math {
  template <class T> KOPS_HD KOPS_INLINE static T exp(T a) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return __expf(a);
    else
#endif
      return scalar_math::exp(a);
  }
  template <class T> KOPS_HD KOPS_INLINE static T exp2(T a) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) {
      float r;
      asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
      return r;
    } else
#endif
      if constexpr (sizeof(T) == 4) return ::exp2f(a); else return ::exp2(a);
  }
  template <class T> KOPS_HD KOPS_INLINE static T log(T a) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return __logf(a);
    else
#endif
      return scalar_math::log(a);
  }
  template <class T> KOPS_HD KOPS_INLINE static T sin(T a) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return __sinf(a);
    else
#endif
      return scalar_math::sin(a);
  }
  template <class T> KOPS_HD KOPS_INLINE static T cos(T a) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return __cosf(a);
    else
#endif
      return scalar_math::cos(a);
  }
  template <class T> KOPS_HD KOPS_INLINE static T sqrt(T a) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) {
      float r;
      asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(a));
      return r;
    } else
#endif
      return scalar_math::sqrt(a);
  }
  template <class T> KOPS_HD KOPS_INLINE static T rsqrt(T a) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, float>) return a == 0.0f ? 0.0f : ::rsqrtf(a);
    else
#endif
      return scalar_math::rsqrt(a);
  }
};

} // namespace kops::cuda
