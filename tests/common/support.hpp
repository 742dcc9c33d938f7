// Backend-neutral helpers of the test bodies: (backend, element type)
// configurations, seeded random data, and comparison of results with
// double-precision references. A backend is a struct with
//   static constexpr const char* name;
//   template <auto... Pol, class... A> static void eval(A... a);   // eval<Pol...>(red, M, N, out, host pointers...)
// defined by the including test (tests/unit: Kokkos; tests/cuda: the GPU
// backend on host arrays), which also defines KOPS_TEST_CONFIGS, the list of
// configurations the bodies in this folder are stamped out for.
#pragma once

// KOPS_TEST_FEWER: stamp a few bodies for fewer configurations (one element
// type, fewer broadcast masks), where they cost build time and add little:
// the sanitizer builds (KOPS_TEST_SANITIZE, tools/sanitize.sh) and the nvcc
// build of the GPU tests on a machine without a GPU, where they are compiled,
// never run (KOPS_TEST_COMPILE_ONLY, tools/test.sh). Each place says what it keeps.
#if defined(KOPS_TEST_SANITIZE) || defined(KOPS_TEST_COMPILE_ONLY)
#define KOPS_TEST_FEWER 1
#endif
// The element types of a body whose two types run the same loops (the
// sanitizer builds: float only).
#if defined(KOPS_TEST_FEWER)
#define KOPS_TEST_REAL_TYPES float
#else
#define KOPS_TEST_REAL_TYPES float, double
#endif

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <kops/kops.hpp>

namespace kops_test {

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

// The order of numpy's stable argsort, NaN last (the k-min reductions' order).
template <class T>
std::vector<std::int64_t> stable_order(const std::vector<T>& v) {
  std::vector<std::int64_t> o(v.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](std::int64_t a, std::int64_t b) {
    return v[a] < v[b] || (!std::isnan(v[a]) && std::isnan(v[b]));
  });
  return o;
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
