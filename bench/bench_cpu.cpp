// bench_cpu: 3-D Gaussian sum, float32, one thread:
//     a_i = sum_j exp(-g |x_i - y_j|^2) b_j,   x:(M,3)  y:(N,3)  b:(N,1)
// kops (kops::kokkos::eval) against two hand-written loops (hand_loop.cpp).
//
// This translation unit holds the kops instantiation and is compiled WITHOUT
// -ffast-math (kops ships its own vectorised exp); the hand loops are a
// separate object compiled with -ffast-math. See bench/CMakeLists.txt.
//
// usage: bench_cpu [--sizes 10000,100000] [--reps 5] [--csv FILE] [--dump DIR]
//                  [--seed 12345] [--g 2.0]
//   --sizes   N = M values (comma separated)
//   --reps    timed repetitions per (impl, size), run round-robin over the impls;
//             the best (minimum) wall time is kept
//   --csv     append one line per (impl, size) to FILE (header written if FILE is new/empty)
//   --dump    write the inputs and the kops/hand outputs as raw float32 files
//             DIR/n<N>_{x,y,b,out_kops,out_hand}.f32 and DIR/params.txt (for pykeops_cpu.py)
// Kokkos options (--kokkos-...) are passed to Kokkos.
#ifdef __FAST_MATH__
#error "bench_cpu.cpp (the kops translation unit) must be compiled without -ffast-math"
#endif

#include "hand_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#if KOPS_BENCH_HAVE_KOPS
#include <Kokkos_Core.hpp>
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>
// The precision policy (accurate by default; fast = exp via 2^(x log2 e), as KeOps'
// fast math) is benchmarked as a second kops row when the headers provide it.
#if __has_include(<kops/core/precision.hpp>)
#define KOPS_BENCH_HAVE_FAST 1
#else
#define KOPS_BENCH_HAVE_FAST 0
#endif
#endif

namespace {

struct Options {
  std::vector<std::int64_t> sizes{10000, 100000};
  int reps = 5;
  std::string csv, dump;
  std::uint32_t seed = 12345;
  float g = 2.0f;  // = 1 / (2 sigma^2), sigma = 0.5 on points in [0,1]^3: exp in [e^-6, 1]
};

[[noreturn]] void usage(const char* msg) {
  const bool help = msg == nullptr;
  if (!help) std::fprintf(stderr, "bench_cpu: %s\n", msg);
  std::fprintf(help ? stdout : stderr,
               "usage: bench_cpu [--sizes 10000,100000] [--reps 5] [--csv FILE] [--dump DIR] "
               "[--seed S] [--g G]\n");
  std::exit(help ? 0 : 2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s.rfind("--kokkos", 0) == 0) continue;
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) usage(("missing value after " + s).c_str());
      return argv[++a];
    };
    if (s == "--sizes") {
      o.sizes.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');) {
        const double v = std::atof(t.c_str());  // accepts 1e4
        if (v < 1) usage("sizes must be >= 1");
        o.sizes.push_back(std::int64_t(v));
      }
    } else if (s == "--reps") {
      o.reps = std::atoi(value().c_str());
      if (o.reps < 1) usage("--reps must be >= 1");
    } else if (s == "--csv") {
      o.csv = value();
    } else if (s == "--dump") {
      o.dump = value();
    } else if (s == "--seed") {
      o.seed = std::uint32_t(std::strtoul(value().c_str(), nullptr, 10));
    } else if (s == "--g") {
      o.g = float(std::atof(value().c_str()));
    } else if (s == "-h" || s == "--help") {
      usage(nullptr);
    } else {
      usage(("unknown option " + s).c_str());
    }
  }
  return o;
}

struct Data {
  std::int64_t n;
  std::vector<float> x, y, b;
};

// Uniform [0,1) from mt19937 with an explicit 24-bit conversion (the standard
// distributions are implementation-defined); the data is dumped for pykeops anyway.
Data make_data(std::int64_t n, std::uint32_t seed) {
  std::mt19937 rng(seed ^ std::uint32_t(n));
  auto u = [&] { return float(rng() >> 8) * (1.0f / 16777216.0f); };
  Data d{n, std::vector<float>(3 * n), std::vector<float>(3 * n), std::vector<float>(n)};
  for (auto& v : d.x) v = u();
  for (auto& v : d.y) v = u();
  for (auto& v : d.b) v = u();
  return d;
}

// Wall time (steady_clock) is the measure; the thread's CPU time is kept too: on a
// shared machine it excludes the slices other processes took from our core.
struct Timing {
  double best = 0, median = 0, cpu_best = 0;
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Impl {
  const char* name;
  const char* note;
  std::function<void()> run;
};

std::vector<Timing> time_round_robin(int reps, const std::vector<Impl>& impls) {
  std::vector<std::vector<double>> t(impls.size()), c(impls.size());
  for (int r = 0; r < reps; ++r)
    for (std::size_t k = 0; k < impls.size(); ++k) {
      const double c0 = thread_cpu_seconds();
      const auto t0 = std::chrono::steady_clock::now();
      impls[k].run();
      const auto t1 = std::chrono::steady_clock::now();
      const double c1 = thread_cpu_seconds();
      t[k].push_back(std::chrono::duration<double>(t1 - t0).count());
      c[k].push_back(c1 - c0);
    }
  std::vector<Timing> out;
  for (std::size_t k = 0; k < impls.size(); ++k) {
    std::sort(t[k].begin(), t[k].end());
    out.push_back({t[k].front(), t[k][t[k].size() / 2], *std::min_element(c[k].begin(), c[k].end())});
  }
  return out;
}

// Double-precision reference on a sample of rows: max relative error of out.
double err_vs_f64(const Data& d, float g, const std::vector<float>& out) {
  const std::int64_t n = d.n, samples = std::min<std::int64_t>(n, 256);
  double worst = 0;
  for (std::int64_t s = 0; s < samples; ++s) {
    const std::int64_t i = s * n / samples;
    double acc = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      double r = 0;
      for (int k = 0; k < 3; ++k) {
        const double dk = double(d.x[3 * i + k]) - double(d.y[3 * j + k]);
        r += dk * dk;
      }
      acc += std::exp(-double(g) * r) * double(d.b[j]);
    }
    worst = std::max(worst, std::abs(double(out[i]) - acc) / std::abs(acc));
  }
  return worst;
}

double max_rel(const std::vector<float>& a, const std::vector<float>& ref) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a[i]) - double(ref[i])) / std::abs(double(ref[i])));
  return worst;
}

void write_f32(const std::string& path, const std::vector<float>& v) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(float)));
  if (!f) {
    std::fprintf(stderr, "bench_cpu: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

struct Row {
  std::string impl;
  std::int64_t n;
  int reps;
  Timing t;
  double err_f64;
};

void print_row(const Row& r, double hand_best) {
  const double pairs = double(r.n) * double(r.n);
  std::printf("  %-13s N=M=%-7lld best %9.4f s  median %9.4f s  cpu %9.4f s  %9.3e pairs/s  "
              "%6.3fx hand  max rel err vs f64 %.1e\n",
              r.impl.c_str(), (long long)r.n, r.t.best, r.t.median, r.t.cpu_best, pairs / r.t.best,
              hand_best / r.t.best, r.err_f64);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
#if KOPS_BENCH_HAVE_KOPS
  Kokkos::ScopeGuard kokkos_guard(argc, argv);
#endif
  const Options opt = parse(argc, argv);

#if defined(__SSE__)
  const unsigned csr = _mm_getcsr();
  const bool ftz = csr & 0x8000, daz = csr & 0x0040;
#else
  const bool ftz = false, daz = false;
#endif
  std::printf("bench_cpu: 3-D Gaussian sum a_i = sum_j exp(-g|x_i-y_j|^2) b_j, float32, g = %g\n",
              double(opt.g));
  std::printf("  hand loop: %s, %d i's per block; MXCSR FTZ=%d DAZ=%d (must be 0: no crtfastmath)\n",
              kops_bench::hand_loop_isa(), kops_bench::hand_loop_block(), int(ftz), int(daz));
#if KOPS_BENCH_HAVE_KOPS
  std::printf("  kops: Kokkos %s, concurrency %d\n", Kokkos::DefaultHostExecutionSpace::name(),
              int(Kokkos::DefaultHostExecutionSpace().concurrency()));
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto g = kops::pm<3, 1>;
  constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
  static_assert(conv.dim == 1);
#else
  std::printf("  kops: NOT BUILT (no kops::kokkos target at configure time): kops rows pending\n");
#endif
  std::fflush(stdout);

  std::FILE* csv = nullptr;
  if (!opt.csv.empty()) {
    const bool fresh = !std::filesystem::exists(opt.csv) || std::filesystem::file_size(opt.csv) == 0;
    csv = std::fopen(opt.csv.c_str(), "a");
    if (!csv) usage(("cannot open " + opt.csv).c_str());
    if (fresh) std::fprintf(csv, "impl,n,m,reps,best_s,median_s,cpu_best_s,pairs_per_s,max_rel_err_f64,note\n");
  }
  if (!opt.dump.empty()) {
    std::filesystem::create_directories(opt.dump);
    std::ofstream p(opt.dump + "/params.txt");
    p << "g " << opt.g << "\nseed " << opt.seed << "\n";
  }
  auto emit = [&](const Row& r, double hand_best, const char* note) {
    print_row(r, hand_best);
    if (csv) {
      std::fprintf(csv, "%s,%lld,%lld,%d,%.6g,%.6g,%.6g,%.6g,%.3g,%s\n", r.impl.c_str(), (long long)r.n,
                   (long long)r.n, r.reps, r.t.best, r.t.median, r.t.cpu_best,
                   double(r.n) * double(r.n) / r.t.best, r.err_f64, note);
      std::fflush(csv);
    }
  };

  // CSV notes: no commas.
  const std::string hand_note = std::string(kops_bench::hand_loop_isa()) + "; " +
                                std::to_string(kops_bench::hand_loop_block()) + " i per block; inline exp2";
#if KOPS_BENCH_HAVE_KOPS
  const std::string kops_note =
      std::string("Kokkos ") + Kokkos::DefaultHostExecutionSpace::name() + "; precision::accurate";
  const std::string kops_fast_note =
      std::string("Kokkos ") + Kokkos::DefaultHostExecutionSpace::name() + "; precision::fast";
#endif
  int status = 0;
  for (const std::int64_t n : opt.sizes) {
    const Data d = make_data(n, opt.seed);
    const float gv = opt.g;
    std::printf("N = M = %lld (%d reps, best kept)\n", (long long)n, opt.reps);
    std::fflush(stdout);

    // The implementations run round-robin (hand, hand-libmvec, kops, hand, ...) so that
    // a noisy neighbour on the machine hits all of them alike; each keeps its best time.
    std::vector<float> out_hand(n), out_mvec(n);
    std::vector<Impl> impls;
    impls.push_back({"hand", hand_note.c_str(), [&] {
      kops_bench::gauss_sum_hand(n, n, out_hand.data(), d.x.data(), d.y.data(), d.b.data(), gv);
    }});
    impls.push_back({"hand-libmvec", "auto-vectorised; libmvec expf", [&] {
      kops_bench::gauss_sum_hand_libmvec(n, n, out_mvec.data(), d.x.data(), d.y.data(), d.b.data(), gv);
    }});
#if KOPS_BENCH_HAVE_KOPS
    std::vector<float> out_kops(n);
    impls.push_back({"kops", kops_note.c_str(), [&] {
      kops::kokkos::eval(conv, n, n, out_kops.data(), d.x.data(), d.y.data(), d.b.data(), &gv);
    }});
#if KOPS_BENCH_HAVE_FAST
    std::vector<float> out_fast(n);
    impls.push_back({"kops-fast", kops_fast_note.c_str(), [&] {
      kops::kokkos::eval<kops::precision::fast>(conv, n, n, out_fast.data(), d.x.data(), d.y.data(),
                                                d.b.data(), &gv);
    }});
#endif
#endif
    const std::vector<Timing> t = time_round_robin(opt.reps, impls);
    const double hand_best = t[0].best;
    emit(Row{"hand", n, opt.reps, t[0], err_vs_f64(d, gv, out_hand)}, hand_best, impls[0].note);
    emit(Row{"hand-libmvec", n, opt.reps, t[1], err_vs_f64(d, gv, out_mvec)}, hand_best, impls[1].note);
#if KOPS_BENCH_HAVE_KOPS
    emit(Row{"kops", n, opt.reps, t[2], err_vs_f64(d, gv, out_kops)}, hand_best, impls[2].note);
    const double e = max_rel(out_kops, out_hand);
    std::printf("  kops vs hand: max rel err %.2e over all %lld rows; speed ratio kops/hand = %.3f "
                "(target >= 0.8), kops/hand-libmvec = %.3f\n",
                e, (long long)n, hand_best / t[2].best, t[1].best / t[2].best);
    if (!(e < 1e-4)) {
      std::printf("  ERROR: kops and hand loop disagree\n");
      status = 1;
    }
#if KOPS_BENCH_HAVE_FAST
    emit(Row{"kops-fast", n, opt.reps, t[3], err_vs_f64(d, gv, out_fast)}, hand_best, impls[3].note);
    const double ef = max_rel(out_fast, out_hand);
    std::printf("  kops-fast vs hand: max rel err %.2e; speed ratio kops-fast/hand = %.3f (target >= 0.8)\n",
                ef, hand_best / t[3].best);
    if (!(ef < 1e-4)) {
      std::printf("  ERROR: kops-fast and hand loop disagree\n");
      status = 1;
    }
#endif
#endif
    std::printf("  hand-libmvec vs hand: max rel err %.2e\n", max_rel(out_mvec, out_hand));

    if (!opt.dump.empty()) {
      const std::string pre = opt.dump + "/n" + std::to_string(n) + "_";
      write_f32(pre + "x.f32", d.x);
      write_f32(pre + "y.f32", d.y);
      write_f32(pre + "b.f32", d.b);
      write_f32(pre + "out_hand.f32", out_hand);
#if KOPS_BENCH_HAVE_KOPS
      write_f32(pre + "out_kops.f32", out_kops);
#endif
    }
    std::fflush(stdout);
  }
  if (csv) std::fclose(csv);
  return status;
}
