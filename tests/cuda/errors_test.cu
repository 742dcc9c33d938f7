// Errors, streams and devices of the GPU backend: bad input is a kops::error
// naming the function and the argument; a failing CUDA call is a
// kops::cuda_error carrying CUDA's message and what kops was doing; eval on
// device pointers runs on the caller's stream and leaves the current device
// as it found it.
#include "cuda_support.hpp"

#include <vector>

using Catch::Matchers::Contains;
using namespace kops_test;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)), kops::axis_j);

// The extension points' concepts hold for the GPU backend's types
// (tests/static/concepts.cpp checks the CPU's).
using gpu_traits = kops::cuda::detail::kernel_traits<decltype(conv), float, kops::precision::fast,
                                                     kops::sum_scheme::block, kops::dtype_acc::same>;
static_assert(kops::MathProvider<kops::scalar_math, float> && kops::MathProvider<kops::cuda::fast_math, float>);
static_assert(kops::EvaluationContext<kops::cuda::detail::tile_context<gpu_traits>>);
static_assert(kops::ReductionOp<typename gpu_traits::op, kops::cuda::detail::tile_context<gpu_traits>, 1>);
// ... and each backend models the protocol it claims (detail/dispatch.hpp):
// device_backend every capability, structures in device memory included;
// host_copy_backend (eval_host) its own call, which runs device_backend's.
using kops::cuda::detail::device_backend;
using kops::cuda::detail::host_copy_backend;
static_assert(kops::detail::Backend<device_backend> && kops::detail::RangedBackend<device_backend>);
static_assert(kops::detail::HostSparsityBackend<device_backend> && kops::detail::BatchedBackend<device_backend>);
static_assert(kops::detail::OutputChunkedBackend<device_backend> && !kops::detail::OwnCallBackend<device_backend>);
static_assert(kops::detail::EvalBackend<device_backend> && kops::detail::check_eval_backend<device_backend>());
static_assert(kops::detail::OwnCallBackend<host_copy_backend> && !kops::detail::Backend<host_copy_backend>);
static_assert(kops::detail::EvalBackend<host_copy_backend> && kops::detail::check_eval_backend<host_copy_backend>());
// The solve front end's solvers (solve/solve_call.hpp).
static_assert(kops::detail::Solver<kops::cuda::detail::device_solver>);
static_assert(kops::detail::Solver<kops::cuda::detail::host_copy_solver>);

// A device array owned by the test (cudaMalloc / cudaFree).
template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(std::size_t n) {
    kops::cuda::detail::check(cudaMalloc(&p, n * sizeof(T)), "test", "cudaMalloc");
  }
  ~device_array() { (void)cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

struct stream_owner {
  cudaStream_t s = nullptr;
  stream_owner() { kops::cuda::detail::check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "test", "cudaStreamCreate"); }
  ~stream_owner() { (void)cudaStreamDestroy(s); }
};

} // namespace

// The arguments are checked before any CUDA call: this test needs no GPU (the
// "device" pointers below are never dereferenced).
TEST_CASE("GPU: null pointers and negative sizes are a kops::error naming the argument", "[errors]") {
  float px[6], py[6], out[2];
  const float* null = nullptr;
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, 2, 2, out, px, null),
                      Contains("kops::cuda::eval: argument 1 (vj<1,3>) is a null pointer"));
  REQUIRE_THROWS_AS(kops::cuda::eval(conv, 2, 2, out, null, py), kops::error);
  float* null_out = nullptr;
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, 2, 2, null_out, px, py), Contains("the output pointer is null"));
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, -1, 2, out, px, py),
                      Contains("kops::cuda::eval: M (the number of i rows) must be >= 0, got -1"));
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_2d;
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, 2, 2, out, null, py, o),
                      Contains("kops::cuda::eval: argument 0 (vi<0,3>) is a null pointer"));

  std::vector<float> hx(6), hy(6), hout(2);
  REQUIRE_THROWS_WITH(kops::cuda::eval_host(conv, 2, 2, hout.data(), hx.data(), null),
                      Contains("kops::cuda::eval_host: argument 1 (vj<1,3>) is a null pointer"));
  REQUIRE_THROWS_WITH(kops::cuda::eval_host(conv, 2, -5, hout.data(), hx.data(), hy.data()),
                      Contains("kops::cuda::eval_host: N (the number of j rows) must be >= 0, got -5"));
}

TEST_CASE("GPU: a failing CUDA call is a kops::cuda_error with CUDA's message", "[errors]") {
  std::vector<float> hx(6), hy(6), hout(2);
  kops::cuda::options bad;
  bad.device = 1 << 20;  // no such device: cudaSetDevice fails
  try {
    kops::cuda::eval_host(conv, 2, 2, hout.data(), hx.data(), hy.data(), bad);
    FAIL("no exception");
  } catch (const kops::cuda_error& e) {
    CHECK(e.code() == cudaErrorInvalidDevice);
    const std::string what = e.what();
    CHECK_THAT(what, Contains("kops::cuda::eval_host: selecting device 1048576"));
    CHECK_THAT(what, Contains(cudaGetErrorString(cudaErrorInvalidDevice)));
  }
  device_array<float> px(6), py(6), out(2);
  REQUIRE_THROWS_AS(kops::cuda::eval(conv, 2, 2, out.p, px.p, py.p, bad), kops::cuda_error);
  REQUIRE_THROWS_AS(kops::cuda::eval(conv, 2, 2, out.p, px.p, py.p, bad), kops::error);
  // The error was reported, not left behind for the next CUDA call.
  CHECK(cudaGetLastError() == cudaSuccess);

  // The checking helper itself.
  REQUIRE_THROWS_WITH(kops::cuda::detail::check(cudaErrorMemoryAllocation, "kops::cuda::eval", "allocating X"),
                      Contains("kops::cuda::eval: allocating X: cudaErrorMemoryAllocation: ") &&
                          Contains(cudaGetErrorString(cudaErrorMemoryAllocation)));
  STATIC_REQUIRE(std::is_base_of_v<kops::error, kops::cuda_error>);
}

TEST_CASE("GPU: eval on device pointers runs on the caller's stream, for every scheme", "[streams]") {
  constexpr std::int64_t M = 1000, N = 3000;
  const auto hx = random_vector<float>(M * 3, 0, 1, 81), hy = random_vector<float>(N * 3, 0, 1, 82);
  std::vector<double> ref(M);
  reference_eval<double>(conv, M, N, ref.data(), hx.data(), hy.data());

  stream_owner stream;
  device_array<float> px(M * 3), py(N * 3), out(M);
  const char* w = "test";
  kops::cuda::detail::check(cudaMemcpyAsync(px.p, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice, stream.s), w, "copy");
  kops::cuda::detail::check(cudaMemcpyAsync(py.p, hy.data(), hy.size() * 4, cudaMemcpyHostToDevice, stream.s), w, "copy");
  for (auto s : {kops::cuda::scheme::automatic, kops::cuda::scheme::gpu_1d, kops::cuda::scheme::gpu_2d}) {
    kops::cuda::options o;
    o.stream = stream.s;
    o.scheme = s;
    kops::cuda::detail::check(cudaMemsetAsync(out.p, 0xff, M * 4, stream.s), w, "memset");  // NaN
    kops::cuda::eval(conv, M, N, out.p, px.p, py.p, o);
    std::vector<float> h(M);
    kops::cuda::detail::check(cudaMemcpyAsync(h.data(), out.p, M * 4, cudaMemcpyDeviceToHost, stream.s), w, "copy");
    kops::cuda::detail::check(cudaStreamSynchronize(stream.s), w, "sync");
    INFO("scheme " << kops::cuda::to_string(s));
    for (std::int64_t i = 0; i < M; ++i) REQUIRE(close(h[i], ref[i], 1e-4));
  }
}

TEST_CASE("GPU: options.device runs on that device and restores the current one", "[devices]") {
  int count = 0, before = -1, after = -1;
  kops::cuda::detail::check(cudaGetDeviceCount(&count), "test", "cudaGetDeviceCount");
  kops::cuda::detail::check(cudaGetDevice(&before), "test", "cudaGetDevice");
  const std::vector<float> hx{0, 0, 0, 1, 1, 1}, hy{0, 0, 0};
  std::vector<float> out(2);
  kops::cuda::options o;
  o.device = count > 1 ? (before + 1) % count : before;
  kops::cuda::eval_host(conv, 2, 1, out.data(), hx.data(), hy.data(), o);
  kops::cuda::detail::check(cudaGetDevice(&after), "test", "cudaGetDevice");
  CHECK(after == before);
  CHECK(out[0] == 1.f);
  CHECK(out[1] == Approx(std::exp(-3.0)));
}
