// The embedded profile on the GPU backend (docs/embedded.md): bad input to
// kops::cuda::eval / eval_host / solve / solve_host and a failing CUDA call,
// built without exceptions and RTTI, call the error handler with the message
// kops::error (kops::cuda_error) carries and return at once, the output
// untouched; the default handler prints the message and aborts. Built three
// ways: by nvcc (-Xcompiler -fno-exceptions,-fno-rtti; run where there is a
// GPU), and against kops::cuda_emulated with and without exceptions (run
// everywhere: the same messages in both modes).
#include "harness.hpp"

#include <kops/kops.hpp>
#include <kops/cuda.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

using namespace embedded_test;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);  // out:(M, 1)
constexpr auto kmin6 = kops::kmin_reduction<6>(kops::sqdist(x, y), kops::axis_j);

constexpr float sentinel = -12345.5f;

// A device array of n floats (cudaMalloc); a failed CUDA call here ends the test.
struct device_array {
  float* p = nullptr;
  std::size_t n = 0;
  explicit device_array(const std::vector<float>& h) : n(h.size()) {
    if (cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)) != cudaSuccess ||
        cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {
      std::printf("cannot set up a device array\n");
      std::exit(2);
    }
  }
  ~device_array() { (void)cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  std::vector<float> host() const {
    std::vector<float> h(n);
    if (cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) h.assign(n, 0.0f);
    return h;
  }
  bool untouched() const {
    const std::vector<float> h = host();
    return embedded_test::untouched(h.data(), h.size(), sentinel);
  }
};

std::vector<float> filled(std::size_t n, float step, int period) {
  std::vector<float> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = step * float(k % std::size_t(period));
  return v;
}

void eval_cases() {
  const std::int64_t M = 4, N = 5;
  const std::vector<float> hx = filled(3 * M, 0.1f, 7), hy = filled(3 * N, 0.2f, 5), hb(N, 1.0f), hg{0.5f};
  const device_array dx(hx), dy(hy), db(hb), dg(hg);
  device_array out(std::vector<float>(64, sentinel));
  const float* null = nullptr;
  const auto bad_eval = [&](const char* name, const char* message, auto&& call) {
    expect_failure(name, message, call);
    expect(out.untouched(), "%s: the output is untouched", name);
  };
  bad_eval("eval: negative M", "kops::cuda::eval: M (the number of i rows) must be >= 0, got -1",
           [&] { kops::cuda::eval(conv, -1, N, out.p, dx.p, dy.p, db.p, dg.p); });
  bad_eval("eval: null argument", "kops::cuda::eval: argument 1 (vj<1,3>) is a null pointer",
           [&] { kops::cuda::eval(conv, M, N, out.p, dx.p, null, db.p, dg.p); });
  bad_eval("eval: k-min with K > N",
           "kops::cuda::eval: kmin_reduction<6> needs at least 6 terms per output row, but the reduced axis has N = 5",
           [&] { kops::cuda::eval(kmin6, M, N, out.p, dx.p, dy.p); });
  bad_eval("eval: output overlapping an input",
           "kops::cuda::eval: the output array overlaps argument 0 (vi<0,3>) with M = 4, N = 5; kops reads the "
           "inputs while it writes the output, so the output needs its own buffer (or, if it has one, M or N is "
           "larger than the arrays: the range form, std::span arguments, checks every size)",
           [&] { kops::cuda::eval(conv, M, N, out.p, out.p, dy.p, db.p, dg.p); });
  // A failing CUDA call: a device that does not exist (a kops::cuda_error with exceptions).
  kops::cuda::options on_missing_device;
  on_missing_device.device = 1000;
  expect_failure<kops::cuda_error>(
      "eval: a failing CUDA call", "kops::cuda::eval: selecting device 1000: cudaErrorInvalidDevice: invalid device ordinal",
      [&] { kops::cuda::eval(conv, M, N, out.p, dx.p, dy.p, db.p, dg.p, on_missing_device); });
  expect(out.untouched(), "eval: a failing CUDA call: the output is untouched");
  expect(cudaGetLastError() == cudaSuccess, "eval: a failing CUDA call: CUDA's last error is cleared");

  // eval_host: host arrays.
  std::vector<float> hout(64, sentinel);
  const auto bad_host = [&](const char* name, const char* message, auto&& call) {
    hout.assign(64, sentinel);
    expect_failure(name, message, call);
    expect(untouched(hout.data(), hout.size(), sentinel), "%s: the output is untouched", name);
  };
  bad_host("eval_host: negative N", "kops::cuda::eval_host: N (the number of j rows) must be >= 0, got -5",
           [&] { kops::cuda::eval_host(conv, M, -5, hout.data(), hx.data(), hy.data(), hb.data(), hg.data()); });
  bad_host("eval_host: null output", "kops::cuda::eval_host: the output pointer is null", [&] {
    float* no_out = nullptr;
    kops::cuda::eval_host(conv, M, N, no_out, hx.data(), hy.data(), hb.data(), hg.data());
  });
  bad_host("eval_host: a failing CUDA call",
           "kops::cuda::eval_host: selecting device 1000: cudaErrorInvalidDevice: invalid device ordinal",
           [&] { kops::cuda::eval_host(conv, M, N, hout.data(), hx.data(), hy.data(), hb.data(), hg.data(), on_missing_device); });

  // A good call works and calls no handler.
  messages().clear();
  hout.assign(64, sentinel);
  kops::cuda::eval_host(conv, M, N, hout.data(), hx.data(), hy.data(), hb.data(), hg.data());
  double worst = 0;
  for (std::int64_t i = 0; i < M; ++i) {
    double s = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double t = double(hx[std::size_t(3 * i + k)]) - double(hy[std::size_t(3 * j + k)]);
        r2 += t * t;
      }
      s += std::exp(-double(hg[0]) * r2) * double(hb[std::size_t(j)]);
    }
    worst = std::fmax(worst, std::abs(double(hout[std::size_t(i)]) - s) / s);
  }
  expect(worst < 1e-5, "a good eval_host: the sums (relative error %.2g)", worst);
  expect(hout[std::size_t(M)] == sentinel, "a good eval_host: nothing written past the output");
  expect(messages().empty(), "a good eval_host: no handler call (%zu calls)", messages().size());
}

void solve_cases() {
  const std::int64_t n = 12;
  const std::vector<float> hx = filled(3 * n, 0.3f, 11), hb = filled(n, -0.1f, 12), hg{0.5f};
  const device_array dx(hx), db(hb), dg(hg);
  device_array a(std::vector<float>(std::size_t(n), sentinel));
  const double alpha = 0.5;
  const auto bad_solve = [&](const char* name, const char* message, auto&& call, auto&& untouched_a) {
    kops::solve_result res;
    res.iterations = -1;
    expect_failure(name, message, [&] { res = call(); });
    expect(untouched_a(), "%s: the solution array is untouched", name);
#if !KOPS_EXCEPTIONS
    expect(!res.converged && res.iterations == 0, "%s: the result is a default solve_result", name);
#endif
  };
  bad_solve("solve: not square",
            "kops::cuda::solve: K must be square, M (the number of i rows, 12) must equal N (the number of j rows, 11)",
            [&] { return kops::cuda::solve(conv, b, alpha, n, n - 1, a.p, dx.p, dx.p, db.p, dg.p); },
            [&] { return a.untouched(); });
  kops::solve_options o;
  o.max_iterations = -2;
  std::vector<float> ha(std::size_t(n), sentinel);
  bad_solve("solve_host: negative max_iterations", "kops::cuda::solve_host: max_iterations must be >= 0, got -2",
            [&] { return kops::cuda::solve_host(conv, b, alpha, n, n, ha.data(), hx.data(), hx.data(), hb.data(), hg.data(), o); },
            [&] { return untouched(ha.data(), ha.size(), sentinel); });
  kops::cuda::options on_missing_device;
  on_missing_device.device = 1000;
  bad_solve("solve: a failing CUDA call",
            "kops::cuda::solve: selecting device 1000: cudaErrorInvalidDevice: invalid device ordinal",
            [&] { return kops::cuda::solve(conv, b, alpha, n, n, a.p, dx.p, dx.p, db.p, dg.p, on_missing_device); },
            [&] { return a.untouched(); });
}

} // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("KOPS_SKIP_NO_GPU: no CUDA device\n");
    return 0;
  }
  check_handler_api();
  eval_cases();
  solve_cases();
#if !KOPS_EXCEPTIONS
  expect_abort("the default handler", "kops::cuda::eval_host: M (the number of i rows) must be >= 0, got -1", [] {
    std::vector<float> h(16, 1.0f), out(4, sentinel);
    kops::cuda::eval_host(conv, -1, 2, out.data(), h.data(), h.data(), h.data(), h.data());
  });
#endif
  return summary("kops embedded profile, kops::cuda");
}
