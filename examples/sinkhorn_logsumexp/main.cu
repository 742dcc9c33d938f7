// Log-domain Sinkhorn on the GPU, its loop captured once into a CUDA graph and
// replayed (the CPU version, main.cpp, explains the transport problem).
//
// With u = -f / eps and v = -g / eps as the unknowns, the two updates are two
// log-sum-exp reductions and nothing else:
//   u_i = log sum_j exp(-v_j - C_ij / eps + log b_j)      (axis_j: M outputs)
//   v_j = log sum_i exp(-u_i - C_ij / eps + log a_i)      (axis_i: N outputs)
// so an iteration is two kops::cuda::eval calls on device buffers, each
// reading what the other wrote. At M = N = 1e3 to 1e4 a call takes tens of
// microseconds, and launching it costs a good part of that: the loop is a
// place for CUDA graphs. The program runs the same iterations twice, eagerly
// and as a graph of `per_graph` iterations captured once (cudaStreamBeginCapture
// around the kops calls) and replayed, and checks that both give the same
// bytes; it prints the time per iteration of each (on a GPU: the launch
// overhead a graph saves; under kops::cuda_emulated the times mean nothing).
// Self-check: the plan's marginals after the last iteration, by a double loop.
//
//   sinkhorn_logsumexp_cuda [N] [iterations] [eps]     (default 2000 points, 200 iterations, eps = 0.05)
#include <kops/kops.hpp>
#include <kops/cuda.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto u = kops::vi<2, 1>;  // -f / eps
constexpr auto v = kops::vj<3, 1>;  // -g / eps
constexpr auto log_a = kops::vi<4, 1>;
constexpr auto log_b = kops::vj<5, 1>;
constexpr auto inv_eps = kops::pm<6, 1>;
constexpr auto C_eps = kops::sqdist(x, y) * inv_eps;
constexpr auto u_update = kops::logsumexp_reduction(log_b - v - C_eps, kops::axis_j);
constexpr auto v_update = kops::logsumexp_reduction(log_a - u - C_eps, kops::axis_i);

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

struct device_array {
  float* p = nullptr;
  explicit device_array(const std::vector<float>& h) {
    check(cudaMalloc(&p, h.size() * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(p, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~device_array() { (void)cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

struct problem {
  std::int64_t n;
  std::vector<float> x, y, log_a, log_b, inv_eps;
};

// The buffers of one run: the points, the weights and the potentials.
struct run_state {
  device_array dx, dy, du, dv, dla, dlb, die;
  explicit run_state(const problem& p)
      : dx(p.x), dy(p.y), du(std::vector<float>(p.n, 0.f)), dv(std::vector<float>(p.n, 0.f)), dla(p.log_a),
        dlb(p.log_b), die(p.inv_eps) {}
  void iteration(std::int64_t n, const kops::cuda::options& o) {
    kops::cuda::eval(v_update, n, n, dv.p, dx.p, dy.p, du.p, dv.p, dla.p, dlb.p, die.p, o);
    kops::cuda::eval(u_update, n, n, du.p, dx.p, dy.p, du.p, dv.p, dla.p, dlb.p, die.p, o);
  }
  std::vector<float> host(const device_array& a, std::int64_t n) const {
    std::vector<float> h(n);
    check(cudaMemcpy(h.data(), a.p, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return h;
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 2000;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  const float eps = argc > 3 ? float(std::atof(argv[3])) : 0.05f;
  constexpr int per_graph = 10;  // iterations captured in one graph
  if (n < 1 || iterations < per_graph || iterations % per_graph != 0) {
    std::printf("usage: sinkhorn_logsumexp_cuda [N >= 1] [iterations, a multiple of %d] [eps]\n", per_graph);
    return 2;
  }

  // The uniform unit cube to a Gaussian blob beside it (as main.cpp).
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unif(0.f, 1.f);
  std::normal_distribution<float> gauss(0.f, 1.f);
  problem p{n, std::vector<float>(n * 3), std::vector<float>(n * 3), std::vector<float>(n, -std::log(float(n))),
            std::vector<float>(n, -std::log(float(n))), std::vector<float>{1 / eps}};
  for (auto& c : p.x) c = unif(rng);
  for (std::int64_t k = 0; k < n * 3; ++k) p.y[k] = (k % 3 == 0 ? 1.2f : 0.5f) + 0.15f * gauss(rng);

  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  kops::cuda::options o;
  o.stream = stream;

  // Eagerly: two calls per iteration.
  run_state eager(p);
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < iterations; ++k) eager.iteration(n, o);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double eager_s = seconds_since(t0);

  // As a graph: per_graph iterations captured once, then replayed.
  run_state replayed(p);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  for (int k = 0; k < per_graph; ++k) replayed.iteration(n, o);
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < iterations / per_graph; ++k) check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double graph_s = seconds_since(t0);

  const std::vector<float> ue = eager.host(eager.du, n), ve = eager.host(eager.dv, n);
  const std::vector<float> ug = replayed.host(replayed.du, n), vg = replayed.host(replayed.dv, n);
  const bool same = std::memcmp(ue.data(), ug.data(), n * sizeof(float)) == 0 &&
                    std::memcmp(ve.data(), vg.data(), n * sizeof(float)) == 0;

  // The plan pi_ij = a_i b_j exp(-u_i - v_j - C_ij / eps): its marginals, in double.
  std::vector<double> rows(n, 0), cols(n, 0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double d2 = 0;
      for (int c = 0; c < 3; ++c) d2 += std::pow(double(p.x[i * 3 + c]) - p.y[j * 3 + c], 2);
      const double pij = std::exp(double(p.log_a[i]) + p.log_b[j] - ue[i] - ve[j] - d2 / eps);
      rows[i] += pij, cols[j] += pij;
    }
  double marginal_err = 0;
  for (std::int64_t k = 0; k < n; ++k) marginal_err += std::abs(rows[k] - 1.0 / n) + std::abs(cols[k] - 1.0 / n);

  std::printf("kops sinkhorn_logsumexp on the GPU: M = N = %lld, eps = %g, %d iterations\n", (long long)n, eps,
              iterations);
  std::printf("  eager: %.1f us per iteration (2 kops::cuda::eval calls)\n", 1e6 * eager_s / iterations);
  std::printf("  graph: %.1f us per iteration (%d iterations per graph, captured once, replayed %d times): %.2fx\n",
              1e6 * graph_s / iterations, per_graph, iterations / per_graph, eager_s / graph_s);
  const bool ok = same && marginal_err < 1e-3;
  std::printf("check: %s (graph == eager bit for bit: %s; plan marginal L1 error %.2e < 1e-3 by a double loop)\n",
              ok ? "PASS" : "FAIL", same ? "yes" : "no", marginal_err);
  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return ok ? 0 : 1;
}
