// Hand-written reference loops for the CPU benchmark (bench_cpu).
//
// Both compute the 3-D Gaussian sum, float32, single thread:
//     out[i] = sum_j exp(-g |x_i - y_j|^2) b[j]
// with x: (M,3), y: (N,3) row-major, b: (N,1), g > 0 a scalar.
//
// They live in their own translation unit (hand_loop.cpp), compiled with
// -ffast-math; the kops side of the benchmark is compiled WITHOUT it.
#pragma once

#include <cstdint>

namespace kops_bench {

// The "physical limit" reference: explicit SIMD (AVX-512, else AVX2, else
// scalar), K x 16 i's per block held in registers, struct-of-arrays y,
// g*log2(e) folded into the coordinates, inline exp2 (round + degree-5
// polynomial + scalef), accumulators in registers. Max rel. error of the
// exp2 kernel: 1.6e-7.
void gauss_sum_hand(std::int64_t M, std::int64_t N, float* out, const float* x,
                    const float* y, const float* b, float g);

// The "textbook" blocked loop: 16 i's per j in plain C++ arrays, the lane loop
// auto-vectorised by g++ (-O3 -ffast-math -fopenmp-simd), std::exp becoming a
// call to glibc's libmvec (_ZGVeN16v_expf / _ZGVdN8v_expf).
void gauss_sum_hand_libmvec(std::int64_t M, std::int64_t N, float* out,
                            const float* x, const float* y, const float* b,
                            float g);

// Which instruction set gauss_sum_hand was compiled for ("avx512", "avx2",
// "scalar"), and its block size in i's.
const char* hand_loop_isa();
int hand_loop_block();

}  // namespace kops_bench
