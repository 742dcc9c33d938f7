// Consumer check of the tensor-core contract (DESIGN.md, third wave): a wide
// Gaussian sum and a nearest-neighbour search through kops::cuda::eval on
// device memory, the tensor cores allowed (the default) and refused
// (kops::tensor_cores::off), each compared with a double loop. Built with
// kops_use_cuda_emulated: the kernels run on CPU fibers, the MMAs as the PTX
// ISA specifies them. Exit status 0 = match. (Compiled for sm_90 with nvcc,
// the same source's reduce kernel is HMMA: docs/tensor_cores.md.)
#include <kops/cuda.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

template <class T>
T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  if (cudaMalloc(&d, h.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}
template <class T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

} // namespace

int main() {
  constexpr int D = 64;
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
  constexpr auto knn = kops::argmin_reduction(kops::sqdist(x, y), kops::axis_j);

  const std::int64_t M = 45, N = 131;
  std::vector<float> px(M * D), py(N * D), pb(N), pg{1.0f / D};
  for (std::int64_t k = 0; k < N * D; ++k) py[k] = float(std::sin(0.37 * double(k) + 0.1 * double(k % 7)));
  for (std::int64_t k = 0; k < N; ++k) pb[k] = 0.5f + 0.01f * float(k);
  // x_i near y_(3i mod N): its nearest neighbour, far ahead of the others
  for (std::int64_t i = 0; i < M; ++i)
    for (int k = 0; k < D; ++k) px[i * D + k] = py[((3 * i) % N) * D + k] + 0.01f * float(std::cos(double(i + k)));

  float *dx = to_device(px), *dy = to_device(py), *db = to_device(pb), *dg = to_device(pg), *dout = nullptr;
  std::int64_t* didx = nullptr;
  cudaMalloc(&dout, M * sizeof(float));
  cudaMalloc(&didx, M * sizeof(std::int64_t));
  if (!dx || !dy || !db || !dg || !dout || !didx) {
    std::fprintf(stderr, "tensor_cores consumer: cudaMalloc failed\n");
    return 1;
  }

  int bad = 0;
  for (int tc = 0; tc < 2; ++tc) {
    if (tc == 0) {
      kops::cuda::eval<kops::precision::fast>(conv, M, N, dout, dx, dy, db, dg);
      kops::cuda::eval<kops::precision::fast>(knn, M, N, didx, dx, dy);
    } else {
      kops::cuda::eval<kops::precision::fast, kops::tensor_cores::off>(conv, M, N, dout, dx, dy, db, dg);
      kops::cuda::eval<kops::tensor_cores::off, kops::precision::fast>(knn, M, N, didx, dx, dy);
    }
    cudaDeviceSynchronize();
    const auto out = to_host(dout, std::size_t(M));
    const auto idx = to_host(didx, std::size_t(M));
    for (std::int64_t i = 0; i < M; ++i) {
      double want = 0, mass = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        double d2 = 0;
        for (int k = 0; k < D; ++k) d2 += (double(px[i * D + k]) - py[j * D + k]) * (double(px[i * D + k]) - py[j * D + k]);
        want += std::exp(-double(pg[0]) * d2) * pb[j];
        mass += std::abs(double(pb[j]));
      }
      // TF32 distances (tensor cores, fast policy): about 2^-10 (|x|^2 + |y|^2) g of each exponent
      if (std::abs(double(out[i]) - want) > 2e-3 * mass || idx[i] != (3 * i) % N) {
        std::fprintf(stderr, "tensor_cores consumer (%s): row %lld: %g vs %g, index %lld vs %lld\n",
                     tc == 0 ? "tensor cores" : "off", (long long)i, double(out[i]), want, (long long)idx[i],
                     (long long)((3 * i) % N));
        ++bad;
      }
    }
  }
  cudaFree(dx), cudaFree(dy), cudaFree(db), cudaFree(dg), cudaFree(dout), cudaFree(didx);
  if (bad == 0) std::printf("tensor_cores consumer: OK\n");
  return bad == 0 ? 0 : 1;
}
