// The differential check of one generated case (tests/differential/cases/).
//
// A forward case (check = kops_diff::forward) is compared with the reduction's
// definition written out below (`definition`): the formula evaluated at every
// (i, j) pair on the host in double with kops::scalar_math (no SIMD math, no
// factorization, no tiling), then the sum, extremum, stable sort or
// log-sum-exp written here, not the library's reduction code. A gradient case
// kops::grad(R, v, e) (check = kops_diff::fd(R, v)) is compared with central
// finite differences of the definition of R, so that it checks the symbolic
// derivative as well as the backend. Data: seeded, in [-1, 1].
//
//   double, direct sum (the reference's order), forward:  |out - ref| <= 1e-9 (|ref| + S)
//   float, the default block sum, forward:                 |out - ref| <= 2e-3 (|ref| + S)
//   double, direct sum, gradient vs finite differences:    |out - fd|  <= 1e-6 (|fd| + S)
//
// S = 1 + the largest |ref| of the case: the bound is relative to the size of
// the outputs, so that a row whose sum cancels does not turn rounding into a
// failure, while a real bug (a wrong lane, row, index, op, derivative or
// simplification) is an error of order S.
//
// Index outputs (argmin, argkmin, min_argmin, ...): an index must lie in the
// reduced range, the indices of one row and component must be distinct, and
// the formula's value at the index (evaluated in double) must be within the
// bound of the reference's value at the reference's index. That accepts the
// other index of a near-tie that rounding in float may order differently, and
// nothing else.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <kops/io/to_string.hpp>

#include "../common/reference.hpp"
#include "../common/support.hpp"
#include "case_kinds.hpp"

namespace kops_diff {

struct tally {
  int formulas = 0;
  int gradients = 0;      // of which gradient cases
  long long values = 0;   // output values compared, over every backend and type
  int failures = 0;
  std::string reports;    // one paragraph per failing case
};

// A broken assumption of the harness itself (not a difference): an exception,
// which Catch reports with its message. (No Catch assertion here: a passing
// would clutter the counts; the cases report through tally::reports.)
inline void expect(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("kops_diff: ") + what);
}

template <class Check> inline constexpr bool is_fd_v = false;
template <class R, class V> inline constexpr bool is_fd_v<fd_of<R, V>> = true;

// One output element: a value, an index, or both (value_index).
template <class T> bool slot_value(T v, double& x) requires std::is_floating_point_v<T> { x = double(v); return true; }
inline bool slot_value(std::int64_t, double&) { return false; }
template <class T> bool slot_value(kops::value_index<T> v, double& x) { x = double(v.value); return true; }
template <class T> bool slot_index(T, std::int64_t&) requires std::is_floating_point_v<T> { return false; }
inline bool slot_index(std::int64_t v, std::int64_t& i) { i = v; return true; }
template <class T> bool slot_index(kops::value_index<T> v, std::int64_t& i) { i = v.index; return true; }

// The arguments, sizes and expected outputs of one case.
struct case_data {
  std::int64_t M = 0, N = 0;
  std::vector<std::vector<double>> data;   // one array per argument index (unused: empty)
  std::vector<std::vector<float>> fdata;   // the same values in float
  std::vector<double> ref;                 // per output slot: the value (for an index: the formula's value there)
  std::vector<std::int64_t> ref_index;     // per output slot: the reference index (index outputs only)
  double scale = 1;                        // 1 + max |ref|
};

template <class Red>
constexpr std::int64_t rows_of(std::int64_t M, std::int64_t N) {
  return Red::row_cat == kops::category::i ? M : N;
}

// Red's formula at the pair (row, col) of Red's output rows and reduced axis,
// in double (kops::scalar_math: no SIMD math, no factorization).
template <class Red>
kops::vec<double, Red::formula_dim> pair_vec(const case_data& c, std::int64_t row, std::int64_t col) {
  std::vector<const double*> ptrs(c.data.size() > 0 ? c.data.size() : 1, nullptr);
  for (std::size_t k = 0; k < c.data.size(); ++k) ptrs[k] = c.data[k].empty() ? nullptr : c.data[k].data();
  const bool over_j = Red::row_cat == kops::category::i;
  const kops_test::reference_context<double> ctx{ptrs.data(), over_j ? row : col, over_j ? col : row};
  return Red::formula::eval(ctx);
}
template <class Red>
double pair_value(const case_data& c, std::int64_t row, std::int64_t col, int comp) {
  return pair_vec<Red>(c, row, col)[comp];
}

// The reduction's definition, written out here, apart from the library's
// reduction code (each reduction's accumulate/combine/finalize, which the
// backends share): the formula at every pair in double, then per output row
//   sum                          the sum over the range
//   min, max, arg, both          the extreme value, the first index that holds it
//   kmin, argkmin, both <K>      a stable sort per component, the first K
//   logsumexp                    m + log sum exp(f - m), m = max f
//   logsumexp(f, g)              m + log sum exp(f - m) g_k
//   sumsoftmaxweight(f, g)       sum exp(f - m) g_k / sum exp(f - m)
// Values per output slot (rows, Red::dim); indices into *index when given.
template <class Red>
std::vector<double> definition(const case_data& c, std::vector<std::int64_t>* index) {
  constexpr int F = Red::formula_dim, D = Red::dim;
  const std::string name = Red::op::name;
  const std::int64_t rows = rows_of<Red>(c.M, c.N), cols = rows_of<Red>(c.N, c.M);
  std::vector<double> out(std::size_t(rows * D)), f(std::size_t(cols * F));
  if (index) index->assign(out.size(), -1);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t j = 0; j < cols; ++j) {
      const auto v = pair_vec<Red>(c, r, j);
      for (int q = 0; q < F; ++q) f[std::size_t(j * F + q)] = v[q];
    }
    auto at = [&](std::int64_t j, int q) { return f[std::size_t(j * F + q)]; };
    double* o = out.data() + r * D;
    std::int64_t* oi = index ? index->data() + r * D : nullptr;
    if (name == "sum_reduction") {
      for (int q = 0; q < F; ++q) {
        double acc = 0;
        for (std::int64_t j = 0; j < cols; ++j) acc += at(j, q);
        o[q] = acc;
      }
    } else if (name == "min_reduction" || name == "argmin_reduction" || name == "min_argmin_reduction" ||
               name == "max_reduction" || name == "argmax_reduction" || name == "max_argmax_reduction") {
      const bool is_max = name.find("max") != std::string::npos;
      for (int q = 0; q < F; ++q) {
        std::int64_t best = 0;
        for (std::int64_t j = 1; j < cols; ++j)
          if (is_max ? at(j, q) > at(best, q) : at(j, q) < at(best, q)) best = j;
        o[q] = at(best, q);
        if (oi) oi[q] = best;
      }
    } else if (name == "kmin_reduction" || name == "argkmin_reduction" || name == "kmin_argkmin_reduction") {
      const int K = D / F;
      std::vector<std::int64_t> order(static_cast<std::size_t>(cols));
      for (int q = 0; q < F; ++q) {
        for (std::int64_t j = 0; j < cols; ++j) order[std::size_t(j)] = j;
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return at(a, q) < at(b, q); });
        for (int k = 0; k < K; ++k) {
          o[k * F + q] = at(order[std::size_t(k)], q);
          if (oi) oi[k * F + q] = order[std::size_t(k)];
        }
      }
    } else if (name == "logsumexp_reduction" || name == "sumsoftmaxweight_reduction") {
      double m = -std::numeric_limits<double>::infinity();
      for (std::int64_t j = 0; j < cols; ++j) m = std::max(m, at(j, 0));
      const bool weighted = F > 1;
      for (int k = 0; k < D; ++k) {
        double num = 0, den = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
          const double w = std::exp(at(j, 0) - m);
          den += w;
          num += weighted ? w * at(j, 1 + k) : w;
        }
        o[k] = name == "sumsoftmaxweight_reduction" ? num / den : m + std::log(num);
      }
    } else {
      expect(false, "no written-out definition for this reduction");
    }
  }
  return out;
}

// Forward: the definition, per output slot (for an index-only output the
// value is the formula's value at the index).
template <class Red>
void forward_reference(case_data& c) {
  using Out = typename Red::op::template out_t<double>;
  constexpr bool has_index = !std::is_same_v<Out, double>;
  constexpr bool index_only = std::is_same_v<Out, std::int64_t>;
  c.ref = definition<Red>(c, has_index ? &c.ref_index : nullptr);
  static_assert(index_only || std::is_same_v<Out, double> || std::is_same_v<Out, kops::value_index<double>>);
}

// Gradient G = kops::grad(R, V, e): central differences of the definition of R.
// e is G's last argument, a variable of R's rows of dim R::dim.
template <class G, class R, class V>
void fd_reference(case_data& c) {
  static_assert(G::dim == V::dim, "kops_diff: the gradient has the dim of the variable");
  constexpr int D = R::dim, dv = V::dim;
  const std::int64_t rowsR = rows_of<R>(c.M, c.N);
  const std::vector<double>& e = c.data[std::size_t(G::nargs - 1)];
  expect(std::int64_t(e.size()) == rowsR * D, "e is the gradient's last argument, one row of dim R::dim per output row of R");
  std::vector<double>& v = c.data[std::size_t(V::index)];
  const std::int64_t nv = std::int64_t(v.size()) / dv;  // rows of v (1 for a parameter)
  const bool per_row = V::cat == R::row_cat || V::cat == kops::category::param;
  const double h = 1e-5;
  std::vector<double> rp(std::size_t(rowsR * D)), rm(rp.size());
  const std::vector<double> saved = v;
  // R with the entries `which` of v moved by +h and -h.
  auto differences = [&](auto which) {
    for (int sgn : {1, -1}) {
      for (std::int64_t s = 0; s < nv; ++s)
        for (int k = 0; k < dv; ++k)
          if (which(s, k)) v[std::size_t(s * dv + k)] = saved[std::size_t(s * dv + k)] + sgn * h;
      (sgn > 0 ? rp : rm) = definition<R>(c, nullptr);
      v = saved;
    }
  };
  c.ref.assign(std::size_t((per_row ? rowsR : nv) * dv), 0.0);
  if (per_row) {  // e_r . dR_r / dv_{r,k} (a parameter: the row's contribution)
    for (int k = 0; k < dv; ++k) {
      differences([&](std::int64_t, int kk) { return kk == k; });
      for (std::int64_t r = 0; r < rowsR; ++r)
        for (int q = 0; q < D; ++q)
          c.ref[std::size_t(r * dv + k)] += e[std::size_t(r * D + q)] * (rp[std::size_t(r * D + q)] - rm[std::size_t(r * D + q)]) / (2 * h);
    }
  } else {  // sum_r e_r . dR_r / dv_{s,k}: v on the reduced axis
    for (std::int64_t s = 0; s < nv; ++s)
      for (int k = 0; k < dv; ++k) {
        differences([&](std::int64_t ss, int kk) { return ss == s && kk == k; });
        double acc = 0;
        for (std::size_t q = 0; q < rp.size(); ++q) acc += e[q] * (rp[q] - rm[q]) / (2 * h);
        c.ref[std::size_t(s * dv + k)] = acc;
      }
  }
  expect(std::int64_t(c.ref.size()) == rows_of<G>(c.M, c.N) * G::dim, "the gradient's rows follow its variable");
}

// Seeded data in [-1, 1] for the slots of signature Sig that have none yet.
template <class Sig>
void fill_arguments(case_data& c, int id) {
  [&]<class... S>(kops::type_list<S...>) {
    ([&] {
      if constexpr (!kops::detail::is_unused_slot_v<S>) {
        const std::int64_t n = S::cat == kops::category::i ? c.M : S::cat == kops::category::j ? c.N : 1;
        if (c.data[S::index].empty())
          c.data[S::index] = kops_test::random_vector<double>(std::size_t(n * S::dim), -1, 1, unsigned(id * 10 + S::index));
      }
    }(), ...);
  }(Sig{});
}

template <class Red, class Check>
case_data make_case(int id, std::int64_t M, std::int64_t N) {
  case_data c;
  c.M = M;
  c.N = N;
  // Argument arrays sized from the signature (unused slots stay empty); a
  // gradient case also needs those its forward reduction reads.
  c.data.resize(std::size_t(Red::nargs));
  fill_arguments<typename Red::signature>(c, id);
  if constexpr (is_fd_v<Check>) {
    static_assert(Check::reduction::nargs < Red::nargs, "kops_diff: e follows the forward reduction's arguments");
    fill_arguments<typename Check::reduction::signature>(c, id);
  }
  c.fdata.resize(c.data.size());
  for (std::size_t k = 0; k < c.data.size(); ++k) c.fdata[k].assign(c.data[k].begin(), c.data[k].end());
  if constexpr (is_fd_v<Check>) fd_reference<Red, typename Check::reduction, typename Check::variable>(c);
  else forward_reference<Red>(c);
  for (double v : c.ref) c.scale = std::max(c.scale, 1 + std::abs(v));
  return c;
}

// Runs `run(out, pointers...)` on the case's data in T and counts the output
// slots outside the bound; the first one is described in `first`.
template <class Red, class T, class Run>
int count_differences(const case_data& c, Run run, double tol, const char* label, std::string& first) {
  const auto& data = [&]() -> const auto& {
    if constexpr (std::is_same_v<T, double>) return c.data;
    else return c.fdata;
  }();
  std::vector<typename Red::op::template out_t<T>> out(c.ref.size());
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    run(out.data(), (data[I].empty() ? nullptr : data[I].data())...);
  }(std::make_index_sequence<std::size_t(Red::nargs)>{});
  const std::int64_t cols = rows_of<Red>(c.N, c.M);
  int bad = 0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t row = std::int64_t(k) / Red::dim;
    const int comp = int(k % Red::dim) % Red::formula_dim;
    double value = 0;
    std::int64_t idx = 0;
    bool ok = true;
    if (slot_value(out[k], value)) ok = kops_test::close(value, c.ref[k], tol, c.scale);
    if (slot_index(out[k], idx)) {
      ok = ok && idx >= 0 && idx < cols &&
           kops_test::close(pair_value<Red>(c, row, idx, comp), c.ref[k], tol, c.scale);
      for (std::size_t q = std::size_t(row * Red::dim); q < k; ++q) {  // k-min: distinct per component
        std::int64_t other = 0;
        if (int(q % Red::dim) % Red::formula_dim == comp && slot_index(out[q], other) && other == idx) ok = false;
      }
      if (!ok) value = double(idx);
    }
    if (!ok && bad++ == 0 && first.empty()) {
      std::ostringstream o;
      o.precision(17);
      o << label << ", slot " << k << ": expected " << c.ref[k];
      if (!c.ref_index.empty()) o << " (index " << c.ref_index[k] << ")";
      o << ", got " << value;
      first = o.str();
    }
  }
  return bad;
}

// Records one case's outcome; bad = the number of slots that differ over all backends.
template <class Red, class Check>
void record(Red, Check, int id, const char* source, const case_data& c, int bad, long long compared,
            const std::string& first, tally& t) {
  ++t.formulas;
  if (is_fd_v<Check>) ++t.gradients;
  t.values += compared;
  if (bad > 0) {
    ++t.failures;
    std::ostringstream o;
    o << "case " << id << " (M = " << c.M << ", N = " << c.N << "): " << bad << " values differ; first: " << first
      << "\n  source: " << source << "\n  kops:   " << kops::to_string(Red{}) << "\n";
    t.reports += o.str();
  }
}

// The bound of a double run: forward 1e-9, against finite differences 1e-6.
template <class Check> constexpr double double_tolerance = is_fd_v<Check> ? 1e-6 : 1e-9;

#ifdef KOKKOS_VERSION  // the Kokkos backend is included (tests/unit)
// Kokkos: double with the direct sum (the reference's order); forward cases
// also in float with the default scheme.
template <class Red, class Check>
void check_case(Red, Check, int id, std::int64_t M, std::int64_t N, const char* source, tally& t) {
  const case_data c = make_case<Red, Check>(id, M, N);
  std::string first;
  int bad = count_differences<Red, double>(
      c, [&](auto* out, const auto*... a) { kops::kokkos::eval<kops::sum_scheme::direct>(Red{}, M, N, out, a...); },
      double_tolerance<Check>, "Kokkos double", first);
  long long compared = (long long)c.ref.size();
  if constexpr (!is_fd_v<Check>) {
    bad += count_differences<Red, float>(
        c, [&](auto* out, const auto*... a) { kops::kokkos::eval(Red{}, M, N, out, a...); }, 2e-3, "Kokkos float", first);
    compared *= 2;
  }
  record(Red{}, Check{}, id, source, c, bad, compared, first, t);
}
#endif

} // namespace kops_diff

// The body of a differential test file: LIST is one of the KOPS_DIFF_CASES_* lists.
#define KOPS_DIFF_TEST(NAME, LIST)                                                                   \
  TEST_CASE(NAME, "[differential]") {                                                                \
    kops_diff::tally t;                                                                              \
    LIST(KOPS_DIFF_ONE)                                                                              \
    std::cout << NAME << ": " << t.formulas << " formulas (" << t.gradients << " gradients), "      \
              << t.values << " values compared, " << t.failures << " formulas differ\n";           \
    INFO(t.reports);                                                                                 \
    CHECK(t.failures == 0);                                                                          \
  }
#define KOPS_DIFF_ONE(n)                                                                             \
  KOPS_DIFF_CHECK(kops_diff::case_##n, kops_diff::case_##n##_check, n, kops_diff::case_##n##_M,     \
                  kops_diff::case_##n##_N, kops_diff::case_##n##_source, t);
#ifndef KOPS_DIFF_CHECK
#define KOPS_DIFF_CHECK kops_diff::check_case
#endif
