// kops::cuda::eval takes arrays a kernel can reach: device memory, managed
// memory, pinned or registered host memory give the double loop's result; a
// plain host array is a kops::error naming the argument (and pointing to
// eval_host) before any work, not a fault inside a kernel; eval_host still
// takes host arrays. kops::cuda::solve checks its arrays the same way. On a GPU that reads pageable memory itself (HMM, ATS)
// the host-array checks are skipped. Emulator only: cudaPointerGetAttributes
// from its table of memory, cudaHostRegister / cudaHostUnregister, and a
// kernel launched with a pointer into unknown memory failing with
// cudaErrorIllegalAddress, as a GPU faults, without running.
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda_support.hpp"

using Catch::Matchers::Contains;

namespace {

constexpr auto x = kops::vi<0, 2>;
constexpr auto y = kops::vj<1, 2>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
constexpr std::int64_t M = 37, N = 29;

// Host inputs and the double loop's output.
struct problem {
  std::vector<double> px = kops_test::random_vector<double>(M * 2, 0, 1, 81);
  std::vector<double> py = kops_test::random_vector<double>(N * 2, 0, 1, 82);
  std::vector<double> pb = kops_test::random_vector<double>(N, -1, 1, 83);
  std::vector<double> want() const {
    std::vector<double> w(M, 0.0);
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t j = 0; j < N; ++j) {
        const double d0 = px[i * 2] - py[j * 2], d1 = px[i * 2 + 1] - py[j * 2 + 1];
        w[std::size_t(i)] += std::exp(-(d0 * d0 + d1 * d1)) * pb[std::size_t(j)];
      }
    return w;
  }
};

// `n` doubles from an allocator of memory a kernel reaches (freed at scope exit).
enum class memory { device, managed, pinned };
struct buffer {
  double* p = nullptr;
  memory kind;
  buffer(memory k, std::size_t n) : kind(k) {
    const cudaError_t e = k == memory::device    ? cudaMalloc(&p, n * sizeof(double))
                          : k == memory::managed ? cudaMallocManaged(&p, n * sizeof(double))
                                                 : cudaMallocHost(&p, n * sizeof(double));
    REQUIRE(e == cudaSuccess);
  }
  buffer(memory k, const std::vector<double>& h) : buffer(k, h.size()) {
    REQUIRE(cudaMemcpy(p, h.data(), h.size() * sizeof(double), cudaMemcpyDefault) == cudaSuccess);
  }
  ~buffer() { (void)(kind == memory::pinned ? cudaFreeHost(p) : cudaFree(p)); }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  std::vector<double> host(std::size_t n) const {
    std::vector<double> h(n);
    REQUIRE(cudaMemcpy(h.data(), p, n * sizeof(double), cudaMemcpyDefault) == cudaSuccess);
    return h;
  }
};

bool reads_pageable_memory() {
  int device = 0, pageable = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) == cudaSuccess);
  return pageable != 0;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) REQUIRE(std::abs(got[k] - want[k]) <= 1e-12 * (1 + std::abs(want[k])));
}

} // namespace

TEST_CASE("kops::cuda::eval: device, managed, pinned and registered host memory", "[device_memory]") {
  const problem d;
  for (memory k : {memory::device, memory::managed, memory::pinned}) {
    INFO("memory kind " << int(k));
    buffer dx(k, d.px), dy(k, d.py), db(k, d.pb), out(k, std::size_t(M));
    kops::cuda::eval(conv, M, N, out.p, dx.p, dy.p, db.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    check_close(out.host(std::size_t(M)), d.want());
  }
  // Host memory the caller registers: the arrays as they are.
  std::vector<double> px = d.px, py = d.py, pb = d.pb, out(M, 0.0);
  for (std::vector<double>* v : {&px, &py, &pb, &out})
    REQUIRE(cudaHostRegister(v->data(), v->size() * sizeof(double), cudaHostRegisterDefault) == cudaSuccess);
  kops::cuda::eval(conv, M, N, out.data(), px.data(), py.data(), pb.data());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (std::vector<double>* v : {&px, &py, &pb, &out}) REQUIRE(cudaHostUnregister(v->data()) == cudaSuccess);
  check_close(out, d.want());
}

TEST_CASE("kops::cuda::eval: a host array is a kops::error naming it; eval_host takes it", "[device_memory]") {
  const problem d;
  if (reads_pageable_memory()) {
    SUCCEED("this GPU reads pageable host memory: host arrays are valid kernel arguments");
    return;
  }
  buffer dx(memory::device, d.px), dy(memory::device, d.py), db(memory::device, d.pb);
  buffer out(memory::device, std::vector<double>(M, 7.0));
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, M, N, out.p, dx.p, d.py.data(), db.p),
                      Contains("kops::cuda::eval: argument 1 (vj<1,2>) is not memory the GPU can reach, expected "
                               "device memory") &&
                          Contains("kops::cuda::eval_host copies them to the device"));
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, M, N, out.p, dx.p, dy.p, d.pb.data()),
                      Contains("argument 2 (vj<2,1>) is not memory the GPU can reach"));
  std::vector<double> host_out(M, 7.0);
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, M, N, host_out.data(), dx.p, dy.p, db.p),
                      Contains("kops::cuda::eval: the output pointer is not memory the GPU can reach"));
  // Batched and block-sparse calls are checked too.
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, M, N, out.p, d.px.data(), dy.p, db.p, kops::batch{1}),
                      Contains("argument 0 (vi<0,2>) is not memory the GPU can reach"));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (double v : out.host(std::size_t(M))) REQUIRE(v == 7.0);
  for (double v : host_out) REQUIRE(v == 7.0);
  // An empty axis reads nothing: its pointer is not asked about.
  kops::cuda::eval(conv, M, 0, out.p, dx.p, d.py.data(), d.pb.data());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (double v : out.host(std::size_t(M))) REQUIRE(v == 0.0);
  // eval_host copies host arrays in and out.
  kops::cuda::eval_host(conv, M, N, host_out.data(), d.px.data(), d.py.data(), d.pb.data());
  check_close(host_out, d.want());
}

TEST_CASE("kops::cuda::solve: a host array is a kops::error naming it", "[device_memory][solve]") {
  if (reads_pageable_memory()) {
    SUCCEED("this GPU reads pageable host memory: host arrays are valid kernel arguments");
    return;
  }
  const problem d;
  constexpr std::int64_t n = N;  // K = exp(-|y_i - y_j|^2) on the y cloud
  const auto K = kops::sum_reduction(kops::exp(-kops::sqdist(kops::vi<0, 2>, y)) * b, kops::axis_j);
  buffer dy(memory::device, d.py), db(memory::device, d.pb), da(memory::device, std::vector<double>(n, 7.0));
  REQUIRE_THROWS_WITH(kops::cuda::solve(K, b, 1.0, n, n, da.p, dy.p, dy.p, d.pb.data()),
                      Contains("kops::cuda::solve: argument 2 (vj<2,1>) is not memory the GPU can reach") &&
                          Contains("kops::cuda::solve_host copies them to the device"));
  std::vector<double> host_a(n, 7.0);
  REQUIRE_THROWS_WITH(kops::cuda::solve(K, b, 1.0, n, n, host_a.data(), dy.p, dy.p, db.p),
                      Contains("kops::cuda::solve: the solution pointer is not memory the GPU can reach"));
  for (double v : da.host(std::size_t(n))) REQUIRE(v == 7.0);
  for (double v : host_a) REQUIRE(v == 7.0);
  // On device arrays, and through solve_host on host arrays, the same solution.
  REQUIRE(kops::cuda::solve(K, b, 1.0, n, n, da.p, dy.p, dy.p, db.p).converged);
  REQUIRE(kops::cuda::solve_host(K, b, 1.0, n, n, host_a.data(), d.py.data(), d.py.data(), d.pb.data()).converged);
  const auto on_device = da.host(std::size_t(n));
  for (std::int64_t k = 0; k < n; ++k) REQUIRE(std::abs(on_device[std::size_t(k)] - host_a[std::size_t(k)]) <= 1e-8);
}

#if defined(KOPS_TEST_EMULATED)
namespace {
__global__ void store_kernel(double* p, double v) { p[threadIdx.x] = v; }
} // namespace

TEST_CASE("emulated memory: cudaPointerGetAttributes, cudaHostRegister", "[device_memory][runtime]") {
  buffer dev(memory::device, 4), managed(memory::managed, 4), pinned(memory::pinned, 4);
  std::vector<double> host(4, 0.0);
  cudaPointerAttributes a{};
  REQUIRE(cudaPointerGetAttributes(&a, dev.p + 3) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeDevice);
  CHECK(a.devicePointer == dev.p + 3);
  CHECK(a.hostPointer == nullptr);
  REQUIRE(cudaPointerGetAttributes(&a, managed.p) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeManaged);
  CHECK((a.devicePointer == managed.p && a.hostPointer == managed.p));
  REQUIRE(cudaPointerGetAttributes(&a, pinned.p) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeHost);
  CHECK(a.devicePointer == pinned.p);
  REQUIRE(cudaPointerGetAttributes(&a, host.data()) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeUnregistered);
  CHECK(a.devicePointer == nullptr);
  REQUIRE(cudaPointerGetAttributes(&a, dev.p + 4) == cudaSuccess);  // one past the end: no allocation's
  CHECK(a.type == cudaMemoryTypeUnregistered);
  REQUIRE(cudaPointerGetAttributes(nullptr, dev.p) == cudaErrorInvalidValue);
  (void)cudaGetLastError();
  // Registered, host memory is mapped; twice, or overlapping, it is refused.
  REQUIRE(cudaHostRegister(host.data(), 4 * sizeof(double), cudaHostRegisterDefault) == cudaSuccess);
  REQUIRE(cudaPointerGetAttributes(&a, host.data() + 2) == cudaSuccess);
  CHECK(a.type == cudaMemoryTypeHost);
  CHECK(a.devicePointer == host.data() + 2);
  CHECK(cudaHostRegister(host.data() + 1, sizeof(double), 0) == cudaErrorHostMemoryAlreadyRegistered);
  std::vector<double> other(8, 0.0);  // a range that runs into a registered one
  REQUIRE(cudaHostRegister(other.data() + 4, 2 * sizeof(double), 0) == cudaSuccess);
  CHECK(cudaHostRegister(other.data(), 5 * sizeof(double), 0) == cudaErrorHostMemoryAlreadyRegistered);
  CHECK(cudaHostRegister(other.data(), 4 * sizeof(double), 0) == cudaSuccess);  // up to it: fine
  REQUIRE(cudaHostUnregister(other.data()) == cudaSuccess);
  REQUIRE(cudaHostUnregister(other.data() + 4) == cudaSuccess);
  CHECK(cudaFreeHost(host.data()) == cudaErrorInvalidValue);  // the caller's memory, not the runtime's
  REQUIRE(cudaHostUnregister(host.data()) == cudaSuccess);
  CHECK(cudaHostUnregister(host.data()) == cudaErrorHostMemoryNotRegistered);
  REQUIRE(cudaGetLastError() == cudaErrorHostMemoryNotRegistered);
}

TEST_CASE("emulated launch: a pointer parameter into unknown memory is cudaErrorIllegalAddress", "[device_memory][runtime]") {
  buffer dev(memory::device, 4);
  std::vector<double> host(4, 1.0);
  double* hp = host.data();
  double v = 2.5;
  void* args[] = {&hp, &v};
  REQUIRE(cudaLaunchKernel(store_kernel, dim3(1), dim3(4), args) == cudaErrorIllegalAddress);
  REQUIRE(cudaGetLastError() == cudaErrorIllegalAddress);
  for (double h : host) REQUIRE(h == 1.0);  // the kernel did not run
  double* dp = dev.p;
  args[0] = &dp;
  REQUIRE(cudaLaunchKernel(store_kernel, dim3(1), dim3(4), args) == cudaSuccess);
  for (double h : dev.host(4)) REQUIRE(h == 2.5);
  REQUIRE(cudaHostRegister(host.data(), 4 * sizeof(double), 0) == cudaSuccess);
  args[0] = &hp;
  REQUIRE(cudaLaunchKernel(store_kernel, dim3(1), dim3(4), args) == cudaSuccess);
  REQUIRE(cudaHostUnregister(host.data()) == cudaSuccess);
  for (double h : host) REQUIRE(h == 2.5);
}
#endif
