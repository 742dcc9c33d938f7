// The embedded profile on the CPU backend (docs/embedded.md): bad input to
// kops::kokkos::eval and kops::kokkos::solve, built without exceptions (and
// without RTTI where Kokkos allows it), calls the error handler with the
// message kops::error carries and returns with the output untouched; the
// default handler prints the message and aborts. Built with exceptions too
// (embedded.kokkos_exceptions), the same cases must throw the same messages.
#include "harness.hpp"

#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace embedded_test;

namespace {

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
// out_i = sum_j exp(-g |x_i - y_j|^2) b_j: out:(M, 1)
constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
constexpr auto nearest = kops::argmin_reduction(kops::sqdist(x, y), kops::axis_j);
constexpr auto kmin6 = kops::kmin_reduction<6>(kops::sqdist(x, y), kops::axis_j);

constexpr float sentinel = -12345.5f;
constexpr std::int64_t index_sentinel = -7;

struct data {
  std::int64_t M = 4, N = 5;
  std::vector<float> px, py, pb, pg{0.5f};
  std::vector<float> out;
  std::vector<std::int64_t> idx;
  data() : px(std::size_t(3 * M)), py(std::size_t(3 * N)), pb(std::size_t(N)) {
    for (std::size_t k = 0; k < px.size(); ++k) px[k] = 0.1f * float(k % 7);
    for (std::size_t k = 0; k < py.size(); ++k) py[k] = 0.2f * float(k % 5);
    for (std::size_t k = 0; k < pb.size(); ++k) pb[k] = 1.0f + float(k);
    reset();
  }
  void reset() {
    out.assign(64, sentinel);
    idx.assign(64, index_sentinel);
  }
  bool out_untouched() const { return untouched(out.data(), out.size(), sentinel); }
  bool idx_untouched() const { return untouched(idx.data(), idx.size(), index_sentinel); }
};

// Runs the call, expects `message`, and checks that no output moved.
template <class F>
void bad_eval(data& d, const char* name, const char* message, F&& call) {
  d.reset();
  expect_failure(name, message, call);
  expect(d.out_untouched() && d.idx_untouched(), "%s: the output is untouched", name);
}

void eval_cases() {
  data d;
  const float* null = nullptr;
  bad_eval(d, "negative M", "kops::kokkos::eval: M (the number of i rows) must be >= 0, got -1",
           [&] { kops::kokkos::eval(conv, -1, d.N, d.out.data(), d.px.data(), d.py.data(), d.pb.data(), d.pg.data()); });
  bad_eval(d, "negative N", "kops::kokkos::eval: N (the number of j rows) must be >= 0, got -5",
           [&] { kops::kokkos::eval(conv, d.M, -5, d.out.data(), d.px.data(), d.py.data(), d.pb.data(), d.pg.data()); });
  bad_eval(d, "null argument", "kops::kokkos::eval: argument 1 (vj<1,3>) is a null pointer",
           [&] { kops::kokkos::eval(conv, d.M, d.N, d.out.data(), d.px.data(), null, d.pb.data(), d.pg.data()); });
  bad_eval(d, "null parameter", "kops::kokkos::eval: argument 3 (pm<3,1>) is a null pointer",
           [&] { kops::kokkos::eval(conv, d.M, d.N, d.out.data(), d.px.data(), d.py.data(), d.pb.data(), null); });
  bad_eval(d, "null output", "kops::kokkos::eval: the output pointer is null", [&] {
    float* no_out = nullptr;
    kops::kokkos::eval(conv, d.M, d.N, no_out, d.px.data(), d.py.data(), d.pb.data(), d.pg.data());
  });
  bad_eval(d, "null index output", "kops::kokkos::eval: the output pointer is null", [&] {
    std::int64_t* no_out = nullptr;
    kops::kokkos::eval(nearest, d.M, d.N, no_out, d.px.data(), d.py.data());
  });
  bad_eval(d, "k-min with K > N",
           "kops::kokkos::eval: kmin_reduction<6> needs at least 6 terms per output row, but the reduced axis has "
           "N = 5",
           [&] { kops::kokkos::eval(kmin6, d.M, d.N, d.out.data(), d.px.data(), d.py.data()); });
  // The output is the input x itself (in place): refused before anything is written.
  {
    d.reset();
    std::vector<float> xs = d.px;
    expect_failure("output overlapping an input",
                   "kops::kokkos::eval: the output array overlaps argument 0 (vi<0,3>) with M = 4, N = 5; kops reads "
                   "the inputs while it writes the output, so the output needs its own buffer (or, if it has one, M "
                   "or N is larger than the arrays: the range form, std::span arguments, checks every size)",
                   [&] { kops::kokkos::eval(conv, d.M, d.N, xs.data(), xs.data(), d.py.data(), d.pb.data(), d.pg.data()); });
    expect(xs == d.px, "output overlapping an input: the input is untouched");
  }

  // A good call still works in this mode and calls no handler.
  messages().clear();
  d.reset();
  kops::kokkos::eval(conv, d.M, d.N, d.out.data(), d.px.data(), d.py.data(), d.pb.data(), d.pg.data());
  double worst = 0;
  for (std::int64_t i = 0; i < d.M; ++i) {
    double s = 0;
    for (std::int64_t j = 0; j < d.N; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double t = double(d.px[std::size_t(3 * i + k)]) - double(d.py[std::size_t(3 * j + k)]);
        r2 += t * t;
      }
      s += std::exp(-double(d.pg[0]) * r2) * double(d.pb[std::size_t(j)]);
    }
    worst = std::fmax(worst, std::abs(double(d.out[std::size_t(i)]) - s) / s);
  }
  expect(worst < 1e-5, "a good call: the sums (relative error %.2g)", worst);
  expect(d.out[std::size_t(d.M)] == sentinel, "a good call: nothing written past the output");
  expect(messages().empty(), "a good call: no handler call (%zu calls)", messages().size());
}

// The solve's own checks, then the eval's checks it reuses; `a` untouched and
// a result that says nothing converged.
void solve_cases() {
  data d;
  const std::int64_t n = 12;
  std::vector<float> px(3 * n), pb(n);
  for (std::size_t k = 0; k < px.size(); ++k) px[k] = 0.3f * float(k % 11);
  for (std::size_t k = 0; k < pb.size(); ++k) pb[k] = 1.0f - 0.1f * float(k);
  std::vector<float> a;
  const double alpha = 0.5;
  const float* null = nullptr;
  const auto bad_solve = [&](const char* name, const char* message, auto&& call) {
    a.assign(std::size_t(n), sentinel);
    kops::solve_result res;
    res.iterations = -1;
    expect_failure(name, message, [&] { res = call(); });
    expect(untouched(a.data(), a.size(), sentinel), "%s: the solution array is untouched", name);
#if !KOPS_EXCEPTIONS
    expect(!res.converged && res.iterations == 0, "%s: the result is a default solve_result", name);
#endif
  };
  bad_solve("solve: not square",
            "kops::kokkos::solve: K must be square, M (the number of i rows, 12) must equal N (the number of j "
            "rows, 11)",
            [&] { return kops::kokkos::solve(conv, b, alpha, n, n - 1, a.data(), px.data(), px.data(), pb.data(), d.pg.data()); });
  bad_solve("solve: negative M", "kops::kokkos::solve: M (the number of i rows) must be >= 0, got -1",
            [&] { return kops::kokkos::solve(conv, b, alpha, -1, -1, a.data(), px.data(), px.data(), pb.data(), d.pg.data()); });
  bad_solve("solve: null right-hand side",
            "kops::kokkos::solve: argument 2 (vj<2,1>), the right-hand side b, is a null pointer",
            [&] { return kops::kokkos::solve(conv, b, alpha, n, n, a.data(), px.data(), px.data(), null, d.pg.data()); });
  bad_solve("solve: null argument", "kops::kokkos::solve: argument 1 (vj<1,3>) is a null pointer",
            [&] { return kops::kokkos::solve(conv, b, alpha, n, n, a.data(), px.data(), null, pb.data(), d.pg.data()); });
  bad_solve("solve: null solution", "kops::kokkos::solve: the solution pointer is null", [&] {
    float* no_a = nullptr;
    return kops::kokkos::solve(conv, b, alpha, n, n, no_a, px.data(), px.data(), pb.data(), d.pg.data());
  });
  kops::solve_options o;
  o.tolerance = -1;
  bad_solve("solve: negative tolerance", "kops::kokkos::solve: the tolerance must be >= 0, got -1.000000",
            [&] { return kops::kokkos::solve(conv, b, alpha, n, n, a.data(), px.data(), px.data(), pb.data(), d.pg.data(), o); });
  o.tolerance = std::numeric_limits<double>::quiet_NaN();
  bad_solve("solve: NaN tolerance", "kops::kokkos::solve: the tolerance must be >= 0, got nan",
            [&] { return kops::kokkos::solve(conv, b, alpha, n, n, a.data(), px.data(), px.data(), pb.data(), d.pg.data(), o); });
  o = {};
  o.absolute_tolerance = -1e-3;
  bad_solve("solve: negative absolute tolerance", "kops::kokkos::solve: the absolute tolerance must be >= 0, got -0.001000",
            [&] { return kops::kokkos::solve(conv, b, alpha, n, n, a.data(), px.data(), px.data(), pb.data(), d.pg.data(), o); });
  o = {};
  o.max_iterations = -2;
  bad_solve("solve: negative max_iterations", "kops::kokkos::solve: max_iterations must be >= 0, got -2",
            [&] { return kops::kokkos::solve(conv, b, alpha, n, n, a.data(), px.data(), px.data(), pb.data(), d.pg.data(), o); });

  // A good solve converges and calls no handler.
  messages().clear();
  a.assign(std::size_t(n), sentinel);
  const auto res = kops::kokkos::solve(conv, b, alpha, n, n, a.data(), px.data(), px.data(), pb.data(), d.pg.data());
  expect(res.converged, "a good solve converges (relative residual %.2g)", res.relative_residual);
  expect(messages().empty(), "a good solve: no handler call (%zu calls)", messages().size());
}

// Before Kokkos::initialize: the backends refuse to run (eval and solve check it).
void uninitialized_cases() {
  data d;
  bad_eval(d, "Kokkos not initialized",
           "kops::kokkos::eval: Kokkos is not initialized (create a Kokkos::ScopeGuard or call Kokkos::initialize "
           "first)",
           [&] { kops::kokkos::eval(conv, d.M, d.N, d.out.data(), d.px.data(), d.py.data(), d.pb.data(), d.pg.data()); });
  // A two-pass reduction (a log-sum-exp's gradient): its first pass fails, and
  // the second must not run (nor report a second time).
  {
    constexpr auto lse_grad = kops::grad(kops::logsumexp_reduction(-g * kops::sqdist(x, y), kops::axis_j), x,
                                         kops::vi<4, 1>);
    std::vector<float> pe(std::size_t(d.M), 1.0f);
    bad_eval(d, "Kokkos not initialized, two passes",
             "kops::kokkos::eval: Kokkos is not initialized (create a Kokkos::ScopeGuard or call Kokkos::initialize "
             "first)",
             [&] {
               kops::kokkos::eval(lse_grad, d.M, d.N, d.out.data(), d.px.data(), d.py.data(), d.pb.data(), d.pg.data(),
                                  pe.data());
             });
  }
  std::vector<float> px(3 * 4, 0.5f), pb(4, 1.0f), a(4, sentinel);
  expect_failure("solve: Kokkos not initialized",
                 "kops::kokkos::solve: Kokkos is not initialized (create a Kokkos::ScopeGuard or call "
                 "Kokkos::initialize first)",
                 [&] { (void)kops::kokkos::solve(conv, b, 0.5, 4, 4, a.data(), px.data(), px.data(), pb.data(), d.pg.data()); });
  expect(untouched(a.data(), a.size(), sentinel), "solve: Kokkos not initialized: the solution array is untouched");
}

} // namespace

int main(int argc, char** argv) {
  check_handler_api();
  uninitialized_cases();
#if !KOPS_EXCEPTIONS
  {
    data d;
    expect_abort("the default handler", "kops::kokkos::eval: M (the number of i rows) must be >= 0, got -1", [&] {
      kops::kokkos::eval(conv, -1, d.N, d.out.data(), d.px.data(), d.py.data(), d.pb.data(), d.pg.data());
    });
  }
#endif
  {
    Kokkos::ScopeGuard guard(argc, argv);
    eval_cases();
    solve_cases();
  }
  return summary("kops embedded profile, kops::kokkos");
}
