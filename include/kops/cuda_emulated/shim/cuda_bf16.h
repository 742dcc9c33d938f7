// cuda_bf16.h of kops::cuda_emulated: the type __nv_bfloat16 (the bits of a
// kops::bfloat16, behind a protected member as in CUDA) and its conversions
// from and to float (rounded to nearest-even, exact). No arithmetic.
#pragma once
#define __CUDA_BF16_H__

#include <kops/core/half.hpp>

struct __nv_bfloat16 {
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(kops::bfloat16(f).bits()) {}
  operator float() const { return float(kops::bfloat16::from_bits(__x)); }

protected:
  unsigned short __x;
};

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 h) { return float(h); }
