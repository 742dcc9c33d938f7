// Per-call overhead of kops::cuda calls, eager against CUDA-graph replay
// (docs/cuda.md, "CUDA graphs"; issue 34). At M = N = 1e3, 3e3, 1e4 (float):
//
//   gauss_sum_d3   kops::cuda::eval of sum_j exp(-g |x_i - y_j|^2) b_j, D = 3
//   sinkhorn_step  one log-domain Sinkhorn step: two logsumexp reductions
//                  (over j into f, over i into g), each reading the other
//   cg_iteration   kops::cuda::solve, 60 iterations (tolerance 0, so every
//                  solve runs all of them) eagerly and with
//                  options::graph_iterations = 10
//
// Eager: `reps` calls queued back to back on one stream, one synchronisation
// at the end; graph: the same calls captured 10 at a time into one graph,
// replayed reps / 10 times, one synchronisation at the end (the solve: its
// own). Each time is the best of 5 rounds, in microseconds per call (per
// step, per iteration); ratio = eager / graph. Prints a markdown table.
//
//   bench_graphs [sizes...]        e.g. bench_graphs 1000 3000 10000 (the default)
//
// Built with the GPU benchmarks (bench/CMakeLists.txt), and against
// kops::cuda_emulated as bench_graphs_emulated (tests/CMakeLists.txt: built
// and run at a tiny size by ctest, so that it compiles without a GPU; its
// times are the emulator's, not a GPU's). Run by tools/gpu_check.sh's step
// `graphs`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <kops/cuda.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

void require(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_graphs: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// The best of 5 rounds of f(), in microseconds per call (f makes `calls`).
template <class F>
double us_per_call(int calls, F&& f) {
  double best = 1e300;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = clock_type::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::micro>(clock_type::now() - t0).count() / calls);
  }
  return best;
}

// A device array of n floats, random in [lo, hi).
struct device_array {
  float* p = nullptr;
  explicit device_array(std::size_t n, float lo = 0, float hi = 1, unsigned seed = 1) {
    std::vector<float> h(n);
    std::srand(seed);
    for (float& v : h) v = lo + (hi - lo) * float(std::rand()) / float(RAND_MAX);
    require(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc");
    require(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~device_array() { (void)cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

constexpr int per_graph = 10;  // calls captured into one graph

// `step()` (queuing its work on `stream`) eagerly and replayed from a graph
// of per_graph steps: microseconds per step, each way.
template <class Step>
void eager_and_graph(cudaStream_t stream, int reps, Step&& step, double& eager, double& graph) {
  step();  // the first call on the device (caches, the pool) outside both timings
  require(cudaStreamSynchronize(stream), "warm-up");
  eager = us_per_call(reps, [&] {
    for (int r = 0; r < reps; ++r) step();
    require(cudaStreamSynchronize(stream), "eager");
  });
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  require(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  for (int k = 0; k < per_graph; ++k) step();
  require(cudaStreamEndCapture(stream, &g), "cudaStreamEndCapture");
  require(cudaGraphInstantiate(&exec, g, 0), "cudaGraphInstantiate");
  const int launches = std::max(1, reps / per_graph);
  graph = us_per_call(launches * per_graph, [&] {
    for (int r = 0; r < launches; ++r) require(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    require(cudaStreamSynchronize(stream), "graph");
  });
  require(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  require(cudaGraphDestroy(g), "cudaGraphDestroy");
}

void row(const char* name, std::int64_t n, double eager, double graph) {
  std::printf("| %s | %lld | %.2f | %.2f | %.2f |\n", name, (long long)n, eager, graph, eager / graph);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes;
  for (int k = 1; k < argc; ++k) sizes.push_back(std::atoll(argv[k]));
  if (sizes.empty()) sizes = {1000, 3000, 10000};
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
  // Sinkhorn in the log domain: f_i = LSE_j (g_j - |x_i - y_j|^2 / eps), g_j
  // = LSE_i (f_i - |x_i - y_j|^2 / eps), eps = 1 / e (the parameter e).
  constexpr auto fi = kops::vi<4, 1>;
  constexpr auto gj = kops::vj<5, 1>;
  constexpr auto over_j = kops::logsumexp_reduction(gj - g * kops::sqdist(x, y), kops::axis_j);
  constexpr auto over_i = kops::logsumexp_reduction(fi - g * kops::sqdist(x, y), kops::axis_i);
  constexpr auto a = kops::vj<2, 1>;
  constexpr auto K = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * a, kops::axis_j);

  cudaStream_t stream = nullptr;
  require(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  kops::cuda::options o;
  o.stream = stream;
  std::printf("| case | M = N | eager us/call | graph us/call | eager / graph |\n|---|---|---|---|---|\n");
  for (const std::int64_t n : sizes) {
    const std::size_t un = std::size_t(n);
    device_array dx(un * 3, 0, 1, 1), dy(un * 3, 0, 1, 2), db(un, -1, 1, 3), dg(1, 2, 2, 4), df(un, 0, 0, 5),
        dgj(un, 0, 0, 6), out(un), sol(un);
    const int reps = n < 1000 ? 20 : n <= 1000 ? 2000 : n <= 3000 ? 500 : 100;  // < 1000: the emulator's check
    double eager = 0, graph = 0;
    const float* none = nullptr;  // the slots a formula does not read
    eager_and_graph(stream, reps, [&] { kops::cuda::eval(conv, n, n, out.p, dx.p, dy.p, db.p, dg.p, o); }, eager,
                    graph);
    row("gauss_sum_d3", n, eager, graph);
    eager_and_graph(
        stream, reps / 2,
        [&] {
          kops::cuda::eval(over_j, n, n, df.p, dx.p, dy.p, none, dg.p, none, dgj.p, o);
          kops::cuda::eval(over_i, n, n, dgj.p, dx.p, dy.p, none, dg.p, df.p, o);
        },
        eager, graph);
    row("sinkhorn_step", n, eager, graph);
    // CG: 60 iterations each way (tolerance 0: none converges earlier).
    kops::solve_options so;
    so.tolerance = 0;
    so.max_iterations = 60;
    const int solves = n < 1000 ? 1 : n <= 3000 ? 5 : 2;
    for (const std::int64_t k : {std::int64_t(0), std::int64_t(per_graph)}) {
      o.graph_iterations = k;
      const double t = us_per_call(solves * 60, [&] {
        for (int s = 0; s < solves; ++s) (void)kops::cuda::solve(K, a, 1.0, n, n, sol.p, dx.p, dx.p, db.p, dg.p, so, o);
      });
      (k == 0 ? eager : graph) = t;
    }
    o.graph_iterations = 0;
    row("cg_iteration", n, eager, graph);
  }
  require(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return 0;
}
