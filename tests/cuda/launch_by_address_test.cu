// cudaLaunchKernel's canonical form, the real runtime's signature, with the
// kernel passed by address: cudaLaunchKernel((const void*)kernel, grid, block,
// args, shared, stream). It runs the kernel exactly as the typed form does
// (results, launch checks and errors), and an address that is no kernel is
// cudaErrorInvalidDeviceFunction. In kops::cuda_emulated a kernel is a plain
// function, found by address once a typed call has seen it or once it is
// registered (KOPS_EMULATED_KERNEL); the checks of that registry are
// emulator-only.
#include "cuda_support.hpp"

#include <vector>

namespace {

constexpr int tile = 64;

// Each block reverses its tile of `in` into `out`, through shared memory.
__global__ void reverse_tiles_kernel(int n, const float* in, float* out) {
  __shared__ float t[tile];
  const int base = int(blockIdx.x) * tile;
  const int k = int(threadIdx.x);
  t[k] = base + k < n ? in[base + k] : 0.0f;
  __syncthreads();
  if (base + tile - 1 - k < n) out[base + tile - 1 - k] = t[k];
}

// Launched by address only: never seen by a typed call.
__global__ void fill_kernel(int n, double v, double* out) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = v + i;
}
#if defined(KOPS_CUDA_EMULATED)
KOPS_EMULATED_KERNEL(fill_kernel);
#endif

#if defined(KOPS_TEST_EMULATED)
// Neither launched typed nor registered before the test launches it by address.
__global__ void unregistered_kernel(int* p) { *p = 7; }
void not_a_kernel(int*) {}
#endif

template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::size_t n) { REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess); }
  ~device_array() { cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

template <class T>
std::vector<T> to_host(const T* p, std::size_t n) {
  std::vector<T> h(n);
  REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
  return h;
}

} // namespace

TEST_CASE("cudaLaunchKernel((const void*)kernel, ...) runs the kernel as the typed form does", "[runtime]") {
  const int n = 4 * tile;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[std::size_t(i)] = float(i) * 0.5f;
  device_array<float> in(n), typed_out(n), address_out(n);
  REQUIRE(cudaMemcpy(in.p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  cudaStream_t stream;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);

  int np = n;
  const float* ip = in.p;
  float* op = typed_out.p;
  void* args[] = {&np, &ip, &op};
  REQUIRE(cudaLaunchKernel(reverse_tiles_kernel, dim3(n / tile), dim3(tile), args, 0, stream) == cudaSuccess);
  op = address_out.p;
  REQUIRE(cudaLaunchKernel((const void*)reverse_tiles_kernel, dim3(n / tile), dim3(tile), args, 0, stream) ==
          cudaSuccess);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  const auto a = to_host(typed_out.p, n);
  const auto b = to_host(address_out.p, n);
  for (int i = 0; i < n; ++i) {
    const int base = i / tile * tile;
    REQUIRE(a[std::size_t(i)] == h[std::size_t(base + tile - 1 - (i - base))]);
    REQUIRE(b[std::size_t(i)] == a[std::size_t(i)]);
  }

  // The same launch checks: a block of 2048 threads is an invalid configuration
  // either way, and becomes the last error.
  REQUIRE(cudaLaunchKernel((const void*)reverse_tiles_kernel, dim3(1), dim3(2048), args, 0, stream) ==
          cudaErrorInvalidConfiguration);
  REQUIRE(cudaGetLastError() == cudaErrorInvalidConfiguration);
  REQUIRE(cudaLaunchKernel(reverse_tiles_kernel, dim3(1), dim3(2048), args, 0, stream) ==
          cudaErrorInvalidConfiguration);
  REQUIRE(cudaGetLastError() == cudaErrorInvalidConfiguration);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("cudaLaunchKernel by address: a kernel never launched through the typed form", "[runtime]") {
  const int n = 100;
  device_array<double> out(n);
  int np = n;
  double v = 1.5;
  double* op = out.p;
  void* args[] = {&np, &v, &op};
  REQUIRE(cudaLaunchKernel((const void*)fill_kernel, dim3(4), dim3(32), args) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto h = to_host(out.p, n);
  for (int i = 0; i < n; ++i) REQUIRE(h[std::size_t(i)] == 1.5 + i);
}

#if defined(KOPS_TEST_EMULATED)
TEST_CASE("emulated cudaLaunchKernel by address: an unknown address is cudaErrorInvalidDeviceFunction", "[runtime]") {
  device_array<int> p(1);
  REQUIRE(cudaMemset(p.p, 0, sizeof(int)) == cudaSuccess);
  int* pp = p.p;
  void* args[] = {&pp};
  // No typed call has seen unregistered_kernel, nor was it registered: unknown,
  // like an address that is no kernel at all, and null.
  REQUIRE(cudaLaunchKernel((const void*)unregistered_kernel, dim3(1), dim3(1), args) ==
          cudaErrorInvalidDeviceFunction);
  REQUIRE(cudaGetLastError() == cudaErrorInvalidDeviceFunction);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  REQUIRE(cudaLaunchKernel((const void*)not_a_kernel, dim3(1), dim3(1), args) == cudaErrorInvalidDeviceFunction);
  REQUIRE(cudaLaunchKernel(nullptr, dim3(1), dim3(1), args) == cudaErrorInvalidDeviceFunction);
  REQUIRE(cudaGetLastError() == cudaErrorInvalidDeviceFunction);
  REQUIRE(to_host(p.p, 1)[0] == 0);
  // Once a typed call has seen it (here the attribute query), its address launches it.
  cudaFuncAttributes attributes;
  REQUIRE(cudaFuncGetAttributes(&attributes, unregistered_kernel) == cudaSuccess);
  REQUIRE(cudaLaunchKernel((const void*)unregistered_kernel, dim3(1), dim3(1), args) == cudaSuccess);
  REQUIRE(to_host(p.p, 1)[0] == 7);
}
#endif
