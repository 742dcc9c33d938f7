// cuda_fp16.h of kops::cuda_emulated: the part of CUDA's header a .cu file
// passing 16-bit arrays to kops needs: the type __half (the bits of a
// kops::half, behind a protected member as in CUDA) and its conversions from
// and to float (rounded to nearest-even, exact). No half arithmetic.
#pragma once
#define __CUDA_FP16_H__

#include <kops/core/half.hpp>

struct __half {
  __half() = default;
  __half(float f) : __x(kops::half(f).bits()) {}
  operator float() const { return float(kops::half::from_bits(__x)); }

protected:
  unsigned short __x;
};

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
