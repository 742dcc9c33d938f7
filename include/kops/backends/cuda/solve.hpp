// kops::cuda::solve and kops::cuda::solve_host: conjugate gradient for
// (alpha Id + K) a = b on the GPU, through the solve front end
// (solve/solve_call.hpp). device_solver (device pointers) and
// host_copy_solver (host arrays, copied in and the solution copied out) give
// the CG driver of solve/cg.hpp a vector space on device memory:
// device_solve_ops, whose products with K are kops::cuda::eval launches with
// the call's policies and whose vector updates and dot products (accumulated in
// double, in a fixed order) are the small grid-stride kernels of this file;
// the true residual that decides the stop (solve/cg.hpp) is a launch in double
// on the arguments widened once per solve (float calls), with a kernel that
// forms b - (alpha x + K x). The host reads each dot product, so a solve
// synchronises its stream; with options::graph_iterations = k the steps run
// k at a time as a captured graph on the device (captured_cg_steps), the host
// reading their state once per replay.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <cuda_runtime_api.h>

#include <kops/backends/cuda/device.hpp>
#include <kops/backends/cuda/error.hpp>
#include <kops/backends/cuda/eval.hpp>
#include <kops/backends/cuda/host.hpp>
#include <kops/backends/cuda/options.hpp>
#include <kops/backends/cuda/pointers.hpp>
#include <kops/core/policy.hpp>
#include <kops/solve/solve_call.hpp>
#include <kops/solve/cg.hpp>
#include <kops/solve/checks.hpp>
#include <kops/solve/options.hpp>
#include <kops/solve/widen.hpp>

namespace kops::cuda {
namespace detail {

// The vector kernels: grid-stride loops over n elements, grids of at most
// max_vector_blocks blocks of vector_block threads.
inline constexpr int vector_block = 256;
inline constexpr int max_vector_blocks = 1024;

// v += s u
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_axpy_kernel(const std::int64_t n, const T s, const T* const u, T* const v) {
  const std::int64_t stride = std::int64_t(gridDim.x) * vector_block;
  for (std::int64_t k = std::int64_t(blockIdx.x) * vector_block + threadIdx.x; k < n; k += stride)
    v[k] = v[k] + s * u[k];
}

// v = u + s v
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_xpay_kernel(const std::int64_t n, const T* const u, const T s, T* const v) {
  const std::int64_t stride = std::int64_t(gridDim.x) * vector_block;
  for (std::int64_t k = std::int64_t(blockIdx.x) * vector_block + threadIdx.x; k < n; k += stride)
    v[k] = u[k] + s * v[k];
}

// v = double(u): a float vector (or argument) widened for the true residual.
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_widen_kernel(const std::int64_t n, const T* const u, double* const v) {
  const std::int64_t stride = std::int64_t(gridDim.x) * vector_block;
  for (std::int64_t k = std::int64_t(blockIdx.x) * vector_block + threadIdx.x; k < n; k += stride) v[k] = double(u[k]);
}

// e = b - (alpha x + kx) in double: kx = e, r = T(e) (the true residual, x and kx = K x in double).
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_residual_kernel(const std::int64_t n, const double alpha, const T* const b, const double* const x,
                      double* const kx, T* const r) {
  const std::int64_t stride = std::int64_t(gridDim.x) * vector_block;
  for (std::int64_t k = std::int64_t(blockIdx.x) * vector_block + threadIdx.x; k < n; k += stride) {
    const double e = double(b[k]) - (alpha * x[k] + kx[k]);
    kx[k] = e;
    r[k] = T(e);
  }
}

// Sums the block's shared values s[0 .. vector_block) into s[0] (a tree: a
// fixed order, independent of scheduling).
__device__ KOPS_INLINE void solve_block_sum(double* s) {
  __syncthreads();
  for (int w = vector_block / 2; w > 0; w /= 2) {
    if (int(threadIdx.x) < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
}

// partial[block] = sum of u_k v_k over the block's grid-stride share, in double.
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_dot_kernel(const std::int64_t n, const T* const u, const T* const v, double* const partial) {
  __shared__ double s[vector_block];
  const std::int64_t stride = std::int64_t(gridDim.x) * vector_block;
  double acc = 0;
  for (std::int64_t k = std::int64_t(blockIdx.x) * vector_block + threadIdx.x; k < n; k += stride)
    acc += double(u[k]) * double(v[k]);
  s[threadIdx.x] = acc;
  solve_block_sum(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// *total = partial[0] + ... + partial[count - 1]; one block. (A template only
// so that this header may be included by several translation units.)
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_total_kernel(const int count, const double* const partial, double* const total) {
  __shared__ double s[vector_block];
  double acc = 0;
  for (int k = threadIdx.x; k < count; k += vector_block) acc += partial[k];
  s[threadIdx.x] = acc;
  solve_block_sum(s);
  if (threadIdx.x == 0) *total = s[0];
}

// The state of CG's steps on the device (captured_cg_steps): the scalars the
// host loop of solve/cg.hpp keeps, and the run's count and stop.
struct cg_device_state {
  double rr = 0, step = 0, beta = 0;
  std::int64_t taken = 0, limit = 0;  // steps taken in this replay, and allowed
  int stop = 0;                       // kops::detail::cg_stop, and 4: the limit reached
};
inline constexpr int cg_limit_reached = 4;

// Whether x is finite (neither NaN nor an infinity), as std::isfinite.
__host__ __device__ KOPS_INLINE bool solve_finite(double x) { return x - x == 0; }

// One thread, after p . q (*pq): the step rr / pq, or the stop (host_cg_steps).
template <class T>
__global__ void solve_cg_gate_kernel(cg_device_state* const s, const double* const pq) {
  if (s->stop != 0) return;
  if (s->taken >= s->limit) {
    s->stop = cg_limit_reached;
    return;
  }
  const double v = *pq;
  if (v == 0 || !solve_finite(v)) s->stop = int(kops::detail::cg_stop::breakdown);
  else s->step = s->rr / v;
}

// d += step p, r -= step q (the host loop's two axpy), unless stopped.
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_cg_update_kernel(const std::int64_t n, const cg_device_state* const s, const T* const p, const T* const q,
                       T* const d, T* const r) {
  if (s->stop != 0) return;
  const T up = T(s->step), down = T(-s->step);
  const std::int64_t stride = std::int64_t(gridDim.x) * vector_block;
  for (std::int64_t k = std::int64_t(blockIdx.x) * vector_block + threadIdx.x; k < n; k += stride) {
    d[k] = d[k] + up * p[k];
    r[k] = r[k] + down * q[k];
  }
}

// One thread, after r . r (*rr): the step counted, then the stop it
// proposes, or beta = rr_next / rr and rr = rr_next.
template <class T>
__global__ void solve_cg_advance_kernel(cg_device_state* const s, const double* const rr, const double threshold) {
  if (s->stop != 0) return;
  const double next = *rr;
  ++s->taken;
  if (!solve_finite(next)) s->stop = int(kops::detail::cg_stop::not_finite);
  else if (::sqrt(next) <= threshold) s->stop = int(kops::detail::cg_stop::proposed);
  else {
    s->beta = next / s->rr;
    s->rr = next;
  }
}

// p = r + beta p (the host loop's xpay), unless stopped.
template <class T>
__global__ void __launch_bounds__(vector_block)
solve_cg_direction_kernel(const std::int64_t n, const cg_device_state* const s, const T* const r, T* const p) {
  if (s->stop != 0) return;
  const T c = T(s->beta);
  const std::int64_t stride = std::int64_t(gridDim.x) * vector_block;
  for (std::int64_t k = std::int64_t(blockIdx.x) * vector_block + threadIdx.x; k < n; k += stride)
    p[k] = r[k] + c * p[k];
}

// The vector space of kops/solve/cg.hpp on device arrays of n elements.
// Without exceptions a failing CUDA call is reported once and sets `failed`:
// every later operation does nothing and dot returns NaN, on which CG stops at
// once (its `p . q not finite` exit), and run_solve then returns false.
// Ranged: K is block-sparse, its products take *sparsity (host memory, checked).
// Pol: the products' policy (kops::policy, core/policy.hpp); the true
// residual's product is a launch in double with the default policy (accurate,
// whatever the products'), on `wide` (the arguments widened, for float) and
// the double vectors wide_x (x widened, float only) and product (K x).
template <class Pol, class Red, int Var, class T, bool Ranged = false>
struct device_solve_ops {
  std::int64_t M, N, n;
  const T** args;     // Red::nargs device pointers; args[Var] is rebound to each vector K is applied to
  options launch;     // stream, scheme, chunk of the products; device -1 (the caller selected it)
  double* scratch;    // max_vector_blocks partial sums, then the total
  unsigned blocks;    // grid of the vector kernels
  const char* where;
  const block_sparsity* sparsity = nullptr;
  const double** wide = nullptr;  // Red::nargs device pointers in double; wide[Var] is rebound to x
  double* wide_x = nullptr;
  double* product = nullptr;
  bool failed = false;  // a CUDA call failed (only without exceptions)
  std::int64_t graph_iterations = 0;  // > 0: the steps run as a captured graph of that many (captured_cg_steps)
  // solve_host across devices (options::devices): each product K v goes
  // through the host, v into host_v, then an eval_host call on host_args
  // (the user's arrays, args[Var] -> host_v) whose rows split_opts.devices
  // share (host.hpp, split_rows), its output host_out copied back. Null: one device.
  const T* const* host_args = nullptr;
  T* host_v = nullptr;
  T* host_out = nullptr;
  options split_opts{};

  static constexpr double stop = std::numeric_limits<double>::quiet_NaN();

  // Records a step's outcome; true when it succeeded.
  bool ok(bool step) {
    failed = failed || !step;
    return step;
  }
  // out = K v, the launches in U with the policy P; a: Red::nargs device pointers.
  template <class P, class U>
  void reduce(const U* const* a, U* out) {
    if constexpr (Ranged) {
      device_backend be(where, launch);
      ok(kops::detail::run_checked_sparse_passes<P, Red>(be, M, N, out, a, *sparsity));
    } else {
      ok(run<P, Red>(M, N, out, a, launch, where));
    }
  }
  // kernel<<<grid, threads>>>(params...) on the stream, reported as `what`.
  template <class... A>
  bool vector_launch(void (*kernel)(A...), void** params, const char* what, unsigned grid = 0,
                     int threads = vector_block) {
    return ok(check_launch(cudaLaunchKernel(kernel, dim3(grid ? grid : blocks), dim3(threads), params, 0,
                                            launch.stream),
                           where, what));
  }
  void apply(const T* v, T* out) {
    if (failed) return;
    if (host_args != nullptr) return split_apply(v, out);
    args[Var] = v;
    reduce<Pol>(args, out);
  }
  // out = K v with its rows split across split_opts.devices (see host_args).
  void split_apply(const T* v, T* out) {
    const std::size_t bytes = std::size_t(n) * sizeof(T);
    if (!ok(check(cudaMemcpyAsync(host_v, v, bytes, cudaMemcpyDeviceToHost, launch.stream), where,
                  "copying a vector to the host for the devices' products")) ||
        !ok(check(cudaStreamSynchronize(launch.stream), where, "copying a vector to the host (cudaStreamSynchronize)")))
      return;
    const T* a[Red::nargs + 1] = {};
    for (int k = 0; k < Red::nargs; ++k) a[k] = host_args[k];
    a[Var] = host_v;
    host_copy_backend be(where, split_opts);
    if (!ok(be.template call<Pol, Red, false, false>(M, N, host_out, a, kops::detail::call_form{}))) return;
    ok(check(cudaMemcpyAsync(out, host_out, bytes, cudaMemcpyHostToDevice, launch.stream), where,
             "copying the devices' product to the solve's device"));
  }
  double residual(double alpha, const T* b, const T* x, T* r) {
    if (failed) return stop;
    std::int64_t n_ = n;
    const double* xd = nullptr;
    if constexpr (std::is_same_v<T, double>) {
      xd = x;
    } else {
      void* p[] = {&n_, &x, &wide_x};
      if (!vector_launch(solve_widen_kernel<T>, p, "solve widening")) return stop;
      xd = wide_x;
    }
    wide[Var] = xd;
    reduce<kops::detail::policy_of_t<>>(wide, product);
    if (failed) return stop;
    void* p[] = {&n_, &alpha, &b, &xd, &product, &r};
    if (!vector_launch(solve_residual_kernel<T>, p, "solve residual")) return stop;
    return std::sqrt(dot_of<double>(product, product));
  }
  double dot(const T* u, const T* v) { return dot_of<T>(u, v); }
  // sum_k u_k v_k over n elements U, in double, into *total() on the device;
  // false after a reported failure.
  template <class U>
  bool dot_on_device(const U* u, const U* v) {
    std::int64_t n_ = n;
    double* partial = scratch;
    double* sum = total();
    int count = int(blocks);
    void* p1[] = {&n_, &u, &v, &partial};
    if (!vector_launch(solve_dot_kernel<U>, p1, "solve dot-product")) return false;
    void* p2[] = {&count, &partial, &sum};
    return vector_launch(solve_total_kernel<U>, p2, "solve dot-product total", 1);
  }
  double* total() const { return scratch + max_vector_blocks; }
  // sum_k u_k v_k over n elements U, in double, read on the host.
  template <class U>
  double dot_of(const U* u, const U* v) {
    if (failed || !dot_on_device(u, v)) return stop;
    double* total = this->total();
    double h = 0;
    if (!ok(check(cudaMemcpyAsync(&h, total, sizeof(double), cudaMemcpyDeviceToHost, launch.stream), where,
                  "copying a dot product to the host")))
      return stop;
    if (!ok(check(cudaStreamSynchronize(launch.stream), where, "waiting for a dot product (cudaStreamSynchronize)")))
      return stop;
    return h;
  }
  void axpy(double s, const T* u, T* v) {
    if (failed) return;
    std::int64_t n_ = n;
    T c = T(s);
    void* p[] = {&n_, &c, &u, &v};
    vector_launch(solve_axpy_kernel<T>, p, "solve axpy");
  }
  void xpay(const T* u, double s, T* v) {
    if (failed) return;
    std::int64_t n_ = n;
    T c = T(s);
    void* p[] = {&n_, &u, &c, &v};
    vector_launch(solve_xpay_kernel<T>, p, "solve xpay");
  }
  bool captures_steps() const { return graph_iterations > 0; }
  auto captured_steps(double alpha, double threshold, const kops::detail::cg_vectors<T>& v);
  void copy(const T* u, T* v) {
    if (failed) return;
    ok(check(cudaMemcpyAsync(v, u, std::size_t(n) * sizeof(T), cudaMemcpyDeviceToDevice, launch.stream), where,
             "copying a vector"));
  }
  void zero(T* v) {
    if (failed) return;
    ok(check(cudaMemsetAsync(v, 0, std::size_t(n) * sizeof(T), launch.stream), where, "zeroing a vector"));
  }
};

// CG's steps (solve/cg.hpp, host_cg_steps) on the device, recorded once into
// a CUDA graph of `graph_iterations` steps on the solve's stream and replayed:
// the scalars the host loop keeps (rr, the step, beta) live in a
// cg_device_state, each step's kernels read them there, and a step after a
// stop does nothing to d, r, p (its product with K still runs: at most k - 1
// products past the stop per replay, none of them changing the iterate). So
// the iterates, the steps counted and the stops are bit for bit the host
// loop's; the host reads the state once per replay (one synchronisation for
// k steps instead of two per step), and the true-residual checks and restarts
// stay the driver's, outside the graph. The graph's products take their
// scratch from an arena of their own, filled by one product made before the
// capture (as is a resident_sparsity's task list: a block-sparse K must be
// one), so that nothing is allocated or freed inside the graph.
template <class Ops, class T>
class captured_cg_steps {
public:
  captured_cg_steps(Ops& ops, double alpha, double threshold, const kops::detail::cg_vectors<T>& v, bool pools)
      : ops_(ops), alpha_(alpha), threshold_(threshold), v_(v), outer_(scratch_arena::active()),
        arena_(ops.launch.stream, pools) {
    scratch_arena::active() = outer_;  // the graph's arena is active only while it is recorded
    arena_scope plain(nullptr);
    state_ = stream_buffer(sizeof(cg_device_state), ops.launch.stream, pools, ops.where, "the solver's graph state");
    ops_.ok(state_.ok());
  }
  ~captured_cg_steps() {
    if (exec_ != nullptr) forget_quiet_failure(cudaGraphExecDestroy(exec_));
    if (graph_ != nullptr) forget_quiet_failure(cudaGraphDestroy(graph_));
  }
  captured_cg_steps(const captured_cg_steps&) = delete;
  captured_cg_steps& operator=(const captured_cg_steps&) = delete;

  void restart() {
    host_.rr = ops_.dot(v_.r, v_.r);
    ops_.copy(v_.r, v_.p);
  }
  kops::detail::cg_advance advance(std::int64_t budget) {
    using kops::detail::cg_stop;
    const cudaStream_t stream = ops_.launch.stream;
    if (ops_.failed || (exec_ == nullptr && !record())) return {0, cg_stop::breakdown};
    host_.taken = 0;
    host_.stop = 0;
    host_.limit = budget < ops_.graph_iterations ? budget : ops_.graph_iterations;
    const char* where = ops_.where;
    if (!ops_.ok(check(cudaMemcpyAsync(state_.get(), &host_, sizeof host_, cudaMemcpyHostToDevice, stream), where,
                       "copying the solver's graph state to the device")) ||
        !ops_.ok(check(cudaGraphLaunch(exec_, stream), where, "replaying the solver's graph")) ||
        !ops_.ok(check(cudaMemcpyAsync(&host_, state_.get(), sizeof host_, cudaMemcpyDeviceToHost, stream), where,
                       "copying the solver's graph state to the host")) ||
        !ops_.ok(check(cudaStreamSynchronize(stream), where, "waiting for the solver's graph (cudaStreamSynchronize)")))
      return {0, cg_stop::breakdown};
    const bool plain = host_.stop == 0 || host_.stop == cg_limit_reached;
    return {host_.taken, plain ? cg_stop::running : cg_stop(host_.stop)};
  }

private:
  // Ends a capture left open by a failure (or an exception) in it.
  struct capture_guard {
    cudaStream_t stream;
    bool open = true;
    ~capture_guard() {
      if (!open) return;
      cudaGraph_t g = nullptr;
      forget_quiet_failure(cudaStreamEndCapture(stream, &g));
      if (g != nullptr) forget_quiet_failure(cudaGraphDestroy(g));
    }
  };

  // One step's kernels (host_cg_steps::advance, on the device state).
  bool record_step(cg_device_state* s) {
    ops_.apply(v_.p, v_.q);
    ops_.axpy(alpha_, v_.p, v_.q);
    if (ops_.failed || !ops_.ok(ops_.dot_on_device(v_.p, v_.q))) return false;
    std::int64_t n = ops_.n;
    const double* total = ops_.total();
    double threshold = threshold_;
    void* gate[] = {&s, &total};
    void* update[] = {&n, &s, &v_.p, &v_.q, &v_.d, &v_.r};
    void* next[] = {&s, &total, &threshold};
    void* direction[] = {&n, &s, &v_.r, &v_.p};
    return ops_.vector_launch(solve_cg_gate_kernel<T>, gate, "solve step", 1, 1) &&
           ops_.vector_launch(solve_cg_update_kernel<T>, update, "solve step") &&
           ops_.ok(ops_.dot_on_device(v_.r, v_.r)) &&
           ops_.vector_launch(solve_cg_advance_kernel<T>, next, "solve step", 1, 1) &&
           ops_.vector_launch(solve_cg_direction_kernel<T>, direction, "solve step");
  }

  // The graph of graph_iterations steps, recorded on the solve's stream
  // after one product outside the capture (the arena's blocks).
  bool record() {
    const cudaStream_t stream = ops_.launch.stream;
    const char* where = ops_.where;
    arena_scope use(&arena_);
    ops_.apply(v_.p, v_.q);  // q is overwritten by the first step
    if (ops_.failed) return false;
    if (!ops_.ok(check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), where,
                       "capturing the solver's iterations")))
      return false;
    capture_guard guard{stream};
    auto* s = state_.get<cg_device_state>();
    for (std::int64_t k = 0; k < ops_.graph_iterations; ++k)
      if (!record_step(s)) return false;
    guard.open = false;
    return ops_.ok(check(cudaStreamEndCapture(stream, &graph_), where, "capturing the solver's iterations")) &&
           ops_.ok(check(cudaGraphInstantiate(&exec_, graph_, 0), where, "instantiating the solver's graph"));
  }

  Ops& ops_;
  double alpha_, threshold_;
  kops::detail::cg_vectors<T> v_;
  scratch_arena* outer_;  // the arena of the solve (before arena_ is made)
  scratch_arena arena_;   // the graph's products' scratch
  stream_buffer state_;
  cg_device_state host_{};
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

template <class Pol, class Red, int Var, class T, bool Ranged>
auto device_solve_ops<Pol, Red, Var, T, Ranged>::captured_steps(double alpha, double threshold,
                                                                const kops::detail::cg_vectors<T>& v) {
  device_facts facts;
  ok(current_facts(where, facts));
  return captured_cg_steps<device_solve_ops, T>(*this, alpha, threshold, v, facts.memory_pools);
}

// The solve on the current device (the caller has selected opts.device):
// a:(n) and ptrs: device pointers, checked; plan.n > 0; Ranged: s, K's
// structure, checked and in host memory. Synchronous. Into `res`; false after
// a reported CUDA failure (only without exceptions).
template <class Pol, class Red, class V, bool Ranged, class T>
[[nodiscard]] bool run_solve(const kops::detail::solve_plan& plan, double alpha, std::int64_t M, std::int64_t N,
                             T* a, const T** ptrs, const options& opts, const char* where, solve_result& res,
                             const block_sparsity* s = nullptr, const T* const* split_host = nullptr) {
  device_facts facts;
  if (!current_facts(where, facts)) return false;
  const cudaStream_t stream = opts.stream;
  const std::size_t n = std::size_t(plan.n);
  stream_buffer work(5 * n * sizeof(T), stream, facts.memory_pools, where, "the solver's vectors b, d, r, p, q");
  if (!work.ok()) return false;
  stream_buffer scratch((max_vector_blocks + 1) * sizeof(double), stream, facts.memory_pools, where,
                        "the solver's dot products");
  if (!scratch.ok()) return false;
  // The true residual's doubles: K x, and for float x and the arguments widened.
  constexpr bool widen = !std::is_same_v<T, double>;
  std::int64_t wide_count = widen ? 2 * plan.n : plan.n;
  if constexpr (widen)
    kops::detail::for_each_solve_argument<Red, V::index>(M, N, [&](int, std::int64_t c) { wide_count += c; });
  stream_buffer wide(std::size_t(wide_count) * sizeof(double), stream, facts.memory_pools, where,
                     "the solver's residual in double");
  if (!wide.ok()) return false;
  const std::int64_t blocks = (plan.n + vector_block - 1) / vector_block;
  const std::int64_t grid = blocks < max_vector_blocks ? blocks : max_vector_blocks;
  const double* wide_args[Red::nargs + 1] = {};  // + 1: no empty array
  device_solve_ops<Pol, Red, V::index, T, Ranged> ops{
      M, N, plan.n, ptrs, options{stream, opts.scheme, -1, opts.gpu_2d_chunk}, scratch.get<double>(),
      unsigned(grid), where, s, wide_args, wide.get<double>(), wide.get<double>() + (widen ? plan.n : 0)};
  ops.graph_iterations = opts.graph_iterations;
  std::vector<T> staging;  // host_v and host_out of a solve across devices
  if (split_host != nullptr) {
    staging.resize(2 * std::size_t(plan.n));
    ops.host_args = split_host;
    ops.host_v = staging.data();
    ops.host_out = staging.data() + plan.n;
    ops.split_opts.scheme = opts.scheme;
    ops.split_opts.gpu_2d_chunk = opts.gpu_2d_chunk;
    ops.split_opts.devices = opts.devices;
  }
  if constexpr (widen) {
    double* next = ops.product + plan.n;
    kops::detail::for_each_solve_argument<Red, V::index>(M, N, [&](int k, std::int64_t c) {
      const T* from = ptrs[k];
      double* to = next;
      void* p[] = {&c, &from, &to};
      ops.vector_launch(solve_widen_kernel<T>, p, "solve widening");
      wide_args[k] = next;
      next += c;
    });
  } else {
    for (int k = 0; k < Red::nargs; ++k) wide_args[k] = ptrs[k];
  }
  const T* const b = ptrs[V::index];
  // Every product's GPU_2D scratch (and a two-pass gradient's temporary) is
  // allocated at the first iteration and reused by the others (device.hpp).
  scratch_arena arena(stream, facts.memory_pools);
  res = kops::detail::conjugate_gradient<T>(ops, alpha, b, a, work.get<T>(), plan);
  if (ops.failed) return false;
  return arena.release(where) &&
         check(cudaStreamSynchronize(stream), where, "finishing the solve (cudaStreamSynchronize)") &&
         wide.release(where, "the solver's residual in double") &&
         scratch.release(where, "the solver's dot products") && work.release(where, "the solver's vectors");
}

// What both solvers hold: the entry's name and the kops::cuda::options of the
// call (the solve options and a structure reach solve() through the front end).
struct solver_base {
  using option_types = type_list<solve_options, options, block_sparsity>;
  const char* where;
  options opts;

  solver_base(const char* w, const kops::detail::option_set<solve_options, options, block_sparsity>& o)
      : where(w), opts(kops::detail::get_option<options>(o)) {}

  // Why a solve cannot be captured into a CUDA graph (refuse_capture).
  static constexpr const char* capture_refusal =
      "a solve reads each iteration's dot products on the host to choose its next step";
  static constexpr const char* capture_instead =
      "make the solve outside the capture; options::graph_iterations records its iterations as a graph itself";

  // Before any work: the solve may run here (not on a capturing stream), and
  // options::graph_iterations is usable (>= 0; > 0 on a stream of the
  // caller's, and a block-sparse K's structure resident, s: its host copy).
  [[nodiscard]] bool check_capture(const block_sparsity* s) const {
    if (!refuse_capture(opts.stream, where, capture_refusal, capture_instead)) return false;
    const long long k = (long long)opts.graph_iterations;
    if (k < 0)
      return kops::detail::fail("%s: options::graph_iterations is the number of iterations per graph, expected >= 0 "
                                "(0: no graph), given %lld",
                                where, k);
    if (k == 0) return true;
    if (opts.stream == nullptr || opts.stream == cudaStreamLegacy || opts.stream == cudaStreamPerThread)
      return kops::detail::fail("%s: options::graph_iterations = %lld records the iterations on options::stream, "
                                "expected a stream made with cudaStreamCreate, given the default stream",
                                where, k);
    if (s != nullptr && find_resident(*s) == nullptr)
      return kops::detail::fail("%s: options::graph_iterations = %lld with a block-sparse K needs its structure "
                                "kept on the device, expected a kops::cuda::resident_sparsity's sparsity(), given "
                                "a plain kops::block_sparsity",
                                where, k);
    return true;
  }
};

// kops::cuda::solve for the solve front end (solve/solve_call.hpp): CG on
// device arrays on opts.device and opts.stream; a block-sparse K's structure
// is in device memory (copied to the host as eval's device_backend does).
struct device_solver : solver_base {
  using solver_base::solver_base;

  bool host_sparsity(const block_sparsity& s, kops::detail::sparsity_copy& host, block_sparsity& view) {
    return device_backend(where, opts).host_sparsity(s, host, view);
  }

  template <class Red, class V, bool Ranged, auto... Policy, class T>
  solve_result solve(const kops::detail::solve_plan& plan, double alpha, std::int64_t M, std::int64_t N, T* a,
                     const T** ptrs, const block_sparsity* s) {
    device_guard guard(opts.device, where);
    if (!guard.ok()) return solve_result{};
    if (plan.n == 0) return kops::detail::nothing_to_solve(plan);
    if (!check_capture(s)) return solve_result{};
    if (!check_device_pointers<Red>(where, M, N, a, ptrs, "solution", "kops::cuda::solve_host"))
      return solve_result{};
    solve_result res;
    if (!run_solve<kops::detail::policy_of_t<Policy...>, Red, V, Ranged>(plan, alpha, M, N, a, ptrs, opts, where,
                                                                        res, s))
      return solve_result{};
    return res;
  }
};

// kops::cuda::solve_host for the solve front end: the arguments the formula
// reads (b included, and `a` for an initial guess) copied to stream-ordered
// device buffers, CG there, `a` copied back; a block-sparse K's structure is
// in host memory.
struct host_copy_solver : solver_base {
  using solver_base::solver_base;

  // The structure is in host memory, or a resident_sparsity's sparsity():
  // then its host copy.
  bool host_sparsity(const block_sparsity& s, kops::detail::sparsity_copy&, block_sparsity& view) {
    const kops::cuda::resident_sparsity* r = find_resident(s);
    view = r != nullptr ? *r->host_view_of(s) : s;
    return true;
  }

  template <class Red, class V, bool Ranged, auto... Policy, class T>
  solve_result solve(const kops::detail::solve_plan& plan, double alpha, std::int64_t M, std::int64_t N, T* a,
                     const T** host, const block_sparsity* s) {
    if (plan.n == 0) return kops::detail::nothing_to_solve(plan);
    // options::devices: CG on the first, each product's rows split across all
    // (a block-sparse K: on the first only, as eval_host runs it).
    const device_list& dl = opts.devices;
    const bool split = !Ranged && (dl.count >= 2 || dl.requested > device_list::capacity);
    if (dl.requested > device_list::capacity) {
      (void)kops::detail::fail("%s: options::devices lists %d devices, at most %d are taken", where, dl.requested,
                               device_list::capacity);
      return solve_result{};
    }
    if (split && opts.graph_iterations != 0) {
      (void)kops::detail::fail("%s: options::graph_iterations = %lld records the iterations on one device, expected "
                               "one device, given options::devices with %d",
                               where, (long long)opts.graph_iterations, dl.count);
      return solve_result{};
    }
    device_guard guard(split ? dl.ids[0] : opts.device, where);
    if (!guard.ok()) return solve_result{};
    if (!check_capture(s)) return solve_result{};
    device_facts facts;
    if (!current_facts(where, facts)) return solve_result{};
    const cudaStream_t stream = opts.stream;

    constexpr int nargs = Red::nargs;
    stream_buffer buffers[nargs + 1];
    const T* device[nargs + 1] = {};
    if (!copy_arguments_to_device<Red>(M, N, host, buffers, device, stream, facts.memory_pools, where))
      return solve_result{};

    const std::size_t a_bytes = std::size_t(plan.n) * sizeof(T);
    stream_buffer da(a_bytes, stream, facts.memory_pools, where, "the solution");
    if (!da.ok()) return solve_result{};
    if (plan.initial_guess &&
        !check(cudaMemcpyAsync(da.get(), a, a_bytes, cudaMemcpyHostToDevice, stream), where,
               "copying the initial guess to the device"))
      return solve_result{};
    solve_result res;
    options on_device{stream, opts.scheme, -1, opts.gpu_2d_chunk};
    on_device.graph_iterations = opts.graph_iterations;
    on_device.devices = opts.devices;
    if (!run_solve<kops::detail::policy_of_t<Policy...>, Red, V, Ranged>(plan, alpha, M, N, da.get<T>(), device,
                                                                        on_device, where, res, s,
                                                                        split ? host : nullptr))
      return solve_result{};
    if (!check(cudaMemcpyAsync(a, da.get(), a_bytes, cudaMemcpyDeviceToHost, stream), where,
               "copying the solution to the host") ||
        !check(cudaStreamSynchronize(stream), where, "copying the solution (cudaStreamSynchronize)") ||
        !da.release(where, "the solution"))
      return solve_result{};
    for (auto& buf : buffers)
      if (!buf.release(where, "an argument buffer")) return solve_result{};
    return res;
  }
};

} // namespace detail

/// kops::cuda::solve: conjugate-gradient solve of (alpha Id + K) a = b on the GPU.
///
/// ```text
///   solve<Policy...>(red, v, alpha, M, N, a, args...[, solve_opts][, opts][, s])       device pointers
///   solve_host<Policy...>(red, v, alpha, M, N, a, args...[, solve_opts][, opts][, s])  host pointers
///     -> kops::solve_result
/// ```
///
/// ```text
///   red   sum_reduction(F, axis_j) (or axis_i), F linear in the variable v
///   v     the unknown: a vj (axis_j) or vi (axis_i) of dim red.dim
///   args  pointers in variable-index order, as for eval; v's slot holds b:(N, D)
///   a     the solution:(N, D) (M = N is required: K is square); may be b itself
///   solve_opts  kops::solve_options (tolerance, max_iterations, initial guess)
///   opts        kops::cuda::options (stream, scheme, device), as for eval
///   s           a kops::block_sparsity: K block-sparse (its kept pairs only; device
///               arrays for solve, host arrays for solve_host), copied to the host
///               and checked once, before `a` is first written
/// ```
///
/// Policy...: eval's compile-time policies, in any order, each at most once
/// (core/policy.hpp), e.g. solve<kops::precision::fast>(...); they are the
/// products'. Each product with K is a kops::cuda::eval<Policy...> launch (the
/// true residual's, which decides convergence, a launch in double: see
/// kops::solve_options and docs/solve.md); the vector updates and
/// the dot products (accumulated in double, in a fixed order, so a solve is
/// reproducible) are small kernels of this file. Every kernel, copy and scratch
/// allocation goes on opts.stream; the scratch is allocated once per solve, not
/// once per iteration (the products' GPU_2D scratch included). Unlike eval, a solve is synchronous: CG
/// needs each dot product on the host to choose its next step, so the call
/// synchronises opts.stream twice per iteration, and `a` is ready when it
/// returns. With opts.graph_iterations = k (> 0; opts.stream a stream of the
/// caller's) k iterations are recorded once into a CUDA graph and replayed,
/// one synchronisation per replay, the iterates bit for bit the eager loop's
/// (docs/solve.md, "Captured iterations"). A solve on a stream under capture
/// is refused (a kops::error; the capture stays valid). Non-convergence is reported in the result, not thrown; bad input
/// throws kops::error, a failing CUDA call kops::cuda_error. Without exceptions
/// both go to the kops::set_error_handler handler and the solve returns a
/// default solve_result (converged false) at once: after bad input nothing ran
/// and `a` is untouched; after a CUDA failure mid-solve `a` is unspecified.
/// The algorithm: kops/solve/cg.hpp.
///
/// Device pointers. Returns when `a` holds the last iterate.
template <auto... Policy, ReductionType Red, class V, class T, class... Rest>
solve_result solve(Red red, V v, double alpha, std::int64_t M, std::int64_t N, T* a, Rest... rest) {
  return kops::detail::solve_call<detail::device_solver, Policy...>("kops::cuda::solve", red, v, alpha, M, N, a,
                                                                     rest...);
}

/// The range form (detail/sized.hpp): solve(red, v, alpha, a, x, y, b, ...[, options])
/// with contiguous ranges (std::span, std::vector, std::array) in place of
/// (M, N, a, pointers): M = N deduced, every range's size checked (a kops::error
/// naming the argument, the size expected and the size given), then the pointer form.
template <auto... Policy, ReductionType Red, class V, kops::detail::SizedArgument A, class... Rest>
solve_result solve(Red red, V v, double alpha, A&& a, const Rest&... rest) {
  return kops::detail::solve_range_call<Red, V, solve_result>(
      "kops::cuda::solve", -1, -1, [&](auto... x) { return solve<Policy...>(red, v, alpha, x...); }, a, rest...);
}
/// The range form with M and N given: checked likewise.
template <auto... Policy, ReductionType Red, class V, kops::detail::SizedArgument A, class... Rest>
solve_result solve(Red red, V v, double alpha, std::int64_t M, std::int64_t N, A&& a, const Rest&... rest) {
  return kops::detail::solve_range_call<Red, V, solve_result>(
      "kops::cuda::solve", M, N, [&](auto... x) { return solve<Policy...>(red, v, alpha, x...); }, a, rest...);
}

/// kops::cuda::solve on host pointers: copies the arguments the formula reads (b included, and `a`
/// when solve_opts.initial_guess) to stream-ordered device buffers, solves, and
/// copies `a` back. Synchronous; RAII buffers, so nothing leaks on an exception
/// (or, without exceptions, on a reported failure, which leaves `a` untouched
/// unless it comes from the final copy back). See solve().
template <auto... Policy, ReductionType Red, class V, class T, class... Rest>
solve_result solve_host(Red red, V v, double alpha, std::int64_t M, std::int64_t N, T* a, Rest... rest) {
  return kops::detail::solve_call<detail::host_copy_solver, Policy...>("kops::cuda::solve_host", red, v, alpha, M,
                                                                        N, a, rest...);
}

/// The range form (detail/sized.hpp): solve_host(red, v, alpha, a, x, y, b, ...[, options])
/// with contiguous ranges (std::span, std::vector, std::array) in place of
/// (M, N, a, pointers): M = N deduced, every range's size checked (a kops::error
/// naming the argument, the size expected and the size given), then the pointer form.
template <auto... Policy, ReductionType Red, class V, kops::detail::SizedArgument A, class... Rest>
solve_result solve_host(Red red, V v, double alpha, A&& a, const Rest&... rest) {
  return kops::detail::solve_range_call<Red, V, solve_result>(
      "kops::cuda::solve_host", -1, -1, [&](auto... x) { return solve_host<Policy...>(red, v, alpha, x...); }, a, rest...);
}
/// The range form with M and N given: checked likewise.
template <auto... Policy, ReductionType Red, class V, kops::detail::SizedArgument A, class... Rest>
solve_result solve_host(Red red, V v, double alpha, std::int64_t M, std::int64_t N, A&& a, const Rest&... rest) {
  return kops::detail::solve_range_call<Red, V, solve_result>(
      "kops::cuda::solve_host", M, N, [&](auto... x) { return solve_host<Policy...>(red, v, alpha, x...); }, a, rest...);
}

/// Anything but a reduction first: one error in kops's words (a formula needs
/// a reduction around it; detail/dispatch.hpp, check_is_reduction).
template <auto... Policy, class F, class... Rest>
  requires(!ReductionType<F>)
solve_result solve(F, const Rest&...) {
  (void)kops::detail::check_is_reduction<F>();
  return solve_result{};
}

/// Anything but a reduction first: one error in kops's words (a formula needs
/// a reduction around it; detail/dispatch.hpp, check_is_reduction).
template <auto... Policy, class F, class... Rest>
  requires(!ReductionType<F>)
solve_result solve_host(F, const Rest&...) {
  (void)kops::detail::check_is_reduction<F>();
  return solve_result{};
}

} // namespace kops::cuda
