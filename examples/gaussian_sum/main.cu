// Flagship example on the GPU: the Gaussian kernel sum
//   a_i = sum_j exp(-g |x_i - y_j|^2) b_j
// with kops::cuda::eval on device buffers, checked against a direct
// double-precision loop on the CPU. Same data and output format as main.cpp,
// plus the time of the first call (kernel loading included: there is nothing
// to compile at run time) next to the steady-state time.
//
//   gaussian_sum_cuda [--fast] [--scheme auto|1d|2d] [M] [N]     (default M = N = 20000)
//     --fast    the fast precision policy (__expf); default: accurate (expf)
#include <kops/kops.hpp>
#include <kops/cuda.hpp>

#include <algorithm>
#include "check.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

// A device copy of a host vector (cudaMalloc / cudaFree), every call checked.
template <class T>
struct device_vector {
  T* p = nullptr;
  std::size_t n = 0;
  explicit device_vector(const std::vector<T>& h) : n(h.size()) {
    kops::cuda::detail::check(cudaMalloc(&p, n * sizeof(T)), "gaussian_sum_cuda", "cudaMalloc");
    kops::cuda::detail::check(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "gaussian_sum_cuda",
                              "copying to the device");
  }
  ~device_vector() { (void)cudaFree(p); }
  device_vector(const device_vector&) = delete;
  device_vector& operator=(const device_vector&) = delete;
};

template <kops::precision P>
int run(std::int64_t M, std::int64_t N, kops::cuda::scheme scheme) {
  // The formula is a compile-time value; its type is the expression tree.
  constexpr auto x = kops::vi<0, 3>;  // x_i in R^3, shape (M, 3)
  constexpr auto y = kops::vj<1, 3>;  // y_j in R^3, shape (N, 3)
  constexpr auto b = kops::vj<2, 1>;  // b_j, shape (N, 1)
  constexpr auto g = kops::pm<3, 1>;  // gamma, shape (1)
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);

  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> px(M * 3), py(N * 3), pb(N), pg{8.0f}, out(M);
  for (auto& v : px) v = u(rng);
  for (auto& v : py) v = u(rng);
  for (auto& v : pb) v = u(rng) - 0.5f;

  const char* w = "gaussian_sum_cuda";
  int device = 0;
  cudaDeviceProp prop{};
  kops::cuda::detail::check(cudaGetDevice(&device), w, "cudaGetDevice");
  kops::cuda::detail::check(cudaGetDeviceProperties(&prop, device), w, "cudaGetDeviceProperties");
  // Creates the CUDA context, so that the first call below measures kops alone.
  device_vector<float> dx(px), dy(py), db(pb), dg(pg), dout(out);

  kops::cuda::options opts;
  opts.scheme = scheme;
  auto call = [&] {
    kops::cuda::eval<P>(conv, M, N, dout.p, dx.p, dy.p, db.p, dg.p, opts);
    kops::cuda::detail::check(cudaDeviceSynchronize(), w, "running the reduction");
  };
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  call();
  const double first = std::chrono::duration<double>(clock::now() - t0).count();
  double steady = 1e300;
  for (int rep = 0; rep < 5; ++rep) {
    t0 = clock::now();
    call();
    steady = std::min(steady, std::chrono::duration<double>(clock::now() - t0).count());
  }
  kops::cuda::detail::check(cudaMemcpy(out.data(), dout.p, M * sizeof(float), cudaMemcpyDeviceToHost), w,
                            "copying the result to the host");

  const check_result check = check_against_direct_loop(out, px, py, pb, pg[0], M, N);
  const std::int64_t checked = check.rows;
  const double max_err = check.max_error;
  const bool ok = check.ok();

  std::printf("kops gaussian_sum on the GPU (CUDA, %s, %d SMs)\n", prop.name, prop.multiProcessorCount);
  std::printf("  formula  : a_i = sum_j exp(-g |x_i - y_j|^2) b_j, M = %lld, N = %lld, float32, "
              "precision %s, scheme %s\n",
              (long long)M, (long long)N, P == kops::precision::fast ? "fast" : "accurate",
              kops::cuda::to_string(scheme));
  std::printf("  result   : a_0 = %.7g, a_1 = %.7g, a_%lld = %.7g\n", out[0], M > 1 ? out[1] : 0.f,
              (long long)(M - 1), out[M - 1]);
  std::printf("  time     : %.4f s (%.3g pairs/s), best of 5 steady calls; first call %.4f s (%.2fx)\n", steady,
              double(M) * double(N) / steady, first, first / steady);
  std::printf("  check    : %lld rows vs a double loop, max error %.2e (relative to sum |terms|): %s\n",
              (long long)checked, max_err, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr, "gaussian_sum_cuda: %s\nusage: gaussian_sum_cuda [--fast] [--scheme auto|1d|2d] [M] [N]\n",
               msg);
  std::exit(2);
}

} // namespace

int main(int argc, char** argv) {
  bool fast = false;
  kops::cuda::scheme scheme = kops::cuda::scheme::automatic;
  std::vector<std::int64_t> sizes;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--fast") {
      fast = true;
    } else if (s == "--scheme") {
      if (++a >= argc) usage("missing value after --scheme");
      const std::string v = argv[a];
      if (v == "auto") scheme = kops::cuda::scheme::automatic;
      else if (v == "1d") scheme = kops::cuda::scheme::gpu_1d;
      else if (v == "2d") scheme = kops::cuda::scheme::gpu_2d;
      else usage("--scheme takes auto, 1d or 2d");
    } else if (!s.empty() && s[0] != '-' && sizes.size() < 2) {
      sizes.push_back(std::atoll(s.c_str()));
    } else {
      usage(("unknown argument " + s).c_str());
    }
  }
  const std::int64_t M = sizes.size() > 0 ? sizes[0] : 20000;
  const std::int64_t N = sizes.size() > 1 ? sizes[1] : 20000;
  if (M < 1 || N < 1) usage("M and N must be >= 1");
  try {
    return fast ? run<kops::precision::fast>(M, N, scheme) : run<kops::precision::accurate>(M, N, scheme);
  } catch (const kops::error& e) {
    std::fprintf(stderr, "gaussian_sum_cuda: %s\n", e.what());
    return 1;
  }
}
