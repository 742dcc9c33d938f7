// The accuracy kops::kokkos::solve reaches, float against double, on the
// Gaussian system of issue 35 (docs/solve.md, "Achievable accuracy"):
//
//   (alpha Id + K) a = b,  K_ij = exp(-g |x_i - x_j|^2),  x uniform in [0,1]^3,  b uniform in [-0.5, 0.5]
//
//   bench_solve_accuracy [--n N] [--g G] [--alphas A1,A2,...] [--tolerance TOL] [--type float|double]
//
// For float and double data (--type: one of them) and each alpha, a solve with the default options
// (tolerance 1e-5 for float, 1e-10 for double; --tolerance TOL: TOL for both),
// then the true residual ||alpha a + K a - b|| / ||b|| of the returned a in
// double, by a plain double loop independent of kops. Prints CSV lines
//   type,n,g,alpha,tolerance,iterations,residual_checks,restarts,reported,true,converged,seconds
#include <kops/kokkos.hpp>
#include <kops/kops.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct settings {
  std::int64_t n = 5000;
  double g = 100;
  std::vector<double> alphas{1e-1, 1e-2, 1e-3, 1e-4, 1e-5};
  double tolerance = 0;  // 0: the defaults
  std::string type;      // empty: both
};

// ||alpha a + K a - b|| / ||b||, K's rows computed on the fly in double.
template <class T>
double true_residual(const std::vector<T>& x, const std::vector<T>& a, const std::vector<T>& b, double g,
                     double alpha) {
  const std::size_t n = b.size();
  double rr = 0, bb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double s = alpha * double(a[i]) - double(b[i]);
    for (std::size_t j = 0; j < n; ++j) {
      double d2 = 0;
      for (int c = 0; c < 3; ++c) {
        const double t = double(x[i * 3 + c]) - double(x[j * 3 + c]);
        d2 += t * t;
      }
      s += std::exp(-g * d2) * double(a[j]);
    }
    rr += s * s;
    bb += double(b[i]) * double(b[i]);
  }
  return std::sqrt(rr / bb);
}

template <class T>
void run(const settings& st) {
  std::mt19937_64 rng(35);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<T> x(std::size_t(st.n) * 3), b(std::size_t(st.n));
  for (auto& v : x) v = T(unit(rng));
  for (auto& v : b) v = T(unit(rng) - 0.5);
  const std::vector<T> g{T(st.g)};
  constexpr auto xi = kops::vi<0, 3>;
  constexpr auto yj = kops::vj<1, 3>;
  constexpr auto u = kops::vj<2, 1>;
  constexpr auto gp = kops::pm<3, 1>;
  constexpr auto K = kops::sum_reduction(kops::exp(-gp * kops::sqdist(xi, yj)) * u, kops::axis_j);
  for (const double alpha : st.alphas) {
    kops::solve_options o;
    if (st.tolerance > 0) o.tolerance = st.tolerance;
    const double tol = st.tolerance > 0 ? st.tolerance : (sizeof(T) == 4 ? 1e-5 : 1e-10);
    std::vector<T> a(std::size_t(st.n));
    const auto t0 = std::chrono::steady_clock::now();
    const kops::solve_result r =
        kops::kokkos::solve(K, u, alpha, st.n, st.n, a.data(), x.data(), x.data(), b.data(), g.data(), o);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s,%lld,%g,%g,%g,%lld,%lld,%lld,%.3e,%.3e,%d,%.2f\n", sizeof(T) == 4 ? "float" : "double",
                (long long)st.n, st.g, alpha, tol, (long long)r.iterations, (long long)r.residual_checks,
                (long long)r.restarts, r.relative_residual, true_residual(x, a, b, st.g, alpha), int(r.converged),
                seconds);
    std::fflush(stdout);
  }
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  settings st;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string key = argv[k], value = argv[k + 1];
    if (key == "--n") {
      st.n = std::atoll(value.c_str());
    } else if (key == "--g") {
      st.g = std::atof(value.c_str());
    } else if (key == "--tolerance") {
      st.tolerance = std::atof(value.c_str());
    } else if (key == "--type") {
      st.type = value;
    } else if (key == "--alphas") {
      st.alphas.clear();
      std::stringstream in(value);
      for (std::string item; std::getline(in, item, ',');) st.alphas.push_back(std::atof(item.c_str()));
    } else {
      std::fprintf(stderr, "bench_solve_accuracy: unknown option %s\n", key.c_str());
      return 2;
    }
  }
  std::printf("type,n,g,alpha,tolerance,iterations,residual_checks,restarts,reported,true,converged,seconds\n");
  if (st.type != "double") run<float>(st);
  if (st.type != "float") run<double>(st);
  return 0;
}
