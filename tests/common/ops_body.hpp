// Test body (included once per test executable): every formula operation
// against a double-precision reference built from std:: functions, on the
// operation's domain, for float and double, through each backend configuration
// of KOPS_TEST_CONFIGS (defined by the includer). Each check evaluates
// out_i = sum_j f(x_i, y_j) (or f(x_i) with N = 1) and compares with the same
// sum done in double.
#pragma once

#include "support.hpp"

#ifndef KOPS_TEST_CONFIGS
#error "define KOPS_TEST_CONFIGS (the backend configurations) before including ops_body.hpp"
#endif

#include <functional>

using namespace kops_test;

namespace {

constexpr std::int64_t M = 37;  // not a multiple of any SIMD block
constexpr std::int64_t N = 5;

// out_i = sum_j f(x_i, y_j) for x = vi<0,DX>, y = vj<1,DY>; ref(xrow, yrow, k)
// is component k of f in double.
template <class C, int DX, int DY, class Build, class Ref>
void check_pairwise(Build build, Ref ref, double lo, double hi, double tol_scale = 1.0) {
  using T = typename C::type;
  using F = decltype(build(kops::vi<0, DX>, kops::vj<1, DY>));
  constexpr F f{};
  constexpr int D = F::dim;
  const auto x = random_vector<T>(M * DX, lo, hi, 1);
  const auto y = random_vector<T>(N * DY, lo, hi, 2);
  std::vector<T> out(M * D);
  C::backend::eval(kops::sum_reduction(f, kops::axis_j), M, N, out.data(), x.data(), y.data());
  for (std::int64_t i = 0; i < M; ++i)
    for (int k = 0; k < D; ++k) {
      double s = 0;
      for (std::int64_t j = 0; j < N; ++j) s += ref(&x[i * DX], &y[j * DY], k);
      INFO("row " << i << " component " << k);
      REQUIRE(close(out[i * D + k], s, tolerance<T>() * tol_scale));
    }
}

// Unary element-wise op g on x = vi<0,4> (N = 1: no j variable).
template <class C, class Build>
void check_unary(Build build, double (*ref)(double), double lo, double hi, double tol_scale = 1.0) {
  using T = typename C::type;
  constexpr int D = 4;
  using F = decltype(build(kops::vi<0, D>));
  constexpr F f{};
  static_assert(F::dim == D);
  const auto x = random_vector<T>(M * D, lo, hi, 3);
  std::vector<T> out(M * D);
  C::backend::eval(kops::sum_reduction(f, kops::axis_j), M, 1, out.data(), x.data());
  for (std::int64_t n = 0; n < M * D; ++n) {
    INFO("x = " << x[n]);
    REQUIRE(close(out[n], ref(double(x[n])), tolerance<T>() * tol_scale, 1e-30));
  }
}

} // namespace


TEMPLATE_TEST_CASE("unary element-wise ops match std:: in double", "[ops]", KOPS_TEST_CONFIGS) {
  SECTION("exp") { check_unary<TestType>([](auto x) { return kops::exp(x); }, [](double a) { return std::exp(a); }, -30, 30); }
  SECTION("log") { check_unary<TestType>([](auto x) { return kops::log(x); }, [](double a) { return std::log(a); }, 1e-3, 1e3); }
  SECTION("sqrt") { check_unary<TestType>([](auto x) { return kops::sqrt(x); }, [](double a) { return std::sqrt(a); }, 0, 100); }
  SECTION("rsqrt") { check_unary<TestType>([](auto x) { return kops::rsqrt(x); }, [](double a) { return 1 / std::sqrt(a); }, 1e-3, 100); }
  SECTION("square") { check_unary<TestType>([](auto x) { return kops::square(x); }, [](double a) { return a * a; }, -10, 10); }
  SECTION("inv") { check_unary<TestType>([](auto x) { return kops::inv(x); }, [](double a) { return 1 / a; }, 0.1, 10); }
  SECTION("abs") { check_unary<TestType>([](auto x) { return kops::abs(x); }, [](double a) { return std::abs(a); }, -10, 10); }
  SECTION("minus") { check_unary<TestType>([](auto x) { return -x; }, [](double a) { return -a; }, -10, 10); }
  SECTION("sin") { check_unary<TestType>([](auto x) { return kops::sin(x); }, [](double a) { return std::sin(a); }, -20, 20); }
  SECTION("cos") { check_unary<TestType>([](auto x) { return kops::cos(x); }, [](double a) { return std::cos(a); }, -20, 20); }
  SECTION("pow<3>") { check_unary<TestType>([](auto x) { return kops::pow<3>(x); }, [](double a) { return a * a * a; }, -5, 5); }
  SECTION("pow<-2>") { check_unary<TestType>([](auto x) { return kops::pow<-2>(x); }, [](double a) { return 1 / (a * a); }, 0.2, 5); }
  SECTION("pow<0>") { check_unary<TestType>([](auto x) { return kops::pow<0>(x); }, [](double) { return 1.0; }, -5, 5); }
  SECTION("pow<7>") { check_unary<TestType>([](auto x) { return kops::pow<7>(x); }, [](double a) { return std::pow(a, 7); }, -3, 3, 4); }
  SECTION("integer constant") {
    check_unary<TestType>([](auto x) { return kops::cst<3> * x + kops::cst<-2>; }, [](double a) { return 3 * a - 2; }, -5, 5, 4);
  }
}

TEMPLATE_TEST_CASE("rsqrt(0) is 0 (KeOps convention)", "[ops]", KOPS_TEST_CONFIGS) {
  using T = typename TestType::type;
  const std::vector<T> x{T(0), T(4)};
  std::vector<T> out(2);
  TestType::backend::eval(kops::sum_reduction(kops::rsqrt(kops::vi<0, 1>), kops::axis_j), 2, 1, out.data(), x.data());
  CHECK(out[0] == T(0));
  CHECK(out[1] == Approx(0.5));
}

TEMPLATE_TEST_CASE("binary ops broadcast {1,D} against {D,D}", "[ops]", KOPS_TEST_CONFIGS) {
  const auto bx = [](const auto* x, int k, int d) { return double(x[d == 1 ? 0 : k]); };
  SECTION("add D,D") {
    check_pairwise<TestType, 3, 3>([](auto x, auto y) { return x + y; },
                                   [&](auto* x, auto* y, int k) { return bx(x, k, 3) + bx(y, k, 3); }, -5, 5);
  }
  SECTION("subtract 1,D") {
    check_pairwise<TestType, 1, 3>([](auto x, auto y) { return x - y; },
                                   [&](auto* x, auto* y, int k) { return bx(x, k, 1) - bx(y, k, 3); }, -5, 5);
  }
  SECTION("mult D,1") {
    check_pairwise<TestType, 4, 1>([](auto x, auto y) { return x * y; },
                                   [&](auto* x, auto* y, int k) { return bx(x, k, 4) * bx(y, k, 1); }, -5, 5);
  }
  SECTION("divide D,D") {
    check_pairwise<TestType, 2, 2>([](auto x, auto y) { return x / y; },
                                   [&](auto* x, auto* y, int k) { return bx(x, k, 2) / bx(y, k, 2); }, 0.5, 5);
  }
  SECTION("divide 1,D") {
    check_pairwise<TestType, 1, 2>([](auto x, auto y) { return x / y; },
                                   [&](auto* x, auto* y, int k) { return bx(x, k, 1) / bx(y, k, 2); }, 0.5, 5);
  }
}

TEMPLATE_TEST_CASE("within-vector ops and distances", "[ops]", KOPS_TEST_CONFIGS) {
  SECTION("sum") {
    check_pairwise<TestType, 5, 1>([](auto x, auto y) { return kops::sum(x) + y; },
                                   [](auto* x, auto* y, int) { double s = y[0]; for (int k = 0; k < 5; ++k) s += x[k]; return s; }, -5, 5);
  }
  SECTION("sqnorm2") {
    check_pairwise<TestType, 3, 1>([](auto x, auto y) { return kops::sqnorm2(x) * y; },
                                   [](auto* x, auto* y, int) { double s = 0; for (int k = 0; k < 3; ++k) s += double(x[k]) * x[k]; return s * y[0]; }, -5, 5);
  }
  SECTION("norm2") {
    check_pairwise<TestType, 3, 1>([](auto x, auto y) { return kops::norm2(x) - y; },
                                   [](auto* x, auto* y, int) { double s = 0; for (int k = 0; k < 3; ++k) s += double(x[k]) * x[k]; return std::sqrt(s) - y[0]; }, -5, 5);
  }
  SECTION("dot") {
    check_pairwise<TestType, 3, 3>([](auto x, auto y) { return kops::dot(x, y); },
                                   [](auto* x, auto* y, int) { double s = 0; for (int k = 0; k < 3; ++k) s += double(x[k]) * y[k]; return s; }, -5, 5, 4);
  }
  SECTION("sqdist") {
    check_pairwise<TestType, 3, 3>([](auto x, auto y) { return kops::sqdist(x, y); },
                                   [](auto* x, auto* y, int) { double s = 0; for (int k = 0; k < 3; ++k) s += (double(x[k]) - y[k]) * (double(x[k]) - y[k]); return s; }, -5, 5, 4);
  }
  SECTION("gaussian kernel with a parameter") {
    using T = typename TestType::type;
    constexpr auto x = kops::vi<0, 3>;
    constexpr auto y = kops::vj<1, 3>;
    constexpr auto b = kops::vj<2, 2>;
    constexpr auto g = kops::pm<3, 1>;
    const auto px = random_vector<T>(M * 3, 0, 1, 4), py = random_vector<T>(N * 3, 0, 1, 5);
    const auto pb = random_vector<T>(N * 2, -1, 1, 6);
    const std::vector<T> pg{T(1.5)};
    std::vector<T> out(M * 2);
    TestType::backend::eval(kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j), M, N,
                            out.data(), px.data(), py.data(), pb.data(), pg.data());
    for (std::int64_t i = 0; i < M; ++i)
      for (int k = 0; k < 2; ++k) {
        double s = 0;
        for (std::int64_t j = 0; j < N; ++j) {
          double d2 = 0;
          for (int c = 0; c < 3; ++c) d2 += (double(px[i * 3 + c]) - py[j * 3 + c]) * (double(px[i * 3 + c]) - py[j * 3 + c]);
          s += std::exp(-1.5 * d2) * pb[j * 2 + k];
        }
        REQUIRE(close(out[i * 2 + k], s, tolerance<T>() * 4));
      }
  }
}
