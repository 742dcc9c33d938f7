// A warp's tile of inner products on the tensor cores: the 16 x 8 matrix
//
//   P(r, c) = sum_k a[r][k] b[c][k]      r < 16 rows of A, c < 8 rows of B, k < D
//
// of two row-major blocks (shared or global memory, row strides lda and ldb),
// computed with the warp-level MMAs of mma.hpp in steps of 8 (TF32) or 16
// (fp16, bf16) coordinates, a last partial step padded with zeros. The result
// is left in the accumulator layout (mma_layout::c): lane l holds P(g, 2t),
// P(g, 2t+1), P(g+8, 2t), P(g+8, 2t+1), g = l / 4, t = l % 4 -- where the
// per-pair rest of a formula reads it. The whole warp calls it (a block's
// warps are its 32-thread runs of threadIdx.x: one-dimensional blocks).
//
// Arithmetic (mma_arith):
//   tf32    one TF32 product per step: each operand rounded to 10 mantissa bits
//           (cvt.rna), products exact, fp32 accumulation. Error per product up
//           to about 2^-10 relative: kops::precision::fast only.
//   tf32x3  three TF32 products per step (the split-precision scheme): x =
//           big + small with big = tf32(x), small = tf32(x - big); a b is taken
//           as big_a big_b + big_a small_b + small_a big_b (the small products
//           first). The dropped small_a small_b and the roundings of the smalls
//           leave about 2^-21 relative per product -- near fp32's 2^-24 -- with
//           fp32 accumulation: what precision::accurate may use.
//   f16     operands already fp16 (kops::half storage), one m16n8k16 per step;
//   bf16    the same with bfloat16. Products exact, fp32 accumulation.
// The accumulation order inside a tensor-core MMA is not specified; tests
// compare with bounds (tests/cuda/warp_test.cu states them).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <kops/backends/cuda/mma.hpp>
#include <kops/config.hpp>

// `#pragma unroll` for nvcc's device pass only: this file's functions are
// also compiled for the host (KOPS_HD), where GCC would warn at the pragma.
#if defined(__CUDA_ARCH__)
#define KOPS_DEVICE_UNROLL _Pragma("unroll")
#else
#define KOPS_DEVICE_UNROLL
#endif

namespace kops::cuda::detail {

enum class mma_arith { tf32, tf32x3, f16, bf16 };

// Coordinates per MMA step of an arithmetic.
KOPS_HD constexpr int mma_step(mma_arith k) { return k == mma_arith::f16 || k == mma_arith::bf16 ? 16 : 8; }

// The bits of a 16-bit element (T: std::uint16_t bit patterns, or a type
// whose object representation is the 16-bit value: kops::half, kops::bfloat16).
template <class T>
KOPS_HD KOPS_INLINE std::uint32_t bits16(const T& v) {
  static_assert(sizeof(T) == 2, "kops: internal error, a 16-bit operand");
  std::uint16_t u;
  memcpy(&u, &v, 2);
  return u;
}

// The float whose bits are u (a TF32 value is such a float).
KOPS_HD KOPS_INLINE float float_of_bits(std::uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// A's fragments for every step of D coordinates (zeros past D), loaded once
// and kept in registers while B's tiles stream past: the 16 rows of A are a
// warp's output rows, fixed for the whole reduction. TF32: the big parts, and
// for tf32x3 the small ones; 16-bit: the operand pairs as they are.
template <mma_arith K, int D>
struct mma_rows {
  static constexpr int steps = (D + mma_step(K) - 1) / mma_step(K);
  static constexpr bool split = K == mma_arith::tf32x3;
  std::uint32_t big[steps][4];
  std::uint32_t small[split ? steps : 1][4];
};

// The operand x of A or B at (row, col) of a row-major block, 0 past d columns.
template <class T>
KOPS_HD KOPS_INLINE T mma_operand_at(const T* m, int ld, int row, int col, int d) {
  return col < d ? m[row * ld + col] : T{};
}

// The TF32 fragment register of x (big), and for the split scheme its rest (small).
template <bool Split>
KOPS_HD KOPS_INLINE void tf32_parts(float x, std::uint32_t& big, std::uint32_t& small) {
  big = to_tf32(x);
  if constexpr (Split) small = to_tf32(x - float_of_bits(big));
}

/// Loads the 16 x D block a (row stride lda) into a warp's A fragments.
template <mma_arith K, int D, class T>
KOPS_HD KOPS_INLINE mma_rows<K, D> mma_load_rows(const T* a, int lda) {
  const int lane = int(threadIdx.x) % 32;
  mma_rows<K, D> r;
KOPS_DEVICE_UNROLL
  for (int s = 0; s < r.steps; ++s) {
    const int k0 = s * mma_step(K);
    if constexpr (K == mma_arith::tf32 || K == mma_arith::tf32x3) {
      for (int i = 0; i < 4; ++i) {
        const auto at = mma_layout::tf32_a(lane, i);
        tf32_parts<mma_rows<K, D>::split>(float(mma_operand_at(a, lda, at.row, k0 + at.col, D)), r.big[s][i], r.small[r.split ? s : 0][i]);
      }
    } else {
      for (int q = 0; q < 4; ++q) r.big[s][q] = 0;
      for (int i = 0; i < 8; ++i) {
        const auto at = mma_layout::h16_a(lane, i);
        r.big[s][i / 2] |= bits16(mma_operand_at(a, lda, at.row, k0 + at.col, D)) << (16 * (i & 1));
      }
    }
  }
  return r;
}

/// p += the inner products of the loaded rows with the 8 rows of b (row
/// stride ldb): the warp's 16 x 8 tile (above), B's fragments read per step.
template <mma_arith K, int D, class T>
KOPS_HD KOPS_INLINE void mma_dot_tile(const mma_rows<K, D>& r, const T* b, int ldb, float (&p)[4]) {
  const int lane = int(threadIdx.x) % 32;
KOPS_DEVICE_UNROLL
  for (int s = 0; s < r.steps; ++s) {
    const int k0 = s * mma_step(K);
    std::uint32_t fb[2] = {0, 0}, sb[2];
    if constexpr (K == mma_arith::tf32 || K == mma_arith::tf32x3) {
      for (int i = 0; i < 2; ++i) {
        const auto at = mma_layout::tf32_b(lane, i);  // B(k, n) = b[n][k]
        tf32_parts<mma_rows<K, D>::split>(float(mma_operand_at(b, ldb, at.col, k0 + at.row, D)), fb[i], sb[i]);
      }
      if constexpr (mma_rows<K, D>::split) {
        mma_tf32_m16n8k8(p, r.big[s], sb, p);  // the small products first
        mma_tf32_m16n8k8(p, r.small[s], fb, p);
      }
      mma_tf32_m16n8k8(p, r.big[s], fb, p);
    } else {
      for (int i = 0; i < 4; ++i) {
        const auto at = mma_layout::h16_b(lane, i);
        fb[i / 2] |= bits16(mma_operand_at(b, ldb, at.col, k0 + at.row, D)) << (16 * (i & 1));
      }
      if constexpr (K == mma_arith::f16) mma_f16_m16n8k16(p, r.big[s], fb, p);
      else mma_bf16_m16n8k16(p, r.big[s], fb, p);
    }
  }
}

/// The same from the 16 x D block a directly (its fragments loaded, used once).
template <mma_arith K, int D, class T>
KOPS_HD KOPS_INLINE void mma_dot_tile(const T* a, int lda, const T* b, int ldb, float (&p)[4]) {
  static_assert(D >= 1, "kops: internal error, an empty inner product");
  static_assert((K != mma_arith::tf32 && K != mma_arith::tf32x3) || std::is_same_v<T, float>,
                "kops: internal error, TF32 tiles read float operands");
  mma_dot_tile<K, D>(mma_load_rows<K, D>(a, lda), b, ldb, p);
}

} // namespace kops::cuda::detail
