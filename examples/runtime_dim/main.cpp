// A kernel density estimate on points whose dimension is read from their file:
// kops::with_dim turns the run-time dimension into the compile-time one the
// formula needs, from a list of dimensions compiled in.
//
// The math. Points p_1..p_N in R^D, read from a text file ("N D", then N rows
// of D numbers). The Gaussian kernel density at every point,
//
//   rho_i = 1/N sum_j exp(-|p_i - p_j|^2 / (2 s^2)) / (2 pi s^2)^(D/2),
//
// is one kops::sum_reduction over j; D is only known once the file is read, so
// the reduction is built inside
//
//   kops::with_dim<1, 2, 3, 4, 5, 6, 7, 8>(D, [&](auto Dc) { ... kops::vi<0, Dc> ... });
//
// which instantiates the kernel for each listed dimension (its compile-time
// price: docs/performance.md) and runs the one equal to D. A file of another
// dimension is a kops::error naming the list.
//
// Self-check (exit code 0 only if it holds): rho equals a double-precision loop
// to 1e-5 relative. It also prints the densest point.
//
// Build and run: built with the examples (target runtime_dim; ctest -L example
// runs it on examples/runtime_dim/points.txt, 240 points in R^5, the default
// file of a CMake build), or by hand:
//   g++ -std=c++20 -O2 -march=native -Iinclude -isystem /usr/include/trilinos
//       examples/runtime_dim/main.cpp -ltrilinos_kokkoscore -ldl -o runtime_dim
//   ./runtime_dim examples/runtime_dim/points.txt [s]
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

namespace {

struct points {
  std::int64_t n = 0;
  int dim = 0;
  std::vector<float> data;  // (n, dim), row-major
};

bool read_points(const char* path, points& p) {
  std::ifstream in(path);
  if (!(in >> p.n >> p.dim) || p.n <= 0 || p.dim <= 0) return false;
  p.data.resize(std::size_t(p.n) * std::size_t(p.dim));
  for (float& v : p.data)
    if (!(in >> v)) return false;
  return true;
}

// rho_i for the points, the dimension now a compile-time constant D.
template <int D>
std::vector<float> density(const points& p, float s) {
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto c = kops::pm<2, 1>;  // -1 / (2 s^2)
  constexpr auto kde = kops::sum_reduction(kops::exp(c * kops::sqdist(x, y)), kops::axis_j);
  const float coef = -1.0f / (2 * s * s);
  std::vector<float> rho(std::size_t(p.n));
  kops::kokkos::eval(kde, p.n, p.n, rho.data(), p.data.data(), p.data.data(), &coef);
  const double norm = double(p.n) * std::pow(2 * std::numbers::pi * double(s) * s, D / 2.0);
  for (float& r : rho) r = float(r / norm);
  return rho;
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
#ifdef KOPS_EXAMPLE_POINTS
  const char* path = argc > 1 ? argv[1] : KOPS_EXAMPLE_POINTS;
#else
  if (argc < 2) {
    std::fprintf(stderr, "usage: runtime_dim POINTS_FILE [s]\n");
    return 2;
  }
  const char* path = argv[1];
#endif
  points p;
  if (!read_points(path, p)) {
    std::fprintf(stderr, "runtime_dim: cannot read %s (\"N D\", then N rows of D numbers)\n", path);
    return 2;
  }
  const float s = argc > 2 ? std::strtof(argv[2], nullptr) : 0.5f;

  std::vector<float> rho;
  try {
    rho = kops::with_dim<1, 2, 3, 4, 5, 6, 7, 8>(p.dim, [&](auto D) { return density<D()>(p, s); });
  } catch (const kops::error& e) {
    std::fprintf(stderr, "runtime_dim: %s\n", e.what());
    return 1;
  }

  // The same density in double precision, a plain loop.
  double worst = 0;
  std::int64_t densest = 0;
  const double norm = double(p.n) * std::pow(2 * std::numbers::pi * double(s) * s, p.dim / 2.0);
  for (std::int64_t i = 0; i < p.n; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < p.n; ++j) {
      double r2 = 0;
      for (int k = 0; k < p.dim; ++k) {
        const double t = double(p.data[i * p.dim + k]) - double(p.data[j * p.dim + k]);
        r2 += t * t;
      }
      sum += std::exp(-r2 / (2.0 * s * s));
    }
    const double ref = sum / norm;
    worst = std::fmax(worst, std::fabs(rho[i] - ref) / ref);
    if (rho[i] > rho[densest]) densest = i;
  }
  std::printf("%lld points in R^%d (dimension read from %s), s = %g\n", (long long)p.n, p.dim, path, double(s));
  std::printf("densest point: %lld, density %.6g\n", (long long)densest, double(rho[densest]));
  std::printf("max relative difference to a double loop: %.2e (limit 1e-5)\n", worst);
  const bool ok = worst <= 1e-5;
  std::printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
