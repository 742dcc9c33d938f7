// bench_gpu: kops::cuda on the 3-D Gaussian sum and its gradient, float32:
//     sum   a_i   = sum_j exp(-g |x_i - y_j|^2) b_j                       (dim 1)
//     grad  gx_i  = sum_j -2 g exp(-g |x_i - y_j|^2) b_j (x_i - y_j)       (dim 3)
// x:(M,3) y:(N,3) b:(N,1), N = M. The gradient (of sum w.r.t. x) is written by
// hand as a formula. For every size: both precision policies x the schemes
// automatic / GPU_1D / GPU_2D, on device buffers, timed as the first call of
// the process (kernel loading included: nothing is compiled at run time) and
// as the best of --reps steady calls (wall time with a stream synchronisation,
// and GPU time between CUDA events); plus eval_host (the host-pointer path,
// copies included: what pykeops' numpy interface does). Each result is checked
// against a double-precision loop on 256 sampled rows.
//
// usage: bench_gpu [--sizes 1e3,1e4,1e5,1e6] [--reps 5] [--max-seconds 10] [--csv FILE]
//                  [--dump DIR] [--seed 12345] [--g 2.0]
//   --csv   append one line per (impl, kernel, policy, scheme, size) to FILE
//   --dump  write the inputs and outputs as raw float32 for pykeops_gpu.py:
//           DIR/n<N>_{x,y,b}.f32, DIR/n<N>_out_kops_{sum,grad}.f32, DIR/params.txt
// Run a size alone (--sizes 1e6) to see the first call at that size cold.
#include <kops/kops.hpp>
#include <kops/cuda.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto gauss_sum = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
constexpr auto gauss_grad =
    kops::sum_reduction(kops::cst<-2> * g * kops::exp(-g * kops::sqdist(x, y)) * b * (x - y), kops::axis_j);
static_assert(gauss_sum.dim == 1 && gauss_grad.dim == 3);

struct Options {
  std::vector<std::int64_t> sizes{1000, 10000, 100000, 1000000};
  int reps = 5;
  double max_seconds = 10;
  std::string csv, dump;
  std::uint32_t seed = 12345;
  float g = 2.0f;
};

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr,
               "bench_gpu: %s\nusage: bench_gpu [--sizes 1e3,1e4,1e5,1e6] [--reps 5] [--max-seconds 10] "
               "[--csv FILE] [--dump DIR] [--seed S] [--g G]\n",
               msg);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) usage(("missing value after " + s).c_str());
      return argv[++a];
    };
    if (s == "--sizes") {
      o.sizes.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');) {
        const double v = std::atof(t.c_str());
        if (v < 1) usage("sizes must be >= 1");
        o.sizes.push_back(std::int64_t(v));
      }
    } else if (s == "--reps") {
      o.reps = std::atoi(value().c_str());
      if (o.reps < 1) usage("--reps must be >= 1");
    } else if (s == "--max-seconds") {
      o.max_seconds = std::atof(value().c_str());
    } else if (s == "--csv") {
      o.csv = value();
    } else if (s == "--dump") {
      o.dump = value();
    } else if (s == "--seed") {
      o.seed = std::uint32_t(std::strtoul(value().c_str(), nullptr, 10));
    } else if (s == "--g") {
      o.g = float(std::atof(value().c_str()));
    } else {
      usage(s == "-h" || s == "--help" ? "help" : ("unknown option " + s).c_str());
    }
  }
  return o;
}

void check(cudaError_t e, const char* doing) { kops::cuda::detail::check(e, "bench_gpu", doing); }

template <class T>
struct device_buffer {
  T* p = nullptr;
  explicit device_buffer(std::size_t n) { check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc"); }
  device_buffer(const std::vector<T>& h) : device_buffer(h.size()) {
    check(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "copying to the device");
  }
  ~device_buffer() { (void)cudaFree(p); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

// Uniform [0,1) from mt19937 with an explicit 24-bit conversion (as bench_cpu).
struct Data {
  std::int64_t n;
  std::vector<float> x, y, b;
};
Data make_data(std::int64_t n, std::uint32_t seed) {
  std::mt19937 rng(seed ^ std::uint32_t(n));
  auto u = [&] { return float(rng() >> 8) * (1.0f / 16777216.0f); };
  Data d{n, std::vector<float>(3 * n), std::vector<float>(3 * n), std::vector<float>(n)};
  for (auto& v : d.x) v = u();
  for (auto& v : d.y) v = u();
  for (auto& v : d.b) v = u();
  return d;
}

// Double-precision reference on 256 evenly spaced rows: value and sum |terms|
// per (row, component). Kernel 0: sum (dim 1); 1: grad (dim 3).
struct Reference {
  std::vector<std::int64_t> rows;
  std::vector<double> val, mag;
};
Reference reference(const Data& d, double gv, int kernel) {
  const int D = kernel == 0 ? 1 : 3;
  Reference r;
  const std::int64_t samples = std::min<std::int64_t>(d.n, 256);
  for (std::int64_t s = 0; s < samples; ++s) r.rows.push_back(s * d.n / samples);
  r.val.assign(r.rows.size() * D, 0);
  r.mag.assign(r.rows.size() * D, 0);
  for (std::size_t s = 0; s < r.rows.size(); ++s) {
    const std::int64_t i = r.rows[s];
    for (std::int64_t j = 0; j < d.n; ++j) {
      double diff[3], d2 = 0;
      for (int k = 0; k < 3; ++k) {
        diff[k] = double(d.x[3 * i + k]) - double(d.y[3 * j + k]);
        d2 += diff[k] * diff[k];
      }
      const double e = std::exp(-gv * d2) * double(d.b[j]);
      for (int k = 0; k < D; ++k) {
        const double t = kernel == 0 ? e : -2 * gv * e * diff[k];
        r.val[s * D + k] += t;
        r.mag[s * D + k] += std::abs(t);
      }
    }
  }
  return r;
}
// max |out - exact| / sum |terms| over the sampled rows.
double error(const Reference& r, const std::vector<float>& out, int D) {
  double worst = 0;
  for (std::size_t s = 0; s < r.rows.size(); ++s)
    for (int k = 0; k < D; ++k) {
      const double e = std::abs(double(out[r.rows[s] * D + k]) - r.val[s * D + k]) / (r.mag[s * D + k] + 1e-30);
      worst = std::isnan(e) ? 1e300 : std::max(worst, e);
    }
  return worst;
}

struct Timing {
  int reps = 0;
  double first = 0, best = 1e300, median = 0, gpu_best = 1e300;
};

// f() queues work on the default stream. The first call is timed alone; then
// up to `reps` calls (stopping once max_seconds are spent), best and median kept.
template <class F>
Timing time_calls(F&& f, int reps, double max_seconds) {
  using clock = std::chrono::steady_clock;
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "cudaEventCreate");
  check(cudaEventCreate(&e1), "cudaEventCreate");
  Timing t;
  auto t0 = clock::now();
  f();
  check(cudaDeviceSynchronize(), "running (first call)");
  t.first = std::chrono::duration<double>(clock::now() - t0).count();
  std::vector<double> w;
  double spent = 0;
  while (int(w.size()) < reps && (w.empty() || spent < max_seconds)) {
    t0 = clock::now();
    check(cudaEventRecord(e0, nullptr), "cudaEventRecord");
    f();
    check(cudaEventRecord(e1, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(e1), "running");
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    w.push_back(s);
    spent += s;
    t.gpu_best = std::min(t.gpu_best, 1e-3 * double(ms));
  }
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
  std::sort(w.begin(), w.end());
  t.reps = int(w.size());
  t.best = w.front();
  t.median = w[w.size() / 2];
  return t;
}

const char* scheme_name(kops::cuda::scheme s) {
  return s == kops::cuda::scheme::gpu_1d ? "GPU_1D" : s == kops::cuda::scheme::gpu_2d ? "GPU_2D" : "auto";
}

// The scheme `automatic` resolves to for this problem (kops' own rule, read
// through its detail API so that the table can say what auto ran).
template <kops::precision P, class Red>
const char* auto_choice(Red, std::int64_t rows, std::int64_t cols) {
  using K = kops::cuda::detail::kernel_traits<Red, float, P>;
  namespace d = kops::cuda::detail;
  return d::plan_launch<K>(rows, cols, kops::cuda::options{}, "bench_gpu").scheme == kops::cuda::scheme::gpu_2d
             ? "GPU_2D"
             : "GPU_1D";
}

void write_f32(const std::string& path, const std::vector<float>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
  if (!f) {
    std::fprintf(stderr, "bench_gpu: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

} // namespace

int main(int argc, char** argv) try {
  const Options opt = parse(argc, argv);
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  int runtime = 0, driver = 0;
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  const auto c0 = std::chrono::steady_clock::now();
  check(cudaFree(nullptr), "creating the CUDA context");
  const double ctx_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
  std::printf("bench_gpu: 3-D Gaussian sum and its x-gradient, float32, g = %g\n", double(opt.g));
  std::printf("  device %d: %s, sm_%d%d, %d SMs, %.1f GiB; CUDA runtime %d, driver %d; context creation %.3f s "
              "(not counted)\n",
              dev, prop.name, prop.major, prop.minor, prop.multiProcessorCount,
              double(prop.totalGlobalMem) / (1 << 30), runtime, driver, ctx_s);
  std::printf("  kops: block %d, auto = GPU_2D when rows < 4 x SMs x block and the reduced axis spans > 1 tile\n",
              kops::cuda::detail::kernel_traits<decltype(gauss_sum), float, kops::precision::accurate>::block);
  std::fflush(stdout);

  std::FILE* csv = nullptr;
  if (!opt.csv.empty()) {
    const bool fresh = !std::filesystem::exists(opt.csv) || std::filesystem::file_size(opt.csv) == 0;
    csv = std::fopen(opt.csv.c_str(), "a");
    if (!csv) usage(("cannot open " + opt.csv).c_str());
    if (fresh)
      std::fprintf(csv, "impl,kernel,policy,scheme,n,m,reps,first_s,best_s,median_s,gpu_best_s,pairs_per_s,"
                        "max_err,note\n");
  }
  if (!opt.dump.empty()) {
    std::filesystem::create_directories(opt.dump);
    std::ofstream p(opt.dump + "/params.txt");
    p << "g " << opt.g << "\nseed " << opt.seed << "\n";
  }

  std::set<std::string> called;  // (impl, kernel, policy, scheme) already called in this process
  int status = 0;
  for (const std::int64_t n : opt.sizes) {
    const Data d = make_data(n, opt.seed);
    const std::vector<float> pg{opt.g};
    device_buffer<float> dx(d.x), dy(d.y), db(d.b), dg(pg), out_sum(n), out_grad(3 * n);
    std::printf("N = M = %lld\n", (long long)n);
    std::fflush(stdout);
    const Reference ref[2] = {reference(d, opt.g, 0), reference(d, opt.g, 1)};

    auto emit = [&](const char* impl, int kernel, kops::precision pol, const char* scheme, const Timing& t,
                    double err, const std::string& ran) {
      const char* kname = kernel == 0 ? "sum" : "grad";
      const char* pname = pol == kops::precision::fast ? "fast" : "accurate";
      // The first call of a (kernel, policy, scheme) in the process loads its
      // kernels (the cold first call a user sees); later sizes find them loaded.
      const std::string key = std::string(impl) + kname + pname + scheme;
      const bool first_in_process = called.insert(key).second;
      const std::string note =
          std::string(first_in_process ? "first call: first in process" : "first call: kernels already loaded") + ran;
      std::printf("  %-9s %-4s %-8s %-6s first %8.4f s  best %8.4f s  median %8.4f s  gpu %8.4f s  %9.3e pairs/s"
                  "  err %.1e  %s\n",
                  impl, kname, pname, scheme, t.first, t.best, t.median, t.gpu_best,
                  double(n) * double(n) / t.best, err, note.c_str());
      if (csv) {
        std::fprintf(csv, "%s,%s,%s,%s,%lld,%lld,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.3g,%s\n", impl, kname, pname, scheme,
                     (long long)n, (long long)n, t.reps, t.first, t.best, t.median, t.gpu_best,
                     double(n) * double(n) / t.best, err, note.c_str());
        std::fflush(csv);
      }
      // sum |terms|-relative error: float rounding plus the policy's exp error.
      if (!(err < 1e-4)) {
        std::printf("  ERROR: %s %s %s %s disagrees with the double reference\n", impl, kname, pname, scheme);
        status = 1;
      }
    };

    auto run_kernel = [&]<kops::precision P>(int kernel, auto red, float* out, std::vector<float>& host) {
      const int D = kernel == 0 ? 1 : 3;
      for (auto s : {kops::cuda::scheme::automatic, kops::cuda::scheme::gpu_1d, kops::cuda::scheme::gpu_2d}) {
        kops::cuda::options o;
        o.scheme = s;
        const Timing t = time_calls([&] { kops::cuda::eval<P>(red, n, n, out, dx.p, dy.p, db.p, dg.p, o); },
                                    opt.reps, opt.max_seconds);
        check(cudaMemcpy(host.data(), out, host.size() * sizeof(float), cudaMemcpyDeviceToHost), "copying back");
        const std::string ran =
            s == kops::cuda::scheme::automatic ? std::string("; auto ran ") + auto_choice<P>(red, n, n) : "";
        emit("kops", kernel, P, scheme_name(s), t, error(ref[kernel], host, D), ran);
      }
    };
    std::vector<float> h_sum(n), h_grad(3 * n), h_sum_acc(n), h_grad_acc(3 * n);
    run_kernel.template operator()<kops::precision::accurate>(0, gauss_sum, out_sum.p, h_sum_acc);
    run_kernel.template operator()<kops::precision::fast>(0, gauss_sum, out_sum.p, h_sum);
    run_kernel.template operator()<kops::precision::accurate>(1, gauss_grad, out_grad.p, h_grad_acc);
    run_kernel.template operator()<kops::precision::fast>(1, gauss_grad, out_grad.p, h_grad);

    // The host-pointer path (allocation + copies + run + copy back), as pykeops' numpy interface.
    for (int kernel = 0; kernel < 2; ++kernel) {
      std::vector<float>& host = kernel == 0 ? h_sum : h_grad;
      const Timing t = time_calls(
          [&] {
            if (kernel == 0)
              kops::cuda::eval_host<kops::precision::fast>(gauss_sum, n, n, host.data(), d.x.data(), d.y.data(),
                                                           d.b.data(), pg.data());
            else
              kops::cuda::eval_host<kops::precision::fast>(gauss_grad, n, n, host.data(), d.x.data(),
                                                           d.y.data(), d.b.data(), pg.data());
          },
          opt.reps, opt.max_seconds);
      emit("kops-host", kernel, kops::precision::fast, "auto", t, error(ref[kernel], host, kernel == 0 ? 1 : 3),
           "; host arrays: copies included");
    }

    if (!opt.dump.empty()) {
      const std::string pre = opt.dump + "/n" + std::to_string(n) + "_";
      write_f32(pre + "x.f32", d.x);
      write_f32(pre + "y.f32", d.y);
      write_f32(pre + "b.f32", d.b);
      write_f32(pre + "out_kops_sum.f32", h_sum_acc);
      write_f32(pre + "out_kops_grad.f32", h_grad_acc);
    }
    std::fflush(stdout);
  }
  if (csv) std::fclose(csv);
  return status;
} catch (const kops::error& e) {
  std::fprintf(stderr, "bench_gpu: %s\n", e.what());
  return 1;
}
