// The CPU backend's exp of a scaled argument (exp_op::scaled_form in ops/exp.hpp, applied by lowering/lower.hpp):
// under the accurate policy exp(a b), b invariant, is evaluated as
// exp_scaled(a, b), the product a b not rounded first (simd_math.hpp:
// vexp_scaled). Checked here: which formulas are rewritten (types), and the
// Gaussian and Laplace sums against a long double reference, with special
// values (points at infinity, g = 0, g = inf, NaN). tests/CMakeLists.txt also
// builds this file with -march=native where the host has AVX-512 (the
// intrinsic path); the baseline build runs the generic one (vexp(a * b)).
#include "test_support.hpp"

#include <kops/backends/kokkos/eval.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace {

template <class F, class Op> struct has_op;
template <class Op, class... C> constexpr bool any_op(kops::type_list<C...>) { return (has_op<C, Op>::value || ...); }
template <class F, class Op> struct has_op {
  static constexpr bool value = any_op<Op>(typename F::children{});
};
template <class A, class B, class Op> struct has_op<kops::Binary<Op, A, B>, Op> {
  static constexpr bool value = true;
};

using kops::kokkos::detail::cpu_formula_t;
using kops::scaled_exp_op;
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
using gauss_t = decltype(kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j));
using laplace_t = decltype(kops::sum_reduction(kops::exp(-(kops::norm2(x - y) * g)) * b, kops::axis_j));
using const_t = decltype(kops::sum_reduction(kops::exp((kops::cst<-1> / kops::cst<2>) * kops::sqdist(x, y)) * b, kops::axis_j));
using plain_t = decltype(kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j));
using both_t = decltype(kops::sum_reduction(kops::exp(kops::sqdist(x, y) * b) * b, kops::axis_j));
constexpr auto acc = kops::precision::accurate;
constexpr auto fast = kops::precision::fast;
static_assert(has_op<cpu_formula_t<gauss_t, acc>, scaled_exp_op>::value);
static_assert(has_op<cpu_formula_t<laplace_t, acc>, scaled_exp_op>::value);
static_assert(has_op<cpu_formula_t<const_t, acc>, scaled_exp_op>::value);
// Nothing invariant to fold, a factor that varies with j, and the fast policy's own rewrite.
static_assert(!has_op<cpu_formula_t<plain_t, acc>, scaled_exp_op>::value);
static_assert(!has_op<cpu_formula_t<both_t, acc>, scaled_exp_op>::value);
static_assert(!has_op<cpu_formula_t<gauss_t, fast>, scaled_exp_op>::value);
static_assert(cpu_formula_t<gauss_t, acc>::dim == 1);

template <class T>
void check_gauss(T gv) {
  const std::int64_t M = 37, N = 300;
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<T> px(M * 3), py(N * 3), pb(N), out(M);
  for (auto& v : px) v = T(u(gen));
  for (auto& v : py) v = T(u(gen));
  for (auto& v : pb) v = T(u(gen));
  const T inf = std::numeric_limits<T>::infinity();
  py[3 * 7] = inf;    // y_7 at infinity: its terms are e^(-g inf) b = 0 (g > 0)
  px[3 * 5 + 1] = -inf;  // so is every term of row 5
  kops::kokkos::eval(gauss_t{}, M, N, out.data(), px.data(), py.data(), pb.data(), &gv);
  for (std::int64_t i = 0; i < M; ++i) {
    long double want = 0, mag = 0;
    for (std::int64_t j = 0; j < N; ++j) {
      long double d = 0;
      for (int k = 0; k < 3; ++k) {
        const long double t = (long double)px[3 * i + k] - py[3 * j + k];
        d += t * t;
      }
      const long double e = std::isinf(d) ? 0.0L : std::exp(-(long double)gv * d);
      want += e * pb[j];
      mag += e * std::fabs((long double)pb[j]);
    }
    INFO("row " << i << ": " << out[i] << " vs " << (double)want);
    const double tol = std::is_same_v<T, float> ? 2e-6 : 1e-14;
    CHECK(std::fabs((long double)out[i] - want) <= tol * (mag + 1e-30L));
  }
}

}  // namespace

TEST_CASE("kokkos exp_scaled: the Gaussian sum against long double, special values", "[kokkos][exp]") {
  check_gauss<float>(0.7f);
  check_gauss<double>(0.7);
  check_gauss<float>(13.0f);  // results far into the subnormal range
  // g = 0: e^(-0 d) = 1 for finite d, and -0 * inf = NaN where a point is at infinity.
  const std::int64_t M = 3, N = 4;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> px{0, 0, 0, 1, 1, 1, inf, 0, 0}, py{0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 3, 0}, pb{1, 2, 4, 8}, out(M);
  float g0 = 0;
  kops::kokkos::eval(gauss_t{}, M, N, out.data(), px.data(), py.data(), pb.data(), &g0);
  CHECK(out[0] == 15);
  CHECK(out[1] == 15);
  CHECK(std::isnan(out[2]));
  // g = inf: only the pairs at distance 0 survive (inf * 0 = NaN there, IEEE).
  float ginf = inf;
  kops::kokkos::eval(gauss_t{}, M, N, out.data(), px.data(), py.data(), pb.data(), &ginf);
  CHECK(std::isnan(out[0]));
  CHECK(out[1] == 0);
  // One pair whose term is subnormal, e^(-95.6) ~ 3e-42, e^(-95.1) ~ 5e-42 (a relative check on
  // sums would not see it): within 1.5 steps of the subnormal grid (2^-149).
  for (const float gs : {1.7f, 1.69f}) {
    float x1[3] = {0, 0, 0}, y1[3] = {7.5f, 0, 0}, b1[1] = {1}, o1[1] = {-1};
    float gv = gs;
    kops::kokkos::eval(gauss_t{}, 1, 1, o1, x1, y1, b1, &gv);
    const long double want = std::exp(-(long double)gs * 56.25L);
    INFO("g = " << gs << ": " << o1[0] << " vs " << (double)want);
    CHECK(std::fabs((long double)o1[0] - want) <= 1.5L * std::ldexp(1.0L, -149));
    CHECK(o1[0] > 0);
  }
  // A NaN scale makes every term NaN.
  kops::kokkos::eval(gauss_t{}, M, N, out.data(), px.data(), py.data(), pb.data(), &nan);
  CHECK(std::isnan(out[1]));
}
