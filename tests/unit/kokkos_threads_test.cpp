// The CPU backend on several threads: every reduction kind, both axes, float
// and double, at sizes whose last row block is partial, run on
// Kokkos::DefaultHostExecutionSpace and compared with the same plan run
// serially on the calling thread (backends/kokkos/eval.hpp, host_exec). Rows
// are spread over threads, and, when they are few, slices of the reduced axis
// too: a plan whose tasks ever wrote the same output row or shared an
// accumulator would differ from its serial run (or from itself, run again).
// Slicing is checked against the unsliced result (indices exactly, values to
// the rounding of another order of additions) with forced slice counts, so it
// runs on the Serial backend too; CI runs this file on Kokkos 4 OpenMP with two
// threads (tools/test_kokkos4.sh).
#include "test_support.hpp"

#include <kops/backends/kokkos/eval.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using kops::kokkos::detail::host_exec;
using kops::kokkos::detail::host_plan;
using kops::kokkos::detail::plan_host;

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
  } else {
    return a == b;
  }
}
template <class T>
bool same_value(const kops::value_index<T>& a, const kops::value_index<T>& b) {
  return same_value(a.value, b.value) && a.index == b.index;
}

// Within the rounding of another order of additions (sums, log-sum-exp, softmax
// weights); exact for everything else.
template <class T>
bool close_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (same_value(a, b)) return true;
    const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    return std::abs(double(a) - double(b)) <= tol * std::max(1.0, std::abs(double(b)));
  } else {
    return a == b;
  }
}
template <class T>
bool close_value(const kops::value_index<T>& a, const kops::value_index<T>& b) {
  return close_value(a.value, b.value) && a.index == b.index;
}

template <class T>
std::string show(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    return buf;
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    return show(v.value) + "@" + std::to_string(v.index);
  }
}

template <class T>
std::vector<T> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& e : v) e = T(u(gen));
  return v;
}

int threads() { return int(Kokkos::DefaultHostExecutionSpace().concurrency()); }

// One reduction at one size: the checks of the file comment. args: host arrays.
template <class Pol, class T, class Red, class... A>
void check_threads(Red, std::int64_t M, std::int64_t N, const A*... args) {
  using Out = typename Red::op::template out_t<T>;
  const std::int64_t rows = Red::row_cat == kops::category::i ? M : N;
  const std::size_t n = std::size_t(rows * Red::dim);
  auto run = [&](host_exec exec) {
    std::vector<Out> out(n);
    kops::kokkos::detail::eval_impl<Pol, Red, Out, T>(exec, M, N, out.data(), args...);
    return out;
  };
  auto count_if_not = [&](const std::vector<Out>& a, const std::vector<Out>& b, auto pred) {
    std::int64_t bad = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (pred(a[k], b[k])) continue;
      if (bad == 0) UNSCOPED_INFO("first difference at " << k << ": " << show(a[k]) << " vs " << show(b[k]));
      ++bad;
    }
    return bad;
  };
  auto same = [](const Out& a, const Out& b) { return same_value(a, b); };
  auto close = [](const Out& a, const Out& b) { return close_value(a, b); };

  const std::vector<Out> unsliced = run(host_exec{1, true});
  // The automatic plan, then forced slice counts; each threaded run twice.
  for (const std::int64_t slices : {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(3),
                                    std::int64_t(7)}) {
    INFO(Red::op::name << " M = " << M << " N = " << N << " slices = " << slices << " (0: automatic), threads = "
                       << threads());
    const std::vector<Out> serial = run(host_exec{slices, true});
    const std::vector<Out> first = run(host_exec{slices, false});
    const std::vector<Out> second = run(host_exec{slices, false});
    CHECK(count_if_not(first, serial, same) == 0);
    CHECK(count_if_not(second, serial, same) == 0);
    CHECK(count_if_not(serial, unsliced, close) == 0);
  }
  // The public entry is the automatic plan.
  if constexpr (std::is_same_v<Pol, kops::detail::policy_of_t<>>) {
    std::vector<Out> pub(n);
    kops::kokkos::eval(Red{}, M, N, pub.data(), args...);
    CHECK(count_if_not(pub, run(host_exec{0, true}), same) == 0);
  }
}

template <class T, class Axis>
void check_every_reduction(Axis axis, std::int64_t M, std::int64_t N) {
  using Pol = kops::detail::policy_of_t<>;
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  const auto px = random_vector<T>(std::size_t(M) * 3, 1), py = random_vector<T>(std::size_t(N) * 3, 2);
  const auto pb = random_vector<T>(std::size_t(N), 3), pe = random_vector<T>(std::size_t(std::max(M, N)), 4);
  const auto d = kops::sqdist(x, y);
  const T* X = px.data();
  const T* Y = py.data();
  const T* B = pb.data();
  const T* E = pe.data();

  const auto gauss = kops::sum_reduction(kops::exp(-d) * b, axis);
  check_threads<Pol, T>(gauss, M, N, X, Y, B);
  // Block sums flushed by the caller (the default scheme) vs Kahan's.
  check_threads<kops::detail::policy_of_t<kops::sum_scheme::kahan>, T>(gauss, M, N, X, Y, B);
  check_threads<kops::detail::policy_of_t<kops::precision::fast>, T>(gauss, M, N, X, Y, B);
  check_threads<Pol, T>(kops::min_reduction(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::max_reduction(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::argmin_reduction(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::argmax_reduction(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::min_argmin_reduction(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::max_argmax_reduction(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::kmin_reduction<3>(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::argkmin_reduction<3>(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::kmin_argkmin_reduction<3>(d * b, axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::logsumexp_reduction(-d, axis), M, N, X, Y);
  // Positive weights: a sum of terms of both signs cancels, and its float
  // rounding is then no longer small against the result.
  check_threads<Pol, T>(kops::logsumexp_reduction(-d, kops::exp(b), axis), M, N, X, Y, B);
  check_threads<Pol, T>(kops::sumsoftmaxweight_reduction(-d, y, axis), M, N, X, Y);
  // Gradients: one pass (sum) and two passes (log-sum-exp: a chained reduction).
  // The gradient input e is indexed like the output rows.
  // A wide output in final chunks (block_kernel::final_chunks): the gradient of
  // a 20-wide Gaussian w.r.t. x, its accumulator two chunks of 8 and a tail of 4
  // (run at the sizes whose automatic plan slices: few rows; CI time under TSan).
  const bool few_rows = (decltype(gauss)::row_cat == kops::category::i ? M : N) < 100;
  constexpr auto xw = kops::vi<0, 20>;
  constexpr auto yw = kops::vj<1, 20>;
  const auto pxw = random_vector<T>(std::size_t(M) * 20, 5), pyw = random_vector<T>(std::size_t(N) * 20, 6);
  const auto wide = kops::sum_reduction(kops::exp(-kops::sqdist(xw, yw)) * b, axis);
  if constexpr (decltype(gauss)::row_cat == kops::category::i) {
    constexpr auto e = kops::vi<3, 1>;
    check_threads<Pol, T>(kops::grad(gauss, x, e), M, N, X, Y, B, E);
    check_threads<Pol, T>(kops::grad(kops::logsumexp_reduction(-d, axis), x, e), M, N, X, Y, B, E);
    if (few_rows) check_threads<Pol, T>(kops::grad(wide, xw, e), M, N, pxw.data(), pyw.data(), B, E);
  } else {
    constexpr auto e = kops::vj<3, 1>;
    check_threads<Pol, T>(kops::grad(gauss, x, e), M, N, X, Y, B, E);
    check_threads<Pol, T>(kops::grad(kops::logsumexp_reduction(-d, axis), x, e), M, N, X, Y, B, E);
    if (few_rows) check_threads<Pol, T>(kops::grad(wide, xw, e), M, N, pxw.data(), pyw.data(), B, E);
  }
}

} // namespace

TEST_CASE("kokkos threads: the plan slices the reduced axis only when rows are too few", "[kokkos][threads]") {
  // 32 rows per block (16 float lanes x 2 packs).
  const host_plan few = plan_host(16, 32, 10'000'000, 2);
  CHECK(few.blocks == 1);
  CHECK(few.slices == 8);  // 4 tasks per thread
  CHECK(few.slices * few.slice_terms >= 10'000'000);
  CHECK((few.slices - 1) * few.slice_terms < 10'000'000);
  CHECK(plan_host(100'000, 32, 100'000, 2).slices == 1);      // 3125 blocks
  CHECK(plan_host(16, 32, 10'000'000, 1).slices == 1);        // one thread
  CHECK(plan_host(16, 32, 8'000, 2).slices == 1);             // slices would be < 4096 terms
  CHECK(plan_host(16, 32, 3 * 4096, 2).slices == 3);
  CHECK(plan_host(100, 32, 10'000'000, 64).slices == 64);     // 4 blocks, 256 tasks wanted
  CHECK(plan_host(0, 32, 10, 2).blocks == 0);
  // Forced counts: clamped to [1, cols], and no empty slice.
  CHECK(plan_host(16, 32, 5, 2, 7).slices == 5);
  const host_plan p = plan_host(16, 32, 301, 2, 7);
  CHECK(p.slices == 7);
  CHECK(p.slice_terms == 43);
  CHECK(plan_host(16, 32, 0, 2, 3).slices == 1);
}

// The ASan build (KOPS_TEST_SANITIZE): float only (KOPS_TEST_REAL_TYPES; this
// file was its longest compile, 185 s). The threaded runs, under TSan and on
// Kokkos 4 OpenMP, and the plain build keep both types.
TEMPLATE_TEST_CASE("kokkos threads: threaded runs equal serial runs, every reduction, both axes", "[kokkos][threads]",
                   KOPS_TEST_REAL_TYPES) {
  // Rows: a partial last block; reduced axis: long enough for the automatic
  // plan to slice on two threads (2 blocks < 8 tasks, 9000 terms >= 2 x 4096).
  check_every_reduction<TestType>(kops::axis_j, 45, 9000);
  check_every_reduction<TestType>(kops::axis_i, 9000, 45);
  // Many rows, a short reduced axis: rows alone.
  check_every_reduction<TestType>(kops::axis_j, 301, 77);
  check_every_reduction<TestType>(kops::axis_i, 77, 301);
}
