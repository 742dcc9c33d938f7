// kops_peer: the formulas of bench/sass/cases.sh, kops::cuda::eval beside the
// kernels keopscore 2.3 generates for them, on the same device buffers, in one
// process (bench/peer/peer.hpp says which file does what).
//
// For every case, element type (float, double) and size:
//   KeOps   its GpuConv1DOnDevice, compiled by nvcc with -use_fast_math (as
//           part of this executable) and, on a GPU, also by nvrtc as pykeops
//           compiles it (a cubin made at build time, loaded with
//           cuModuleLoadDataEx and launched with cuLaunchKernel, as pykeops
//           does; the two compilers' SASS differs: bench/peer/sass_nvrtc.sh);
//           both launched as pykeops 2.3 launches it
//           (keops_nvrtc.cpp, launch_kernel, GPU_1D on device data): block
//           min(192, maxThreadsPerBlock, sharedMemPerBlock / (DIMY sizeof T))
//           (chunked modes: min(192, 1024, 49152 / (DIMY sizeof T))), grid
//           ceil(nx / block), dynamic shared memory block DIMY sizeof T, the
//           argument pointers in a device table (uploaded once, outside the
//           timing: pykeops uploads it on every call); LogSumExp's (max, sum)
//           pair turned into max + log(sum) on the host, as pykeops does
//   kops    kops::cuda::eval, precision accurate and fast, scheme automatic,
//           gpu_1d and gpu_2d; then (--variants) the case's tuned variants
//           (backends/cuda/kernel_traits.hpp: tuning<R, B>, R rows per thread,
//           B threads per block; kops_case.cu: gauss3's), fast policy, gpu_1d
//           and gpu_2d, policy column "fast rRbB"
// each timed with CUDA events (warm-up calls, then the median of --reps), and
// checked against a double-precision reference on sampled rows (value and
// tolerance per family: see tolerance() below), kops also against KeOps on
// every row. Inputs: uniform in (0, 1) (never zero), b in [0.5, 1.5), g = 6 / D
// (so that g |x - y|^2 is about 1 whatever D).
//
// Built against kops::cuda (tools/gpu_check.sh: the GPU scoreboard) and
// against kops::cuda_emulated (ctest -L peer_gpu: small sizes on CPU fibers;
// timings there mean nothing, the agreement is the test).
//
// usage: kops_peer [--cases a,b] [--types float,double] [--size N | --rows M --cols N]
//                  [--reps R] [--warm W] [--max-seconds S] [--headline] [--deadline S] [--csv FILE] [--md FILE]
//                  [--variants a,b | all | none]
//   --reps, --warm  timed calls (median kept) and untimed ones before them, the first
//               call (its wall time reported) included (GPU: 7 and 1; emulated: 1 and 0);
//               --max-seconds (GPU: 2) caps the calls of one row
//   --size      rows = cols = N for every case (default: per case, see default_size)
//   --headline  first, the 3-D Gaussian sum, float, at M = N = 1e6 (KeOps, kops auto)
//   --deadline  stop starting new runs after S seconds (rows not run are listed)
//   --variants  the cases whose tuned variants run (default gauss3, the one case with tuning<R, B> variants)
// Exit: 0 all agree; 1 a disagreement or an error; 77 KeOps's kernels missing
// (keopscore could not be had at build time: kops was still checked).
#include "peer.hpp"

#ifdef KOPS_PEER_CUBIN_DIR
#include <cuda.h>

#include <fstream>
#include <iterator>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

#ifdef KOPS_CUDA_EMULATED
constexpr bool emulated = true;
#else
constexpr bool emulated = false;
#endif

struct options {
  std::set<std::string> cases, types{"float", "double"}, variants{"gauss3"};
  std::int64_t rows = 0, cols = 0;
  int reps = emulated ? 1 : 7, warm = emulated ? 0 : 1;
  bool headline = false;
  double deadline = 1e300, max_seconds = emulated ? 1e300 : 2.0;
  std::string csv, md;
};

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr,
               "kops_peer: %s\nusage: kops_peer [--cases a,b] [--types float,double] [--size N | --rows M --cols N] "
               "[--reps R] [--warm W] [--max-seconds S] [--headline] [--deadline S] [--csv FILE] [--md FILE] "
               "[--variants a,b | all | none]\n",
               msg.c_str());
  std::exit(2);
}

std::set<std::string> split(const std::string& s) {
  std::set<std::string> r;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');)
    if (!t.empty()) r.insert(t);
  return r;
}

options parse(int argc, char** argv) {
  options o;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) usage("missing value after " + s);
      return argv[++a];
    };
    auto count = [&] {
      const double v = std::atof(value().c_str());
      if (!(v >= 1)) usage(s + " must be >= 1");
      return std::int64_t(v);
    };
    if (s == "--cases") o.cases = split(value());
    else if (s == "--types") o.types = split(value());
    else if (s == "--size") o.rows = o.cols = count();
    else if (s == "--rows") o.rows = count();
    else if (s == "--cols") o.cols = count();
    else if (s == "--reps") o.reps = int(count());
    else if (s == "--warm") o.warm = std::atoi(value().c_str());
    else if (s == "--headline") o.headline = true;
    else if (s == "--deadline") o.deadline = std::atof(value().c_str());
    else if (s == "--max-seconds") o.max_seconds = std::atof(value().c_str());
    else if (s == "--csv") o.csv = value();
    else if (s == "--md") o.md = value();
    else if (s == "--variants") o.variants = split(value());
    else usage(s == "-h" || s == "--help" ? "help" : "unknown option " + s);
  }
  for (const auto& t : o.types)
    if (t != "float" && t != "double") usage("--types: float or double, given " + t);
  return o;
}

void check(cudaError_t e, const char* doing) { kops::cuda::detail::check(e, "kops_peer", doing); }

template <class T>
struct device_buffer {
  T* p = nullptr;
  std::size_t n = 0;
  explicit device_buffer(std::size_t count) : n(count) { check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
  explicit device_buffer(const std::vector<T>& h) : device_buffer(h.size()) {
    check(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "copying to the device");
  }
  std::vector<T> host() const {
    std::vector<T> h(n);
    check(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "copying back");
    return h;
  }
  ~device_buffer() { (void)cudaFree(p); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

// Rows = cols per case: GPU: about 1.2e11 / D pair-dimensions (tens of ms a
// call), at least 32768, or 16384 from D = 512 on; emulated: a few blocks and
// tiles, partial ones included. (The gradient at D = 784 at 32768 did not end
// in the H200 run's 25 s of slack: KeOps's kernel there runs blocks of 7
// threads in double, 15 in float, as its 48 KiB tile of 784-wide rows allows.)
std::pair<std::int64_t, std::int64_t> default_size(const peer::kops_case& c) {
  if (emulated) return c.dim >= 256 ? std::pair<std::int64_t, std::int64_t>{37, 213} : std::pair<std::int64_t, std::int64_t>{301, 437};
  const std::int64_t least = c.dim >= 512 ? 16384 : 32768;
  const auto n = std::max<std::int64_t>(least, std::int64_t(std::sqrt(1.2e11 / c.dim)));
  return {n, n};
}

// The inputs (T values) and the double reference on sampled rows.
template <class T>
struct problem {
  const peer::kops_case& c;
  std::int64_t rows, cols;
  double g;
  std::vector<T> x, y, b, e, v;  // v: attention's values, cols x D (else empty)
  std::vector<std::int64_t> sample;
  std::vector<double> val, mag;  // per sampled row: dimout values (argkmin: the 8 smallest |x - y|^2)

  problem(const peer::kops_case& cc, std::int64_t m, std::int64_t n) : c(cc), rows(m), cols(n), g(6.0 / cc.dim) {
    std::mt19937_64 rng(0x6b6f7073u ^ std::uint64_t(m * 1000003 + n) ^ std::uint64_t(c.order));
    auto u = [&] { return (double(rng() >> 11) + 0.5) * 0x1p-53; };  // (0, 1)
    auto fill = [&](std::vector<T>& v, std::int64_t count, double lo) {
      v.resize(std::size_t(count));
      for (auto& t : v) t = T(lo + u());
    };
    fill(x, rows * c.dim, 0);
    fill(y, cols * c.dim, 0);
    fill(b, cols, 0.5);
    fill(e, rows, 0.5);
    if (c.k == peer::kind::attention) fill(v, cols * c.dim, -0.5);
    const double work = double(cols) * c.dim;
    const auto samples = std::min<std::int64_t>(rows, std::clamp<std::int64_t>(std::int64_t(2e8 / work), 16, 256));
    for (std::int64_t s = 0; s < samples; ++s) sample.push_back(s * rows / samples);
    reference();
  }
  int dimout() const {
    switch (c.k) {
      case peer::kind::gauss_grad: return c.dim;
      case peer::kind::attention: return c.dim;
      case peer::kind::argkmin: return 8;
      default: return 1;
    }
  }
  double sqdist(std::int64_t i, std::int64_t j) const {
    double s = 0;
    for (int k = 0; k < c.dim; ++k) {
      const double d = double(x[i * c.dim + k]) - double(y[j * c.dim + k]);
      s += d * d;
    }
    return s;
  }
  double dot(std::int64_t i, std::int64_t j) const {
    double s = 0;
    for (int k = 0; k < c.dim; ++k) s += double(x[i * c.dim + k]) * double(y[j * c.dim + k]);
    return s;
  }
  void reference() {
    const int D = dimout();
    val.assign(sample.size() * D, 0);
    mag.assign(sample.size() * D, 0);
    std::vector<double> d2(static_cast<std::size_t>(cols));
    for (std::size_t s = 0; s < sample.size(); ++s) {
      const std::int64_t i = sample[s];
      double* v = &val[s * D];
      double* m = &mag[s * D];
      if (c.k == peer::kind::attention) {
        // softmax_j(g <x_i, y_j>) weighted average of v_j; mag: of |v_j|.
        double mx = -1e300, sum = 0;
        for (std::int64_t j = 0; j < cols; ++j) mx = std::max(mx, d2[j] = g * dot(i, j));
        for (std::int64_t j = 0; j < cols; ++j) {
          const double w = std::exp(d2[j] - mx);
          sum += w;
          for (int k = 0; k < D; ++k) {
            v[k] += w * double(this->v[j * D + k]);
            m[k] += w * std::abs(double(this->v[j * D + k]));
          }
        }
        for (int k = 0; k < D; ++k) v[k] /= sum, m[k] /= sum;
        continue;
      }
      for (std::int64_t j = 0; j < cols; ++j) d2[j] = sqdist(i, j);
      if (c.k == peer::kind::argkmin) {
        std::vector<double> d = d2;
        std::partial_sort(d.begin(), d.begin() + 8, d.end());
        std::copy(d.begin(), d.begin() + 8, v);
        continue;
      }
      if (c.k == peer::kind::logsumexp) {
        double mx = -1e300, sum = 0;
        for (std::int64_t j = 0; j < cols; ++j) mx = std::max(mx, -g * d2[j]);
        for (std::int64_t j = 0; j < cols; ++j) sum += std::exp(-g * d2[j] - mx);
        v[0] = mx + std::log(sum);
        continue;
      }
      for (std::int64_t j = 0; j < cols; ++j) {
        const double t = std::exp(-g * d2[j]) * double(b[j]);
        for (int k = 0; k < D; ++k) {
          // the gradient of sum_i e_i a_i w.r.t. x_i
          const double term = c.k == peer::kind::gauss ? t
                                                        : double(e[i]) * t * -2 * g *
                                                              (double(x[i * c.dim + k]) - double(y[j * c.dim + k]));
          v[k] += term;
          m[k] += std::abs(term);
        }
      }
    }
  }
};

// Tolerances against the double reference. Sums: |out - exact| / sum |terms|
// (float: rounding of D-long distances and of the sum, plus the exp of
// -use_fast_math or kops's fast policy); LogSumExp: |out - exact| / (1 + |exact|);
// argkmin: the distances at the returned indices against the k smallest, over
// the 8th (near-ties may swap indices, never distances).
double tolerance(peer::kind k, bool is_float) {
  if (k == peer::kind::gauss || k == peer::kind::gauss_grad || k == peer::kind::attention) return is_float ? 1e-4 : 1e-9;
  return is_float ? 1e-5 : 1e-11;
}

// An output on the host: T values per row (kops's argkmin: indices, as double).
template <class T>
double error(const problem<T>& p, const std::vector<double>& out) {
  const int D = p.dimout();
  double worst = 0;
  for (std::size_t s = 0; s < p.sample.size(); ++s) {
    const std::int64_t i = p.sample[s];
    const double* o = &out[std::size_t(i) * D];
    double err = 0;
    if (p.c.k == peer::kind::argkmin) {
      std::set<std::int64_t> seen;
      for (int k = 0; k < 8; ++k) {
        const auto j = std::int64_t(std::llround(o[k]));
        if (j < 0 || j >= p.cols || !seen.insert(j).second) return 1e300;  // out of range or repeated
        err = std::max(err, std::abs(p.sqdist(i, j) - p.val[s * 8 + k]) / (p.val[s * 8 + 7] + 1e-300));
      }
    } else if (p.c.k == peer::kind::logsumexp) {
      err = std::abs(o[0] - p.val[s]) / (1 + std::abs(p.val[s]));
    } else {
      for (int k = 0; k < D; ++k) err = std::max(err, std::abs(o[k] - p.val[s * D + k]) / (p.mag[s * D + k] + 1e-300));
    }
    worst = std::isnan(err) ? 1e300 : std::max(worst, err);
  }
  return worst;
}

// kops against KeOps on every row: sums and LogSumExp, max |a - b| over the
// largest |b| of the output; argkmin, the fraction of differing indices.
double difference(peer::kind k, const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return 1e300;
  double worst = 0, scale = 0;
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
    differ += std::llround(a[i]) != std::llround(b[i]);
  }
  if (k == peer::kind::argkmin) return double(differ) / double(a.size());
  return std::isnan(worst) ? 1e300 : worst / (scale + 1e-300);
}

struct timing {
  int reps = 0;
  double first = 0, median = 0, best = 0;  // seconds (GPU time between events; first: wall)
};

// f() queued on the default stream: a first call (wall time, synchronised),
// warm - 1 more, then `reps` calls between events; a configuration whose first
// call takes long gets fewer (at least one), so that one row spends about
// max_seconds at most.
template <class F>
timing time_calls(F&& f, int warm, int reps, double max_seconds) {
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  timing t;
  const auto w0 = std::chrono::steady_clock::now();
  f();
  check(cudaDeviceSynchronize(), "running (first call)");
  t.first = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  if (t.first * (warm - 1 + reps) > max_seconds) {
    warm = 1;
    reps = std::max(1, std::min(reps, int(max_seconds / std::max(t.first, 1e-9))));
  }
  for (int w = 1; w < warm; ++w) f();
  std::vector<double> s;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(e0, nullptr), "cudaEventRecord");
    f();
    check(cudaEventRecord(e1, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(e1), "running");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    s.push_back(1e-3 * double(ms));
  }
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
  std::sort(s.begin(), s.end());
  t.reps = int(s.size());
  t.median = s.empty() ? 0 : s[s.size() / 2];
  t.best = s.empty() ? 0 : s.front();
  return t;
}

// One row of the table and of the CSV, written as soon as it is known.
struct row {
  std::string cas, type, impl, policy, scheme, launch;
  std::int64_t rows = 0, cols = 0;
  timing t;
  double err = 0, tol = 0, vs_keops = -1, speedup = 0;
  bool ok = true;
};

struct report {
  std::FILE* csv = nullptr;
  std::FILE* md = nullptr;
  std::string device;
  int failures = 0, rows_written = 0;

  explicit report(const options& o) {
    if (!o.csv.empty()) {
      csv = std::fopen(o.csv.c_str(), "w");
      if (!csv) usage("cannot write " + o.csv);
      std::fprintf(csv, "case,dtype,impl,policy,scheme,rows,cols,launch,reps,first_s,median_s,best_s,pairs_per_s,"
                        "err_ref,tol,diff_vs_keops,keops_over_kops,verdict,device\n");
    }
    if (!o.md.empty()) {
      md = std::fopen(o.md.c_str(), "w");
      if (!md) usage("cannot write " + o.md);
    }
  }
  ~report() {
    if (csv) std::fclose(csv);
    if (md) std::fclose(md);
  }
  report(const report&) = delete;
  report& operator=(const report&) = delete;

  void line(const char* fmt, const std::string& text) {
    std::printf(fmt, text.c_str());
    std::fflush(stdout);
    if (md) {
      std::fprintf(md, fmt, text.c_str());
      std::fflush(md);
    }
  }
  void header(const std::string& dev) {
    device = dev;
    line("%s\n\n", "kops_peer on " + dev + (emulated ? " (kops::cuda_emulated: timings are not GPU timings)" : ""));
    line("%s\n", "| case | T | impl | policy | scheme | M = rows | N = cols | launch | median ms | pairs/s | "
                 "KeOps / kops time | err vs double | vs KeOps | verdict |");
    line("%s\n", "|---|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|");
  }
  void add(const row& r) {
    const double pairs = double(r.rows) * double(r.cols) / std::max(r.t.median, 1e-12);
    char buf[1024], vs[32] = "-", ratio[32] = "-";
    if (r.vs_keops >= 0) std::snprintf(vs, sizeof vs, "%.1e", r.vs_keops);
    if (r.speedup > 0) std::snprintf(ratio, sizeof ratio, "%.2f", r.speedup);
    const std::string verdict = r.ok ? "ok" : "FAIL";
    std::snprintf(buf, sizeof buf, "| %s | %s | %s | %s | %s | %lld | %lld | %s | %.3f | %.3g | %s | %.1e | %s | %s |",
                  r.cas.c_str(), r.type.c_str(), r.impl.c_str(), r.policy.c_str(), r.scheme.c_str(),
                  (long long)r.rows, (long long)r.cols, r.launch.c_str(), 1e3 * r.t.median, pairs,
                  ratio, r.err, vs, verdict.c_str());
    line("%s\n", buf);
    if (csv) {
      std::fprintf(csv, "%s,%s,%s,%s,%s,%lld,%lld,%s,%d,%.6g,%.6g,%.6g,%.6g,%.3g,%.3g,%.3g,%.4g,%s,\"%s\"\n",
                   r.cas.c_str(), r.type.c_str(), r.impl.c_str(), r.policy.c_str(), r.scheme.c_str(),
                   (long long)r.rows, (long long)r.cols, r.launch.c_str(), r.t.reps, r.t.first, r.t.median, r.t.best,
                   pairs, r.err, r.tol, r.vs_keops, r.speedup, verdict.c_str(), device.c_str());
      std::fflush(csv);
    }
    failures += !r.ok;
    ++rows_written;
  }
};

template <class T>
const peer::keops_kernel<T>* keops_of(const std::string& name) {
  const auto& m = [] {
    if constexpr (std::is_same_v<T, float>) return &peer::reg().keops_f;
    else return &peer::reg().keops_d;
  }();
  const auto it = m->find(name);
  return it == m->end() ? nullptr : &it->second;
}

template <class T>
std::vector<double> as_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

#ifdef KOPS_PEER_CUBIN_DIR
// A cubin nvrtc made of KeOps's source (bench/peer/peer.cmake runs
// nvrtc_cubin.cpp at build time), loaded as pykeops's keops_nvrtc.cpp loads its
// own (cuModuleLoadDataEx into the current context: the runtime's primary one)
// and its kernel GpuConv1DOnDevice; `error` says why not.
struct nvrtc_module {
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  std::string error;
  explicit nvrtc_module(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (bytes.empty()) {
      error = "no cubin at " + path + " (keopscore missing at build time?)";
      return;
    }
    check(cudaFree(nullptr), "creating the CUDA context");
    if (const CUresult e = cuModuleLoadDataEx(&mod, bytes.data(), 0, nullptr, nullptr); e != CUDA_SUCCESS) {
      error = "cuModuleLoadDataEx failed (CUresult " + std::to_string(int(e)) + ")";
      mod = nullptr;
    } else if (const CUresult e2 = cuModuleGetFunction(&fn, mod, "GpuConv1DOnDevice"); e2 != CUDA_SUCCESS) {
      error = "cuModuleGetFunction(GpuConv1DOnDevice) failed (CUresult " + std::to_string(int(e2)) + ")";
    }
  }
  ~nvrtc_module() {
    if (mod) (void)cuModuleUnload(mod);
  }
  nvrtc_module(const nvrtc_module&) = delete;
  nvrtc_module& operator=(const nvrtc_module&) = delete;
};
#endif

struct runner {
  runner(const options& o, report& r) : opt(o), rep(r) {}
  const options& opt;
  report& rep;
  cudaDeviceProp prop{};
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::vector<std::string> not_run;
  std::string keops_missing;

  bool past_deadline(const std::string& what) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < opt.deadline) return false;
    not_run.push_back(what);
    return true;
  }

  // One (case, T, size): KeOps first (the other rows' reference time), then kops.
  template <class T>
  void run(const peer::kops_case& c, std::int64_t rows, std::int64_t cols, bool headline) {
    const char* tname = std::is_same_v<T, float> ? "float" : "double";
    const std::string label = c.name + " " + tname + " " + std::to_string(rows) + "x" + std::to_string(cols);
    if (past_deadline(label)) return;
    const problem<T> p(c, rows, cols);
    const std::vector<T> gv{T(p.g)};
    device_buffer<T> dx(p.x), dy(p.y), db(p.b), dg(gv), de(p.e), dv(p.v), saved(static_cast<std::size_t>(rows));
    const bool is_float = std::is_same_v<T, float>;
    const double tol = tolerance(c.k, is_float);
    row base;
    base.cas = c.name;
    base.type = tname;
    base.rows = rows;
    base.cols = cols;
    base.tol = tol;

    // ---- KeOps: the pointer table in KeOps's variable order: x, y, then b g e (by family), then the saved forward
    std::vector<double> keops_out;
    double keops_time = 0;
    const peer::keops_kernel<T>* k = keops_of<T>(c.name);
    if (k == nullptr || !k->missing.empty()) {
      keops_missing = k == nullptr ? "no KeOps kernel registered for " + c.name : k->missing;
    } else {
      std::vector<T*> table;
      switch (c.k) {
        case peer::kind::gauss: table = {dx.p, dy.p, db.p, dg.p}; break;
        case peer::kind::gauss_grad: table = {dx.p, dy.p, db.p, dg.p, de.p, saved.p}; break;
        case peer::kind::argkmin: table = {dx.p, dy.p}; break;
        case peer::kind::logsumexp: table = {dx.p, dy.p, dg.p}; break;
        case peer::kind::attention: table = {dx.p, dy.p, dv.p, dg.p}; break;
      }
      if (int(table.size()) != k->nargs)
        kops::detail::fail("kops_peer: KeOps's kernel for %s takes %d arguments, expected %d", c.name.c_str(),
                           k->nargs, int(table.size()));
      device_buffer<T*> dtable(table);
      device_buffer<T> out(std::size_t(rows) * k->dimout);
      const long per = std::max<long>(1, k->dimy * long(sizeof(T)));
      const long block = k->chunk_mode == 0
                             ? std::min<long>(192, std::min<long>(prop.maxThreadsPerBlock, long(prop.sharedMemPerBlock) / per))
                             : std::min<long>(192, std::min<long>(1024, 49152 / per));
      const long grid = rows / block + (rows % block == 0 ? 0 : 1);
      const std::size_t shared = std::size_t(block * k->dimy) * sizeof(T);
      signed long int nx = rows, ny = cols;
      T* outp = out.p;
      T** argp = dtable.p;
      void* params[4] = {&nx, &ny, &outp, &argp};
      // One KeOps row: `launch` queues the kernel; the output back, LogSumExp's
      // (max, sum) -> max + log(sum) and SumSoftMaxWeight's (max, sum, sum v) ->
      // sum v / sum on the host as pykeops does.
      auto keops_row = [&](const std::string& compiler, auto&& launch) {
        row r = base;
        r.impl = "KeOps " + k->map_reduce + " (" + compiler + ")";
        r.policy = "fast-math";
        r.scheme = "GPU_1D";
        r.launch = std::to_string(grid) + "x" + std::to_string(block) + " " + std::to_string(shared) + " B";
        if (block != k->block_generated) r.launch += " (keops_gen.py: " + std::to_string(k->block_generated) + ")";
        check(cudaMemset(out.p, 0, out.n * sizeof(T)), "cudaMemset");
        r.t = time_calls(launch, opt.warm, opt.reps, opt.max_seconds);
        keops_out = as_double(out.host());
        if (c.k == peer::kind::logsumexp) {
          std::vector<double> lse(static_cast<std::size_t>(rows));
          for (std::int64_t i = 0; i < rows; ++i) lse[i] = keops_out[2 * i] + std::log(keops_out[2 * i + 1]);
          keops_out = std::move(lse);
        }
        if (c.k == peer::kind::attention) {
          const int D = p.dimout(), W = D + 2;
          std::vector<double> avg(static_cast<std::size_t>(rows) * D);
          for (std::int64_t i = 0; i < rows; ++i)
            for (int d = 0; d < D; ++d) avg[i * D + d] = keops_out[i * W + 2 + d] / keops_out[i * W + 1];
          keops_out = std::move(avg);
        }
        keops_time = r.t.median;
        r.err = error(p, keops_out);
        r.ok = r.err <= tol;
        rep.add(r);
      };
      keops_row(emulated ? "host compiler" : "nvcc", [&] {
        check(cudaLaunchKernel(k->fn, dim3(unsigned(grid)), dim3(unsigned(block)), params, shared, nullptr),
              "launching KeOps's kernel");
      });
#ifdef KOPS_PEER_CUBIN_DIR
      // The same source as nvrtc compiled it (build time, keopscore's options),
      // loaded and launched through the driver API as pykeops does: the row the
      // kops rows' time ratio refers to.
      const nvrtc_module m(std::string(KOPS_PEER_CUBIN_DIR) + "/keops_" + c.name + "_" + tname + ".cubin");
      if (!m.error.empty()) {
        rep.line("%s\n", "kops_peer: FAIL: KeOps's nvrtc cubin for " + label + ": " + m.error);
        ++rep.failures;
      } else {
        keops_row("nvrtc", [&] {
          if (const CUresult e = cuLaunchKernel(m.fn, unsigned(grid), 1, 1, unsigned(block), 1, 1, unsigned(shared),
                                                nullptr, params, nullptr);
              e != CUDA_SUCCESS)
            kops::detail::fail("kops_peer: cuLaunchKernel of KeOps's nvrtc kernel failed (CUresult %d)", int(e));
        });
      }
#endif
    }

    // ---- kops: one row of runner fn (its `policy` column) under scheme s
    using kops::cuda::scheme;
    auto kops_row = [&](const peer::kops_runner<T> fn, const std::string& policy, const scheme s,
                        const double tol_scale = 1) {
      const int dimout = p.dimout();
      std::vector<double> host;
      timing t;
      peer::call<T> call;
      call.rows = rows;
      call.cols = cols;
      call.in[0] = dx.p;
      call.in[1] = dy.p;
      if (c.k == peer::kind::logsumexp) call.in[2] = dg.p;
      else if (c.k == peer::kind::attention) {
        call.in[2] = dv.p;
        call.in[3] = dg.p;
      } else {
        call.in[2] = db.p;
        call.in[3] = dg.p;
        call.in[4] = de.p;
      }
      call.opts.scheme = s;
      if (c.k == peer::kind::argkmin) {
        device_buffer<std::int64_t> out(std::size_t(rows) * dimout);
        call.out = out.p;
        t = time_calls([&] { fn(call); }, opt.warm, opt.reps, opt.max_seconds);
        host = as_double(out.host());
      } else {
        device_buffer<T> out(std::size_t(rows) * dimout);
        call.out = out.p;
        t = time_calls([&] { fn(call); }, opt.warm, opt.reps, opt.max_seconds);
        host = as_double(out.host());
      }
      row r = base;
      r.impl = "kops";
      r.policy = policy;
      r.scheme = kops::cuda::to_string(s);
      r.launch = "kops";
      r.t = t;
      r.err = error(p, host);
      r.tol = tol * tol_scale;
      r.ok = r.err <= r.tol;
      if (!keops_out.empty()) {
        r.vs_keops = difference(c.k, host, keops_out);
        r.speedup = keops_time / std::max(t.median, 1e-12);
        // Both are within tol of the exact sums on the sampled rows; on every
        // row they may differ by both errors (argkmin: near-ties, reported only).
        if (c.k != peer::kind::argkmin && !(r.vs_keops <= tol + r.tol)) r.ok = false;
      }
      rep.add(r);
    };
    for (const bool fast : {false, true}) {
      const peer::kops_runner<T> fn = [&] {
        if constexpr (std::is_same_v<T, float>) return fast ? c.f_fast : c.f_accurate;
        else return fast ? c.d_fast : c.d_accurate;
      }();
      for (const scheme s : {scheme::automatic, scheme::gpu_1d, scheme::gpu_2d}) {
        if (headline && s != scheme::automatic) continue;
        if (past_deadline(label + " kops")) return;
        kops_row(fn, fast ? "fast" : "accurate", s);
      }
    }
    // The tuned variants (file comment), beside the default's fast rows.
    if (headline || opt.variants.count("none") || !(opt.variants.count("all") || opt.variants.count(c.name))) return;
    for (const peer::kops_variant& v : c.variants)
      for (const scheme s : {scheme::gpu_1d, scheme::gpu_2d}) {
        if (past_deadline(label + " kops " + v.name)) return;
        if constexpr (std::is_same_v<T, float>) kops_row(v.f_fast, "fast " + v.name, s, v.tol_scale);
        else kops_row(v.d_fast, "fast " + v.name, s, v.tol_scale);
      }
  }
};

} // namespace

int main(int argc, char** argv) try {
  const options opt = parse(argc, argv);
  report rep(opt);
  runner run(opt, rep);
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaGetDeviceProperties(&run.prop, dev), "cudaGetDeviceProperties");
  char dev_name[512];
  std::snprintf(dev_name, sizeof dev_name, "%s (sm_%d%d, %d SMs)", run.prop.name, run.prop.major, run.prop.minor,
                run.prop.multiProcessorCount);
  rep.header(dev_name);

  std::vector<const peer::kops_case*> cases;
  for (const auto& [name, c] : peer::reg().cases)
    if (opt.cases.empty() || opt.cases.count(name)) cases.push_back(&c);
  for (const auto& name : opt.cases)
    if (!peer::reg().cases.count(name)) usage("--cases: no case " + name);
  std::sort(cases.begin(), cases.end(), [](auto* a, auto* b) { return a->order < b->order; });

  // The headline first: the --deadline must not cut the row the issue's target is about.
  if (opt.headline && peer::reg().cases.count("gauss3"))
    run.run<float>(peer::reg().cases.at("gauss3"), 1000000, 1000000, true);
  for (const peer::kops_case* c : cases) {
    auto [rows, cols] = default_size(*c);
    if (opt.rows) rows = opt.rows;
    if (opt.cols) cols = opt.cols;
    if (opt.types.count("float")) run.run<float>(*c, rows, cols, false);
    if (opt.types.count("double")) run.run<double>(*c, rows, cols, false);
  }

  rep.line("%s\n", "");
  if (!run.not_run.empty()) {
    std::string s = "not run (--deadline " + std::to_string(opt.deadline) + " s passed):";
    for (const auto& n : run.not_run) s += " [" + n + "]";
    rep.line("%s\n", s);
  }
  if (rep.failures) {
    rep.line("%s\n", "kops_peer: FAIL: " + std::to_string(rep.failures) + " of " + std::to_string(rep.rows_written) +
                         " rows disagree (err vs double > tol, or kops vs KeOps > 2 tol)");
    return 1;
  }
  if (!run.keops_missing.empty()) {
    rep.line("%s\n", "kops_peer: SKIP: KeOps's kernels are missing (" + run.keops_missing +
                         "); kops's rows agree with the double reference");
    return 77;
  }
  rep.line("%s\n", "kops_peer: PASS: " + std::to_string(rep.rows_written) + " rows agree");
  return 0;
} catch (const kops::error& e) {
  std::fprintf(stderr, "kops_peer: %s\n", e.what());
  return 1;
}
