// The differential check of one generated reduction (tests/differential/cases.hpp):
// the Kokkos backend against reference_eval (tests/common/reference.hpp: the
// reduction's definition, one (i, j) pair at a time, kops::scalar_math in
// double, the formula as built, without the backend's factorization or SIMD
// math), on seeded data in [-1, 1] and sizes that vary with the case:
//
//   Kokkos, double, direct sum (the reference's order):
//       |out - ref| <= 1e-9 (|ref| + S)      S = 1 + max over rows |ref|
//   Kokkos, float, the default block sum:
//       |out - ref| <= 2e-3 (|ref| + S)
//
// S makes the bound relative to the size of the row outputs, so that a row
// whose sum cancels does not turn rounding into a failure; a real bug (a wrong
// lane, row, index, op or simplification) is an error of order S.
#pragma once

#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <kops/io/to_string.hpp>

#include "../common/reference.hpp"
#include "../common/support.hpp"

namespace kops_diff {

struct tally {
  int formulas = 0;
  long long values = 0;  // output values compared (double and float)
  int failures = 0;
};

// The arguments, sizes and double reference of case `id`.
struct case_data {
  std::int64_t M = 0, N = 0;
  std::vector<std::vector<double>> data;   // one array per argument index (unused: empty)
  std::vector<std::vector<float>> fdata;   // the same values in float
  std::vector<double> ref;                 // reference_eval in double
  double scale = 1;                        // 1 + max |ref|
};

template <class Red>
case_data make_case(int id) {
  case_data c;
  c.M = 1 + (id * 37) % 45;
  c.N = 1 + (id * 53) % 70;
  // Argument arrays sized from the signature (unused slots stay empty).
  c.data.resize(std::size_t(Red::nargs));
  [&]<class... S>(kops::type_list<S...>) {
    ([&] {
      if constexpr (!kops::detail::is_unused_slot_v<S>) {
        const std::int64_t n = S::cat == kops::category::i ? c.M : S::cat == kops::category::j ? c.N : 1;
        c.data[S::index] = kops_test::random_vector<double>(std::size_t(n * S::dim), -1, 1, unsigned(id * 10 + S::index));
      }
    }(), ...);
  }(typename Red::signature{});
  c.fdata.resize(c.data.size());
  for (std::size_t k = 0; k < c.data.size(); ++k) c.fdata[k].assign(c.data[k].begin(), c.data[k].end());
  const std::int64_t rows = Red::row_cat == kops::category::i ? c.M : c.N;
  c.ref.resize(std::size_t(rows * Red::dim));
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    kops_test::reference_eval<double>(Red{}, c.M, c.N, c.ref.data(), c.data[I].data()...);
  }(std::make_index_sequence<std::size_t(Red::nargs)>{});
  for (double v : c.ref) c.scale = std::max(c.scale, 1 + std::abs(v));
  return c;
}

// Runs `run(out, pointers...)` on the case's data in T and counts the values
// outside tol (relative to |ref| + scale); the first one is described in `first`.
template <class Red, class T, class Run>
int count_differences(const case_data& c, Run run, double tol, const char* label, std::string& first) {
  const auto& data = [&]() -> const auto& {
    if constexpr (std::is_same_v<T, double>) return c.data;
    else return c.fdata;
  }();
  std::vector<T> out(c.ref.size());
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    run(out.data(), data[I].data()...);
  }(std::make_index_sequence<std::size_t(Red::nargs)>{});
  int bad = 0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (!kops_test::close(double(out[k]), c.ref[k], tol, c.scale) && bad++ == 0 && first.empty()) {
      std::ostringstream o;
      o.precision(17);
      o << label << ", value " << k << ": reference " << c.ref[k] << ", got " << out[k];
      first = o.str();
    }
  }
  return bad;
}

// Records one case's outcome; bad = the number of values that differ over all backends.
template <class Red>
void record(Red, int id, const char* source, const case_data& c, int bad, long long compared,
            const std::string& first, tally& t) {
  ++t.formulas;
  t.values += compared;
  if (bad > 0) {
    ++t.failures;
    UNSCOPED_INFO("case " << id << " (M = " << c.M << ", N = " << c.N << "): " << bad << " values differ; first: "
                          << first << "\n  source: " << source << "\n  kops:   " << kops::to_string(Red{}));
  }
}

#ifdef KOKKOS_VERSION  // the Kokkos backend is included (tests/unit)
// Kokkos, double with the direct sum (the reference's order) and float with the default scheme.
template <class Red>
void check_case(Red, int id, const char* source, tally& t) {
  const case_data c = make_case<Red>(id);
  const auto M = c.M, N = c.N;
  std::string first;
  int bad = count_differences<Red, double>(
      c, [&](double* out, const auto*... a) { kops::kokkos::eval<kops::sum_scheme::direct>(Red{}, M, N, out, a...); },
      1e-9, "Kokkos double", first);
  bad += count_differences<Red, float>(
      c, [&](float* out, const auto*... a) { kops::kokkos::eval(Red{}, M, N, out, a...); }, 2e-3, "Kokkos float", first);
  record(Red{}, id, source, c, bad, 2 * (long long)c.ref.size(), first, t);
}
#endif

} // namespace kops_diff

// The body of differential_test_{a,b}.cpp: LIST is KOPS_DIFF_CASES_A or _B.
#define KOPS_DIFF_TEST(NAME, LIST)                                                                   \
  TEST_CASE(NAME, "[differential]") {                                                                \
    kops_diff::tally t;                                                                              \
    LIST(KOPS_DIFF_ONE)                                                                              \
    std::cout << NAME << ": " << t.formulas << " formulas, " << t.values << " values compared, "    \
              << t.failures << " formulas differ\n";                                               \
    CHECK(t.failures == 0);                                                                          \
  }
#define KOPS_DIFF_ONE(n) KOPS_DIFF_CHECK(kops_diff::case_##n, n, kops_diff::case_##n##_source, t);
#ifndef KOPS_DIFF_CHECK
#define KOPS_DIFF_CHECK kops_diff::check_case
#endif
