// What a switch between emulated CUDA threads costs (kops::cuda_emulated):
// built twice by run.sh, with the emulator's own x86-64 switch and with
// glibc's swapcontext (-DKOPS_EMULATED_UCONTEXT), and run one after the other.
//
//   barriers   a kernel whose 256 threads a block pass B __syncthreads and do
//              nothing else: ns per switch (two per thread and barrier: into
//              the fiber and back)
//   gaussian   kops::cuda::eval_host of the 3-D Gaussian sum (M = N = 2000,
//              float, GPU_1D and GPU_2D): what a kops test pays
//
// Prints "name seconds" lines (the best of REPS runs).
#include <kops/kops.hpp>
#include <kops/cuda.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../timing.hpp"

namespace {

__global__ void barriers_kernel(int b, int* out) {
  int v = int(threadIdx.x);
  for (int k = 0; k < b; ++k) {
    __syncthreads();
    v += k;
  }
  if (v == -1) *out = v;  // never: keeps the loop
}

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto bj = kops::vj<2, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * bj, kops::axis_j);

} // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  const int threads = 256, blocks = 64, barriers = 64;
  int* out = nullptr;
  cudaMalloc(&out, sizeof(int));
  const double tb = bench::best_of(reps, [&] {
    int b = barriers;
    void* args[] = {&b, &out};
    cudaLaunchKernel(barriers_kernel, dim3(blocks), dim3(threads), args, 0, nullptr);
  });
  const double switches = 2.0 * threads * blocks * (barriers + 1);
  std::printf("barriers %.6f s (%.1f ns per switch)\n", tb, tb / switches * 1e9);

  const std::int64_t n = 2000;
  std::vector<float> px(n * 3), pb(n), res(n);
  for (std::size_t k = 0; k < px.size(); ++k) px[k] = float(k % 97) / 97.0f;
  for (std::size_t k = 0; k < pb.size(); ++k) pb[k] = float(k % 13) - 6.0f;
  for (const auto scheme : {kops::cuda::scheme::gpu_1d, kops::cuda::scheme::gpu_2d}) {
    kops::cuda::options o;
    o.scheme = scheme;
    const double t = bench::best_of(reps, [&] {
      kops::cuda::eval_host(conv, n, n, res.data(), px.data(), px.data(), pb.data(), o);
    });
    std::printf("gaussian_%s %.6f s\n", scheme == kops::cuda::scheme::gpu_1d ? "gpu_1d" : "gpu_2d", t);
  }
  cudaFree(out);
  return 0;
}
