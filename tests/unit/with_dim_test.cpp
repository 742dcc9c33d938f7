// kops::with_dim / kops::with_dims: the run-time dimension picks the compiled
// one, the kernels built from it evaluate as a double loop, and a dimension
// outside the list is a kops::error naming the list (f not called).
#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace kops_test;
using Catch::Matchers::Contains;

TEST_CASE("with_dim calls f with the listed dimension equal to d", "[with_dim]") {
  for (int d : {1, 2, 3, 8, 64}) {
    int calls = 0;
    const int got = kops::with_dim<1, 2, 3, 8, 64>(d, [&](auto D) {
      ++calls;
      static_assert(std::is_same_v<decltype(D), std::integral_constant<int, decltype(D)::value>>);
      return D();
    });
    CHECK(got == d);
    CHECK(calls == 1);
  }
  // The list's order does not matter; a single entry works.
  CHECK(kops::with_dim<8, 1, 3>(3, [](auto D) { return D() * 2; }) == 6);
  CHECK(kops::with_dim<5>(5, [](auto D) { return double(D()) / 2; }) == 2.5);
}

TEST_CASE("with_dim: a dimension outside the list is a kops::error naming it", "[with_dim][errors]") {
  int calls = 0;
  auto f = [&](auto) { ++calls; };
  CHECK_THROWS_WITH((kops::with_dim<1, 2, 3, 8>(5, f)),
                    "kops::with_dim: dimension 5 is not among the compiled ones (1, 2, 3, 8); add it to the list to "
                    "support it");
  CHECK_THROWS_AS((kops::with_dim<1, 2>(0, f)), kops::error);
  CHECK_THROWS_AS((kops::with_dim<1, 2>(-3, f)), kops::error);
  CHECK(calls == 0);
}

TEST_CASE("with_dims picks one dimension per list", "[with_dim]") {
  for (int p : {2, 3})
    for (int q : {1, 4, 16}) {
      const int got = kops::with_dims<kops::dims<2, 3>, kops::dims<1, 4, 16>>(
          p, q, [](auto P, auto Q) { return 100 * P() + decltype(Q)::value; });
      CHECK(got == 100 * p + q);
    }
  CHECK(kops::with_dims<kops::dims<1, 2>, kops::dims<3>, kops::dims<4, 5>>(2, 3, 5, [](auto A, auto B, auto C) {
          return A() * B() * C();
        }) == 30);
  CHECK_THROWS_WITH((kops::with_dims<kops::dims<2, 3>, kops::dims<1, 4, 16>>(3, 5, [](auto, auto) { return 0; })),
                    Contains("kops::with_dims: dimension 5 (the 2nd) is not among the compiled ones (1, 4, 16)"));
  CHECK_THROWS_WITH((kops::with_dims<kops::dims<2, 3>, kops::dims<1, 4, 16>>(7, 4, [](auto, auto) { return 0; })),
                    Contains("dimension 7 (the 1st) is not among the compiled ones (2, 3)"));
}

// The use with_dim is for: a kernel whose variables' dims come from the data.
TEMPLATE_TEST_CASE("with_dim: a Gaussian sum at the run-time dimension", "[with_dim]", float, double) {
  using T = TestType;
  const std::int64_t M = 37, N = 53;
  for (int d : {1, 3, 7}) {
    const auto x = random_vector<T>(M * d, -1, 1, 100 + d), y = random_vector<T>(N * d, -1, 1, 200 + d);
    std::vector<T> out(M);
    kops::with_dim<1, 2, 3, 7>(d, [&](auto D) {
      constexpr int Dv = decltype(D)::value;
      constexpr auto gauss = kops::sum_reduction(kops::exp(-kops::sqdist(kops::vi<0, Dv>, kops::vj<1, Dv>)), kops::axis_j);
      kops::kokkos::eval(gauss, M, N, out.data(), x.data(), y.data());
    });
    for (std::int64_t i = 0; i < M; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        double r2 = 0;
        for (int k = 0; k < d; ++k) {
          const double t = double(x[i * d + k]) - double(y[j * d + k]);
          r2 += t * t;
        }
        s += std::exp(-r2);
      }
      CHECK(close(double(out[i]), s, std::is_same_v<T, float> ? 1e-5 : 1e-12));
    }
  }
}
