// Shared helpers of the unit tests: backends to stamp test bodies over, seeded
// random data, and comparison of results with double-precision references.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <kops/kokkos.hpp>

namespace kops_test {

// A backend evaluates a reduction on host arrays. Test bodies are templated on
// a (backend, element type) configuration and instantiated for each backend
// that is built.
struct kokkos_backend {
  static constexpr const char* name = "kokkos";
  template <class... A> static void eval(A... a) { kops::kokkos::eval(a...); }
};

template <class Backend, class T>
struct cfg {
  using backend = Backend;
  using type = T;
};

template <class T>
std::vector<T> random_vector(std::size_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(u(rng));
  return v;
}

// Relative tolerance for a result computed in T from a handful of operations.
template <class T> constexpr double tolerance() { return sizeof(T) == 4 ? 2e-5 : 1e-12; }

// |a - b| <= tol * (|b| + floor): relative, with an absolute floor for values near 0.
inline bool close(double a, double b, double tol, double floor = 1.0) {
  if (std::isnan(b)) return std::isnan(a);
  if (std::isinf(b)) return a == b;
  return std::abs(a - b) <= tol * (std::abs(b) + floor);
}

} // namespace kops_test

// The (backend, element type) configurations every backend-generic test body runs on.
#define KOPS_TEST_CONFIGS (kops_test::cfg<kops_test::kokkos_backend, float>), (kops_test::cfg<kops_test::kokkos_backend, double>)
