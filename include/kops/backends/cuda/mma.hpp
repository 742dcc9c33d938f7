// Warp-level matrix multiply-accumulate (PTX mma.sync) for the tensor-core
// path, D = A B + C over one warp, fp32 accumulators:
//
//   mma_tf32_m16n8k8   A 16x8 (row), B 8x8 (col), TF32 operands      sm_80+
//   mma_f16_m16n8k16   A 16x16 (row), B 16x8 (col), fp16 operands    sm_80+
//   mma_bf16_m16n8k16  the same with bf16 operands                   sm_80+
//
// Each lane holds fragments of A, B and C/D as the PTX ISA lays them out
// ("Matrix Fragments for mma.m16n8k8 / mma.m16n8k16"), with g = lane / 4 and
// t = lane % 4:
//
//   m16n8k8 tf32   a[0..3]: A(g, t), A(g+8, t), A(g, t+4), A(g+8, t+4)
//                  b[0..1]: B(t, g), B(t+4, g)
//   m16n8k16 16-bit, two elements per 32-bit register (element 2r low, 2r+1 high):
//                  a[0..7]: A(g, 2t), A(g, 2t+1), A(g+8, 2t), A(g+8, 2t+1),
//                           then the same at columns + 8
//                  b[0..3]: B(2t, g), B(2t+1, g), B(2t+8, g), B(2t+9, g)
//   C and D        c[0..3]: C(g, 2t), C(g, 2t+1), C(g+8, 2t), C(g+8, 2t+1)
//
// (mma_layout below states the same as functions; the tests check the
// kernels' loads against it and the products against plain loops.)
//
// On a GPU each call is one mma.sync instruction (HMMA in SASS), executed by
// the whole warp together. Under kops::cuda_emulated the warp's lanes publish
// their fragments (kops::cuda_emulated::warp_exchange, two warp barriers) and
// each lane computes its four outputs from the assembled A and B: the
// operands' low bits are ignored as the hardware ignores them (TF32: the low 13
// bits of each float), products are exact, and the sums are accumulated in
// double and rounded once, so the emulation is at least as accurate as the
// hardware, whose order of accumulation inside an MMA is unspecified: compare
// with tolerances. to_tf32 rounds a float to TF32 as cvt.rna.tf32.f32 does
// (to nearest, ties away from zero).
#pragma once

#include <cstdint>

#include <kops/config.hpp>
#include <kops/core/half.hpp>
#if defined(KOPS_CUDA_EMULATED)
#include <kops/cuda_emulated/scheduler.hpp>
#endif

namespace kops::cuda::detail {

// Which element of A, B or C a lane's fragment register holds, per the ISA.
struct mma_layout {
  struct at {
    int row, col;
  };
  // m16n8k8 tf32
  KOPS_HD static constexpr at tf32_a(int lane, int i) { return {lane / 4 + (i & 1) * 8, lane % 4 + (i / 2) * 4}; }
  KOPS_HD static constexpr at tf32_b(int lane, int i) { return {lane % 4 + i * 4, lane / 4}; }
  // m16n8k16 fp16 / bf16 (i: the element, 0 .. 7 for A, 0 .. 3 for B)
  KOPS_HD static constexpr at h16_a(int lane, int i) {
    return {lane / 4 + ((i / 2) & 1) * 8, (lane % 4) * 2 + (i & 1) + (i / 4) * 8};
  }
  KOPS_HD static constexpr at h16_b(int lane, int i) { return {(lane % 4) * 2 + (i & 1) + (i / 2) * 8, lane / 4}; }
  // the accumulators, every shape
  KOPS_HD static constexpr at c(int lane, int i) { return {lane / 4 + (i / 2) * 8, (lane % 4) * 2 + (i & 1)}; }
};

// x rounded to TF32 (10 explicit mantissa bits; the low 13 bits of the
// result are 0), to nearest with ties away from zero: cvt.rna.tf32.f32.
KOPS_HD KOPS_INLINE std::uint32_t to_tf32(float x) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
#else
  std::uint32_t u = __builtin_bit_cast(std::uint32_t, x);
  if ((u & 0x7f800000u) != 0x7f800000u) u += 0x1000u;  // finite: half an ulp of TF32 on the magnitude
  return u & 0xffffe000u;
#endif
}

// The fragments of one warp-level MMA: what a lane passes in.
struct mma_fragments {
  std::uint32_t a[4];
  std::uint32_t b[2];
  float c[4];
};

// The operand types of the MMAs below.
enum class mma_kind { tf32, f16, bf16 };

#if defined(KOPS_CUDA_EMULATED)
// The value of an operand's element from its register bits.
template <mma_kind K>
inline double mma_operand(std::uint32_t bits, int half) {
  if constexpr (K == mma_kind::tf32) {
    return double(__builtin_bit_cast(float, bits & 0xffffe000u));
  } else {
    const auto h = std::uint16_t(half ? bits >> 16 : bits & 0xffffu);
    if constexpr (K == mma_kind::f16) return double(kops::detail::half_bits_to_float(h));
    else return double(__builtin_bit_cast(float, std::uint32_t(h) << 16));
  }
}

template <mma_kind K>
inline void mma_emulated(float (&d)[4], const mma_fragments& mine) {
  constexpr int depth = K == mma_kind::tf32 ? 8 : 16;
  const mma_fragments sum = kops::cuda_emulated::warp_exchange(mine, [&](auto lane_value, unsigned lane, unsigned lanes) {
    if (lanes != 32) kops::cuda_emulated::detail::fatal("mma.sync needs a full warp of 32 lanes, this one has %u", lanes);
    double a[16][16], b[16][8];
    for (int l = 0; l < 32; ++l) {
      const mma_fragments f = lane_value(unsigned(l));
      if constexpr (K == mma_kind::tf32) {
        for (int i = 0; i < 4; ++i) {
          const auto p = mma_layout::tf32_a(l, i);
          a[p.row][p.col] = mma_operand<K>(f.a[i], 0);
        }
        for (int i = 0; i < 2; ++i) {
          const auto p = mma_layout::tf32_b(l, i);
          b[p.row][p.col] = mma_operand<K>(f.b[i], 0);
        }
      } else {
        for (int i = 0; i < 8; ++i) {
          const auto p = mma_layout::h16_a(l, i);
          a[p.row][p.col] = mma_operand<K>(f.a[i / 2], i & 1);
        }
        for (int i = 0; i < 4; ++i) {
          const auto p = mma_layout::h16_b(l, i);
          b[p.row][p.col] = mma_operand<K>(f.b[i / 2], i & 1);
        }
      }
    }
    mma_fragments out = mine;
    for (int i = 0; i < 4; ++i) {
      const auto p = mma_layout::c(int(lane), i);
      double s = double(mine.c[i]);
      for (int k = 0; k < depth; ++k) s += a[p.row][k] * b[k][p.col];
      out.c[i] = float(s);
    }
    return out;
  });
  for (int i = 0; i < 4; ++i) d[i] = sum.c[i];
}
#endif

// D = A B + C of kind K over one warp (the wrappers below name the kinds).
template <mma_kind K>
KOPS_HD KOPS_INLINE void mma_sync(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                  const float (&c)[4]) {
#if defined(KOPS_CUDA_EMULATED)
  mma_emulated<K>(d, mma_fragments{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {c[0], c[1], c[2], c[3]}});
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define KOPS_MMA_OPERANDS                                                                                          \
  : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                                                 \
  : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3])
  if constexpr (K == mma_kind::tf32)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};" KOPS_MMA_OPERANDS);
  else if constexpr (K == mma_kind::f16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};" KOPS_MMA_OPERANDS);
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};" KOPS_MMA_OPERANDS);
#undef KOPS_MMA_OPERANDS
#elif defined(__CUDA_ARCH__)
  (void)d, (void)a, (void)b, (void)c;
  __trap();  // no tensor-core MMA of these shapes before sm_80: the tensor-core path is never planned there
#else
  (void)d, (void)a, (void)b, (void)c;
#endif
}

/// D = A B + C, m16n8k8, TF32 operands (a, b: TF32 bit patterns, e.g. from
/// to_tf32), fp32 accumulators; the whole warp calls it (layouts above).
KOPS_HD KOPS_INLINE void mma_tf32_m16n8k8(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                          const float (&c)[4]) {
  mma_sync<mma_kind::tf32>(d, a, b, c);
}

/// D = A B + C, m16n8k16, fp16 operands (two per register, low half first),
/// fp32 accumulators; the whole warp calls it.
KOPS_HD KOPS_INLINE void mma_f16_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                          const float (&c)[4]) {
  mma_sync<mma_kind::f16>(d, a, b, c);
}

/// D = A B + C, m16n8k16, bf16 operands (two per register, low half first),
/// fp32 accumulators; the whole warp calls it.
KOPS_HD KOPS_INLINE void mma_bf16_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                           const float (&c)[4]) {
  mma_sync<mma_kind::bf16>(d, a, b, c);
}

} // namespace kops::cuda::detail
