// A CUDA program that uses kops as one library among others: it owns its device
// buffers (cudaMalloc), its stream (cudaStreamCreate) and its copies
// (cudaMemcpyAsync), and hands kops raw device pointers and the stream through
// kops::cuda::options. kops queues everything it does for the call (its
// kernels, and its scratch memory when it picks GPU_2D) on that stream, so the
// copies in, the reduction and the copy out run in stream order with no
// synchronisation in between; the program synchronises once, at the end.
//
//   a_i = sum_j b_j / (1 + g |x_i - y_j|^2)      (the Cauchy kernel applied to b)
//   x:(M,3) y:(N,3) b:(N,1) g:(1) -> a:(M,1), float32
//
// Checked against a double loop on the CPU (a sample of rows). Exit code:
// 0 check passed, 1 failed, 77 no CUDA device (ctest then reports "Skipped").
//
//   cuda_project [M] [N]       (default M = 200000, N = 100000)
// Build (see README.md): cmake -S . -B build -DCMAKE_PREFIX_PATH=<kops prefix> && cmake --build build
#include <kops/kops.hpp>
#include <kops/cuda.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cuda_project: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// The application's own device memory.
template <class T>
struct device_buffer {
  T* ptr = nullptr;
  explicit device_buffer(std::size_t n) { check(cudaMalloc(&ptr, n * sizeof(T)), "cudaMalloc"); }
  ~device_buffer() { (void)cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

} // namespace

int main(int argc, char** argv) {
  int devices = 0;
  const cudaError_t found = cudaGetDeviceCount(&devices);
  if (found != cudaSuccess || devices == 0) {
    std::printf("cuda_project: no CUDA device (%s): nothing to run, exiting with 77 (skipped)\n",
                found != cudaSuccess ? cudaGetErrorString(found) : "cudaGetDeviceCount returned 0");
    return 77;
  }
  const std::int64_t M = argc > 1 ? std::atoll(argv[1]) : 200000;
  const std::int64_t N = argc > 2 ? std::atoll(argv[2]) : 100000;
  if (M < 1 || N < 1) {
    std::fprintf(stderr, "usage: cuda_project [M] [N]   (M, N >= 1)\n");
    return 2;
  }

  constexpr auto x = kops::vi<0, 3>;  // x:(M,3)
  constexpr auto y = kops::vj<1, 3>;  // y:(N,3)
  constexpr auto b = kops::vj<2, 1>;  // b:(N,1)
  constexpr auto g = kops::pm<3, 1>;  // g:(1)
  constexpr auto red = kops::sum_reduction(kops::cauchy_kernel(g, x, y, b), kops::axis_j);

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> hx(M * 3), hy(N * 3), hb(N), hg{50.f}, ha(M);
  for (auto& v : hx) v = u(rng);
  for (auto& v : hy) v = u(rng);
  for (auto& v : hb) v = u(rng) - 0.5f;

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  float ms = 0;
  {
    device_buffer<float> dx(M * 3), dy(N * 3), db(N), dg(1), da(M);
    // Pageable host memory is enough here; pinned memory (cudaMallocHost) would
    // let these copies overlap other work of the host.
    check(cudaMemcpyAsync(dx.ptr, hx.data(), M * 3 * sizeof(float), cudaMemcpyHostToDevice, stream), "copy x");
    check(cudaMemcpyAsync(dy.ptr, hy.data(), N * 3 * sizeof(float), cudaMemcpyHostToDevice, stream), "copy y");
    check(cudaMemcpyAsync(db.ptr, hb.data(), N * sizeof(float), cudaMemcpyHostToDevice, stream), "copy b");
    check(cudaMemcpyAsync(dg.ptr, hg.data(), sizeof(float), cudaMemcpyHostToDevice, stream), "copy g");

    kops::cuda::options opts;
    opts.stream = stream;  // scheme (automatic) and device (the current one) keep their defaults
    try {
      kops::cuda::eval(red, M, N, da.ptr, dx.ptr, dy.ptr, db.ptr, dg.ptr, opts);  // warm-up (not timed)
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      kops::cuda::eval(red, M, N, da.ptr, dx.ptr, dy.ptr, db.ptr, dg.ptr, opts);
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
    } catch (const kops::error& e) {  // bad input, or a failed CUDA call (kops::cuda_error, with code())
      std::fprintf(stderr, "cuda_project: %s\n", e.what());
      return 1;
    }
    check(cudaMemcpyAsync(ha.data(), da.ptr, M * sizeof(float), cudaMemcpyDeviceToHost, stream), "copy a");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");  // the one synchronisation
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  }

  // CPU reference in double on a sample of rows; error relative to sum_j |term|.
  double max_err = 0;
  std::int64_t checked = 0;
  for (std::int64_t i = 0; i < M; i += M / 200 + 1, ++checked) {
    double s = 0, s_abs = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) d2 += (double(hx[i * 3 + k]) - hy[j * 3 + k]) * (double(hx[i * 3 + k]) - hy[j * 3 + k]);
      const double term = hb[j] / (1 + double(hg[0]) * d2);
      s += term, s_abs += std::abs(term);
    }
    max_err = std::fmax(max_err, std::abs(ha[i] - s) / s_abs);
  }
  const bool ok = max_err < 1e-5;

  std::printf("kops cuda_project on %s (%d SMs), own buffers and stream\n", prop.name, prop.multiProcessorCount);
  std::printf("  formula : a_i = sum_j b_j / (1 + g |x_i - y_j|^2), M = %lld, N = %lld, float32\n", (long long)M,
              (long long)N);
  std::printf("  result  : a_0 = %.7g, a_%lld = %.7g\n", ha[0], (long long)(M - 1), ha[M - 1]);
  std::printf("  time    : %.3f ms on the stream (cudaEvent), %.3g pairs/s\n", ms, double(M) * double(N) / (ms * 1e-3));
  std::printf("check: %s (%lld rows vs a double loop on the CPU, max error %.2e relative to sum |terms| < 1e-5)\n",
              ok ? "PASS" : "FAIL", (long long)checked, max_err);
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  (void)cudaStreamDestroy(stream);
  return ok ? 0 : 1;
}
