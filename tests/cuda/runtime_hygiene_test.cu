// What the GPU backend leaves behind besides its results: every byte of a
// value_index output (padding included), the device allocations of a solve
// (once per solve, not once per iteration), the default memory pool's release
// threshold, and CUDA's last-error slot after a caught kops::cuda_error.
#include "cuda_support.hpp"

#include <cstddef>
#include <cstring>
#include <vector>

#include <kops/backends/cuda/solve.hpp>
#if defined(KOPS_TEST_EMULATED)
#include <kops/backends/kokkos/pack.hpp>
#endif

using namespace kops_test;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;

// A device array owned by the test, its bytes set to `fill`.
struct device_bytes {
  void* p = nullptr;
  std::size_t bytes;
  device_bytes(std::size_t n, int fill) : bytes(n) {
    kops::cuda::detail::check(cudaMalloc(&p, n), "test", "cudaMalloc");
    kops::cuda::detail::check(cudaMemset(p, fill, n), "test", "cudaMemset");
  }
  template <class T>
  explicit device_bytes(const std::vector<T>& h) : device_bytes(h.size() * sizeof(T), 0) {
    kops::cuda::detail::check(cudaMemcpy(p, h.data(), bytes, cudaMemcpyHostToDevice), "test", "cudaMemcpy");
  }
  template <class T> T* as() const { return static_cast<T*>(p); }
  std::vector<unsigned char> to_host() const {
    std::vector<unsigned char> h(bytes);
    kops::cuda::detail::check(cudaMemcpy(h.data(), p, bytes, cudaMemcpyDeviceToHost), "test", "cudaMemcpy");
    return h;
  }
  ~device_bytes() { (void)cudaFree(p); }
  device_bytes(const device_bytes&) = delete;
  device_bytes& operator=(const device_bytes&) = delete;
};

// Every element of `out` (raw bytes of n value_index<float>): padding zero,
// index in [0, cols).
void check_whole_elements(const unsigned char* out, std::int64_t n, std::int64_t cols) {
  using E = kops::value_index<float>;
  static_assert(offsetof(E, index) - sizeof(float) == 4, "value_index<float> has 4 bytes of padding");
  std::int64_t bad_padding = 0, bad_index = 0;
  for (std::int64_t e = 0; e < n; ++e) {
    const unsigned char* b = out + e * sizeof(E);
    for (std::size_t k = sizeof(float); k < offsetof(E, index); ++k) bad_padding += b[k] != 0;
    std::int64_t index;
    std::memcpy(&index, b + offsetof(E, index), sizeof index);
    bad_index += index < 0 || index >= cols;
  }
  CHECK(bad_padding == 0);
  CHECK(bad_index == 0);
}

} // namespace

// compute-sanitizer's initcheck reports a copy of bytes never written; the
// output is filled with 0xAB first, so a padding byte kops skips stays 0xAB.
TEST_CASE("GPU: value_index outputs are written whole, padding zeroed (GPU_1D and GPU_2D)", "[hygiene]") {
  constexpr std::int64_t M = 7, N = 40;
  const auto px = random_vector<float>(M * 3, -1, 1, 11);
  const auto py = random_vector<float>(N * 3, -1, 1, 12);
  const device_bytes dx(px), dy(py);
  const auto run = [&](auto red, const char* name) {
    for (const auto s : {kops::cuda::scheme::gpu_1d, kops::cuda::scheme::gpu_2d}) {
      INFO(name << " " << kops::cuda::to_string(s));
      const std::int64_t n = M * red.dim;
      device_bytes out(n * sizeof(kops::value_index<float>), 0xAB);
      kops::cuda::options o;
      o.scheme = s;
      o.gpu_2d_chunk = 5;
      kops::cuda::eval(red, M, N, out.as<kops::value_index<float>>(), dx.as<float>(), dy.as<float>(), o);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      check_whole_elements(out.to_host().data(), n, N);
    }
  };
  run(kops::min_argmin_reduction(x - y, kops::axis_j), "min_argmin");
  run(kops::max_argmax_reduction(x - y, kops::axis_j), "max_argmax");
  // kmin_argkmin writes its padding in device code only (ksmallest.hpp: on the
  // host, and so under kops::cuda_emulated, it writes the two fields).
  if (!kops_test::emulated) run(kops::kmin_argkmin_reduction<3>(kops::sqdist(x, y), kops::axis_j), "kmin_argkmin");
}

// The host side of the same finalize code: the Kokkos backend writes through
// it with its SIMD-pack math provider (lanes extracted one by one). (Not
// kmin_argkmin: it writes the two fields on the host, see ksmallest.hpp.)
TEST_CASE("CPU: the shared finalize writes value_index elements whole (scalar and SIMD-pack math)", "[hygiene]") {
  using E = kops::value_index<float>;
  const auto finalize_into = [](auto op, auto math, auto value, auto index, int lane, unsigned char* bytes) {
    using Op = decltype(op);
    using Math = decltype(math);
    using V = decltype(value);
    auto a = Op::template init<Math, V, 1>(0);
    Op::template accumulate<Math>(a, kops::vec<V, 1>{{value}}, index);
    std::memset(bytes, 0xAB, sizeof(E));
    Op::template finalize<Math>(a, lane, reinterpret_cast<E*>(bytes));
  };
  alignas(E) unsigned char bytes[sizeof(E)];
  finalize_into(kops::min_argmin_op{}, kops::scalar_math{}, 2.5f, std::int64_t(0), 0, bytes);
  check_whole_elements(bytes, 1, 1);
#if defined(KOPS_TEST_EMULATED)
  // Host compiler only (GCC vector extensions): what the Kokkos backend runs.
  // Two lanes: the index pack (int64) then fits a 16-byte register, whatever the target.
  using P = kops::simd::pack<float, 2>;
  using PM = kops::simd::pack_math;
  const P v = P{} + 1.5f;
  const auto j = PM::index<P>(0);
  for (int lane = 0; lane < P::lanes; ++lane) {
    finalize_into(kops::max_argmax_op{}, PM{}, v, j, lane, bytes);
    check_whole_elements(bytes, 1, 1);
  }
#endif
}

// The products of a solve run GPU_2D here (forced, 5-index chunks), each with
// a scratch buffer: allocated at the first product and reused by the others,
// so a longer solve makes no more device allocations than a shorter one.
TEST_CASE("GPU solve: device allocations do not grow with the iterations", "[hygiene][solve]") {
  constexpr std::int64_t n = 60;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * kops::vj<2, 1>, kops::axis_j);
  const auto px = random_vector<float>(n * 3, 0, 2, 21);
  const auto pb = random_vector<float>(n, -1, 1, 22);
  const std::vector<float> pg{2.0f};
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_2d;
  o.gpu_2d_chunk = 5;
  const auto allocations_of = [&](std::int64_t iterations) {
    kops::solve_options so;
    so.tolerance = 1e-30;  // unreachable: every solve runs its max_iterations
    so.max_iterations = iterations;
    std::vector<float> a(n);
    const auto before = kops::cuda::detail::allocation_count();
    const auto res = kops::cuda::solve_host(conv, kops::vj<2, 1>, 0.5, n, n, a.data(), px.data(), px.data(),
                                            pb.data(), pg.data(), so, o);
    CHECK(res.iterations == iterations);
    return kops::cuda::detail::allocation_count() - before;
  };
  const auto two = allocations_of(2);
  const auto eight = allocations_of(8);
  INFO("device allocations: " << two << " for 2 iterations, " << eight << " for 8");
  CHECK(two > 0);
  CHECK(eight == two);
  CHECK(kops::cuda::detail::scratch_arena::active() == nullptr);
}

// The default pool of a device kops has run on keeps up to
// pool_release_threshold bytes of freed memory across synchronisations (CUDA's
// default, 0, unmaps every freed block at each one); a threshold the user
// chose is left alone.
TEST_CASE("GPU: the default pool's release threshold is raised from 0, a user's value kept", "[hygiene]") {
  constexpr std::int64_t M = 5, N = 300;
  const auto px = random_vector<float>(M * 3, -1, 1, 31);
  const auto py = random_vector<float>(N * 3, -1, 1, 32);
  std::vector<float> out(M);
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_2d;
  kops::cuda::eval_host(kops::sum_reduction(kops::sqdist(x, y), kops::axis_j), M, N, out.data(), px.data(),
                        py.data(), o);
  int device = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess);
  const auto threshold = [&] {
    std::uint64_t t = 1;
    REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &t) == cudaSuccess);
    return t;
  };
  const auto set_threshold = [&](std::uint64_t t) {
    REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &t) == cudaSuccess);
  };
  CHECK(threshold() == kops::cuda::detail::pool_release_threshold);

  set_threshold(12345);
  kops::cuda::detail::keep_pool_memory(device);
  CHECK(threshold() == 12345);
  set_threshold(0);
  kops::cuda::detail::keep_pool_memory(device);
  CHECK(threshold() == kops::cuda::detail::pool_release_threshold);
  CHECK(cudaGetLastError() == cudaSuccess);
}

// Under the emulator only: a destroyed stream handle is what makes the quiet
// free fail here, and on a real GPU using one is undefined.
#if defined(KOPS_TEST_EMULATED)
TEST_CASE("GPU: a destructor's failed free leaves no stale error behind a caught kops::cuda_error", "[hygiene][errors]") {
  constexpr std::int64_t M = 2, N = 2;
  const device_bytes dx(M * 3 * sizeof(float), 0), dy(N * 3 * sizeof(float), 0), dout(M * sizeof(float), 0);
  kops::cuda::options bad;
  bad.device = 1 << 20;  // no such device: eval throws kops::cuda_error
  for (const bool pools : {true, false}) {
    INFO((pools ? "cudaFreeAsync" : "cudaStreamSynchronize + cudaFree"));
    cudaStream_t s = nullptr;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    void* leaked = nullptr;
    bool caught = false;
    try {
      // A buffer whose stream is gone by the time the exception unwinds it.
      kops::cuda::detail::stream_buffer b(256, s, pools, "test", "a buffer");
      leaked = b.get();
      REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
      kops::cuda::eval(kops::sum_reduction(kops::sqdist(x, y), kops::axis_j), M, N, dout.as<float>(),
                       dx.as<float>(), dy.as<float>(), bad);
    } catch (const kops::cuda_error& e) {
      caught = e.code() == cudaErrorInvalidDevice;
    }
    CHECK(caught);
    CHECK(cudaGetLastError() == cudaSuccess);
    if (pools) (void)cudaFree(leaked);  // the failed cudaFreeAsync left it allocated
  }
  // The same for a solve's scratch arena.
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  void* leaked = nullptr;
  try {
    kops::cuda::detail::scratch_arena arena(s, true);
    {
      kops::cuda::detail::stream_buffer b(256, s, true, "test", "a buffer");
      leaked = b.get();
    }
    REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
    kops::cuda::eval(kops::sum_reduction(kops::sqdist(x, y), kops::axis_j), M, N, dout.as<float>(), dx.as<float>(),
                     dy.as<float>(), bad);
  } catch (const kops::cuda_error&) {
  }
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(kops::cuda::detail::scratch_arena::active() == nullptr);
  (void)cudaFree(leaked);
}
#endif
