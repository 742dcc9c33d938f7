// Hand-written reference loops for bench_cpu. See hand_loop.hpp.
//
// Built as its own object with -O3 -march=native -ffast-math -fopenmp-simd
// (bench/CMakeLists.txt). -ffast-math here only matters for the libmvec
// variant (it lets g++ call the vector expf); the explicit-SIMD loop is written
// with intrinsics and does not depend on it. The executable is linked WITHOUT
// -ffast-math, so crtfastmath.o (which would set FTZ/DAZ for the whole
// process, kops included) is not pulled in; bench_cpu prints MXCSR to prove it.
#include "hand_loop.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#ifndef KOPS_BENCH_HAND_K
#define KOPS_BENCH_HAND_K 3  // vectors of i's per block (tuned on Sapphire Rapids: 2..3 best)
#endif

namespace kops_bench {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

// 2^r on [-0.5, 0.5]: near-minimax degree-5 polynomial (Chebyshev nodes,
// coefficients rounded to float); max relative error 1.6e-7.
constexpr float kC0 = 1.0000001192092896f;
constexpr float kC1 = 0.6931471824645996f;
constexpr float kC2 = 0.2402210682630539f;
constexpr float kC3 = 0.055503569543361664f;
constexpr float kC4 = 0.009676031768321991f;
constexpr float kC5 = 0.0013390863314270973f;

// y in struct-of-arrays, pre-scaled by s = sqrt(g log2 e), so that
// exp(-g |x-y|^2) = 2^(-|s x - s y|^2).
struct SoA {
  std::vector<float> buf;
  const float *y0, *y1, *y2, *b;
  SoA(std::int64_t N, const float* y, const float* b_, float s) : buf(4 * N) {
    float* p = buf.data();
    for (std::int64_t j = 0; j < N; ++j) {
      p[j] = s * y[3 * j];
      p[N + j] = s * y[3 * j + 1];
      p[2 * N + j] = s * y[3 * j + 2];
      p[3 * N + j] = b_[j];
    }
    y0 = p; y1 = p + N; y2 = p + 2 * N; b = p + 3 * N;
  }
};

#if defined(__AVX512F__)
constexpr int W = 16;
constexpr const char* kIsa = "avx512";
using V = __m512;
inline V vset(float a) { return _mm512_set1_ps(a); }
inline V vload(const float* p) { return _mm512_loadu_ps(p); }
inline void vstore(float* p, V v) { _mm512_storeu_ps(p, v); }
inline V vzero() { return _mm512_setzero_ps(); }
inline V vsub(V a, V b) { return _mm512_sub_ps(a, b); }
inline V vfmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
inline V vfnmadd(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }  // c - a*b
inline V vexp2(V t) {  // 2^t
  V n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  V r = _mm512_sub_ps(t, n);
  V p = vfmadd(vset(kC5), r, vset(kC4));
  p = vfmadd(p, r, vset(kC3));
  p = vfmadd(p, r, vset(kC2));
  p = vfmadd(p, r, vset(kC1));
  p = vfmadd(p, r, vset(kC0));
  return _mm512_scalef_ps(p, n);  // p * 2^n, underflows cleanly to 0
}
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int W = 8;
constexpr const char* kIsa = "avx2";
using V = __m256;
inline V vset(float a) { return _mm256_set1_ps(a); }
inline V vload(const float* p) { return _mm256_loadu_ps(p); }
inline void vstore(float* p, V v) { _mm256_storeu_ps(p, v); }
inline V vzero() { return _mm256_setzero_ps(); }
inline V vsub(V a, V b) { return _mm256_sub_ps(a, b); }
inline V vfmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
inline V vfnmadd(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
inline V vexp2(V t) {
  t = _mm256_max_ps(t, vset(-126.0f));  // keep 2^n a normal float
  V n = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  V r = _mm256_sub_ps(t, n);
  V p = vfmadd(vset(kC5), r, vset(kC4));
  p = vfmadd(p, r, vset(kC3));
  p = vfmadd(p, r, vset(kC2));
  p = vfmadd(p, r, vset(kC1));
  p = vfmadd(p, r, vset(kC0));
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
#else
constexpr int W = 1;
constexpr const char* kIsa = "scalar";
#endif

}  // namespace

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))

void gauss_sum_hand(std::int64_t M, std::int64_t N, float* out, const float* x,
                    const float* y, const float* b, float g) {
  constexpr int K = KOPS_BENCH_HAND_K;
  constexpr int BL = K * W;
  const float s = std::sqrt(g * kLog2e);
  const SoA Y(N, y, b, s);
  for (std::int64_t i0 = 0; i0 < M; i0 += BL) {
    V x0[K], x1[K], x2[K], acc[K];
    for (int k = 0; k < K; ++k) {
      alignas(64) float t0[W], t1[W], t2[W];
      for (int l = 0; l < W; ++l) {
        std::int64_t i = i0 + k * W + l;
        if (i >= M) i = M - 1;  // pad the last block with a copy of the last row
        t0[l] = s * x[3 * i];
        t1[l] = s * x[3 * i + 1];
        t2[l] = s * x[3 * i + 2];
      }
      x0[k] = vload(t0); x1[k] = vload(t1); x2[k] = vload(t2);
      acc[k] = vzero();
    }
    for (std::int64_t j = 0; j < N; ++j) {
      const V a = vset(Y.y0[j]), c = vset(Y.y1[j]), d = vset(Y.y2[j]), w = vset(Y.b[j]);
#pragma GCC unroll 8
      for (int k = 0; k < K; ++k) {
        const V dx = vsub(x0[k], a), dy = vsub(x1[k], c), dz = vsub(x2[k], d);
        V t = vfnmadd(dx, dx, vzero());  // t = -|dx|^2 ...
        t = vfnmadd(dy, dy, t);
        t = vfnmadd(dz, dz, t);
        acc[k] = vfmadd(vexp2(t), w, acc[k]);
      }
    }
    for (int k = 0; k < K; ++k) {
      alignas(64) float t[W];
      vstore(t, acc[k]);
      for (int l = 0; l < W; ++l)
        if (i0 + k * W + l < M) out[i0 + k * W + l] = t[l];
    }
  }
}

int hand_loop_block() { return KOPS_BENCH_HAND_K * W; }

#else

void gauss_sum_hand(std::int64_t M, std::int64_t N, float* out, const float* x,
                    const float* y, const float* b, float g) {
  gauss_sum_hand_libmvec(M, N, out, x, y, b, g);
}

int hand_loop_block() { return 16; }

#endif

const char* hand_loop_isa() { return kIsa; }

void gauss_sum_hand_libmvec(std::int64_t M, std::int64_t N, float* out,
                            const float* x, const float* y, const float* b,
                            float g) {
  constexpr int B = 16;
  const SoA Y(N, y, b, 1.0f);
  const float mg = -g;
  for (std::int64_t i0 = 0; i0 < M; i0 += B) {
    float x0[B], x1[B], x2[B], acc[B];
    for (int l = 0; l < B; ++l) {
      const std::int64_t i = i0 + l < M ? i0 + l : M - 1;
      x0[l] = x[3 * i]; x1[l] = x[3 * i + 1]; x2[l] = x[3 * i + 2];
      acc[l] = 0.0f;
    }
    for (std::int64_t j = 0; j < N; ++j) {
      const float a = Y.y0[j], c = Y.y1[j], d = Y.y2[j], w = Y.b[j];
#pragma omp simd
      for (int l = 0; l < B; ++l) {
        const float dx = x0[l] - a, dy = x1[l] - c, dz = x2[l] - d;
        acc[l] += std::exp(mg * (dx * dx + dy * dy + dz * dz)) * w;
      }
    }
    for (int l = 0; l < B && i0 + l < M; ++l) out[i0 + l] = acc[l];
  }
}

}  // namespace kops_bench
