// Block-sparse reductions (kops::block_sparsity) on the CPU backend, and the
// kops::cluster helpers. Every ranged result is compared with the reduction
// evaluated by its definition over the kept pairs only (reference_eval_kept),
// on random structures with rows in no block, blocks without intervals, empty
// intervals, one-row blocks and blocks of several row tiles; gradients with
// hand-written double loops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <kops/cluster.hpp>

#include "../common/reference.hpp"
#include "../common/sparsity.hpp"
#include "test_support.hpp"

using namespace kops_test;
using Catch::Matchers::Contains;
using kops::range;

namespace {

// Ranged eval of red (structure s for its output rows) against the reference
// over the kept pairs, computed in T (so that index reductions see the same values).
template <class T, auto... Policy, class Red, class... P>
void check_ranged(Red red, std::int64_t M, std::int64_t N, const kops::block_sparsity& s, double tol,
                  const std::vector<P>&... args) {
  using Out = typename Red::op::template out_t<T>;
  const bool rows_i = Red::row_cat == kops::category::i;
  const std::int64_t rows = rows_i ? M : N, cols = rows_i ? N : M;
  std::vector<Out> got(std::size_t(rows * Red::dim)), want(got.size());
  std::memset(static_cast<void*>(got.data()), 0x7f, got.size() * sizeof(Out));  // no stale zeros
  kops::kokkos::eval<Policy...>(red, M, N, got.data(), args.data()..., s);
  const std::vector<char> keep = kept_mask(s, rows, cols);
  reference_eval_kept<T>(mask_keep{&keep, cols}, red, M, N, want.data(), args.data()...);
  for (std::size_t k = 0; k < got.size(); ++k) {
    INFO("row " << k / Red::dim << " component " << k % Red::dim << " of " << rows);
    REQUIRE(same_value(got[k], want[k], tol));
  }
}

} // namespace

TEMPLATE_TEST_CASE("block_sparsity: every reduction, both axes, random structures", "[block_sparse]",
                   KOPS_TEST_REAL_TYPES) {
  using T = TestType;
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 2>;
  constexpr auto c = kops::vi<3, 2>;
  constexpr auto g = kops::pm<4, 1>;
  const std::int64_t M = 203, N = 181;
  const auto px = random_vector<T>(M * 3, 0, 1, 11), py = random_vector<T>(N * 3, 0, 1, 12);
  const auto pb = random_vector<T>(N * 2, -1, 1, 13), pc = random_vector<T>(M * 2, -1, 1, 14);
  const std::vector<T> pg{T(2.5)};
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-11;
  const auto gauss = kops::exp(-g * kops::sqdist(x, y));
  const auto d2 = g * kops::sqdist(x, y) + kops::sum(b) * kops::sum(c) / kops::cst<10>;
  for (unsigned seed : {1u, 2u, 3u}) {
    for (int axis_j : {1, 0}) {
      const std::int64_t rows = axis_j ? M : N, cols = axis_j ? N : M;
      const auto st = random_structure(rows, cols, seed * 7 + unsigned(axis_j));
      const kops::block_sparsity s = st.view();
      INFO("seed " << seed << (axis_j ? " axis_j" : " axis_i") << ", " << s.row_blocks << " row blocks");
      auto each_axis = [&](auto axis) {
        check_ranged<T>(kops::sum_reduction(gauss * b * kops::sum(c), axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::min_reduction(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::max_reduction(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::argmin_reduction(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::argmax_reduction(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::min_argmin_reduction(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::max_argmax_reduction(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::kmin_reduction<3>(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::argkmin_reduction<3>(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::kmin_argkmin_reduction<2>(d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::logsumexp_reduction(-g * d2, axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::logsumexp_reduction(-g * d2, kops::exp(b - c), axis), M, N, s, tol, px, py, pb, pc, pg);
        check_ranged<T>(kops::sumsoftmaxweight_reduction(-g * d2, b * c, axis), M, N, s, tol, px, py, pb, pc, pg);
      };
      if (axis_j) each_axis(kops::axis_j);
      else each_axis(kops::axis_i);
    }
  }
}

TEMPLATE_TEST_CASE("block_sparsity: policies and summation schemes", "[block_sparse]", KOPS_TEST_REAL_TYPES) {
  using T = TestType;
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  const std::int64_t M = 150, N = 230;
  const auto px = random_vector<T>(M * 3, 0, 1, 21), py = random_vector<T>(N * 3, 0, 1, 22);
  const auto pb = random_vector<T>(N, 0, 1, 23);
  const auto st = random_structure(M, N, 5);
  const auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  const double tol = sizeof(T) == 4 ? 2e-4 : 1e-11;
  check_ranged<T, kops::precision::fast>(conv, M, N, st.view(), tol, px, py, pb);
  check_ranged<T, kops::sum_scheme::kahan>(conv, M, N, st.view(), tol, px, py, pb);
  check_ranged<T, kops::sum_scheme::block>(conv, M, N, st.view(), tol, px, py, pb);
  check_ranged<T, kops::dtype_acc::float64>(conv, M, N, st.view(), tol, px, py, pb);
  check_ranged<T, kops::precision::fast>(kops::logsumexp_reduction(-kops::sqdist(x, y), kops::axis_j), M, N,
                                         st.view(), tol, px, py);
}

TEST_CASE("block_sparsity: one block over the whole axis is the dense call, bit for bit", "[block_sparse]") {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  const std::int64_t M = 1001, N = 777;
  const auto px = random_vector<float>(M * 3, 0, 1, 31), py = random_vector<float>(N * 3, 0, 1, 32);
  const auto pb = random_vector<float>(N, 0, 1, 33);
  const auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  const range rows{0, M}, all{0, N};
  const std::int64_t slices[] = {1};
  std::vector<float> dense(M), ranged(M);
  kops::kokkos::eval(conv, M, N, dense.data(), px.data(), py.data(), pb.data());
  kops::kokkos::eval(conv, M, N, ranged.data(), px.data(), py.data(), pb.data(),
                     kops::block_sparsity{&rows, 1, slices, &all});
  REQUIRE(std::memcmp(dense.data(), ranged.data(), dense.size() * sizeof(float)) == 0);
  // The same over two touching intervals [0, N/2) [N/2, N): the same set of terms.
  const range halves[] = {{0, N / 2}, {N / 2, N}};
  const std::int64_t two[] = {2};
  kops::kokkos::eval(conv, M, N, ranged.data(), px.data(), py.data(), pb.data(),
                     kops::block_sparsity{&rows, 1, two, halves});
  for (std::int64_t i = 0; i < M; ++i) REQUIRE(close(ranged[i], dense[i], 1e-5));
}

TEST_CASE("block_sparsity: rows in no block get the reduction's empty value", "[block_sparse]") {
  constexpr auto x = kops::vi<0, 1>;
  constexpr auto y = kops::vj<1, 1>;
  const std::int64_t M = 40, N = 10;
  const auto px = random_vector<double>(M, 0, 1, 41), py = random_vector<double>(N, 0, 1, 42);
  // Rows [0, 5) and [30, 40) are in no block; rows [20, 30) have a block without intervals.
  const range rows[] = {{5, 20}, {20, 30}};
  const std::int64_t slices[] = {1, 1};
  const range reduced[] = {{2, 7}};
  const kops::block_sparsity s{rows, 2, slices, reduced};
  const double inf = std::numeric_limits<double>::infinity();
  const auto f = kops::sqdist(x, y);
  auto empty_rows = [](std::int64_t i) { return i < 5 || i >= 20; };
  std::vector<double> v(M, 7.0);
  std::vector<std::int64_t> idx(M, 7);
  kops::kokkos::eval(kops::sum_reduction(f, kops::axis_j), M, N, v.data(), px.data(), py.data(), s);
  for (std::int64_t i = 0; i < M; ++i) CHECK((empty_rows(i) ? v[i] == 0.0 : v[i] > 0.0));
  kops::kokkos::eval(kops::min_reduction(f, kops::axis_j), M, N, v.data(), px.data(), py.data(), s);
  for (std::int64_t i = 0; i < M; ++i) CHECK((empty_rows(i) ? v[i] == inf : v[i] < 1.0));
  kops::kokkos::eval(kops::max_reduction(f, kops::axis_j), M, N, v.data(), px.data(), py.data(), s);
  for (std::int64_t i = 0; i < M; ++i) CHECK((empty_rows(i) ? v[i] == -inf : v[i] >= 0.0));
  kops::kokkos::eval(kops::argmin_reduction(f, kops::axis_j), M, N, idx.data(), px.data(), py.data(), s);
  for (std::int64_t i = 0; i < M; ++i) CHECK((empty_rows(i) ? idx[i] == -1 : (idx[i] >= 2 && idx[i] < 7)));
  kops::kokkos::eval(kops::logsumexp_reduction(-f, kops::axis_j), M, N, v.data(), px.data(), py.data(), s);
  for (std::int64_t i = 0; i < M; ++i) CHECK((empty_rows(i) ? v[i] == -inf : std::isfinite(v[i])));
  kops::kokkos::eval(kops::sumsoftmaxweight_reduction(-f, y, kops::axis_j), M, N, v.data(), px.data(), py.data(), s);
  for (std::int64_t i = 0; i < M; ++i) CHECK((empty_rows(i) ? v[i] == 0.0 : v[i] > 0.0));
  // A k-min with more slots than kept terms: the extra slots are empty (+inf, -1).
  std::vector<double> k8(M * 8);
  std::vector<std::int64_t> a8(M * 8);
  kops::kokkos::eval(kops::kmin_reduction<8>(f, kops::axis_j), M, N, k8.data(), px.data(), py.data(), s);
  kops::kokkos::eval(kops::argkmin_reduction<8>(f, kops::axis_j), M, N, a8.data(), px.data(), py.data(), s);
  for (std::int64_t i = 0; i < M; ++i)
    for (int k = 0; k < 8; ++k) {
      const bool filled = !empty_rows(i) && k < 5;
      CHECK((filled ? k8[i * 8 + k] < inf : k8[i * 8 + k] == inf));
      CHECK((filled ? a8[i * 8 + k] >= 2 : a8[i * 8 + k] == -1));
    }
  // No block at all: every row empty.
  kops::kokkos::eval(kops::sum_reduction(f, kops::axis_j), M, N, v.data(), px.data(), py.data(),
                     kops::block_sparsity{});
  for (std::int64_t i = 0; i < M; ++i) CHECK(v[i] == 0.0);
}

TEST_CASE("block_sparsity: a summation scheme flushes across intervals", "[block_sparse]") {
  // One large term, then many ones spread over 5 intervals: a float running
  // sum loses every 1 (2^25 + 1 rounds to 2^25); Kahan and float64
  // accumulators keep them, so the flush and compensation must carry across
  // intervals.
  constexpr auto b = kops::vj<0, 1>;
  const std::int64_t M = 3, N = 5000;
  std::vector<float> pb(N, 1.0f);
  pb[0] = 33554432.0f;  // 2^25
  const range rows{0, M};
  const range iv[] = {{0, 700}, {700, 1500}, {1600, 2600}, {2600, 4000}, {4100, 5000}};
  const std::int64_t slices[] = {5};
  const kops::block_sparsity s{&rows, 1, slices, iv};
  const double exact = 33554432.0 + (700 - 1) + 800 + 1000 + 1400 + 900;
  const auto red = kops::sum_reduction(b, kops::axis_j);
  std::vector<float> out(M);
  kops::kokkos::eval<kops::sum_scheme::kahan>(red, M, N, out.data(), pb.data(), s);
  for (float v : out) CHECK(std::abs(double(v) - exact) <= 4.0);  // the float rounding of the result
  kops::kokkos::eval<kops::dtype_acc::float64>(red, M, N, out.data(), pb.data(), s);
  for (float v : out) CHECK(std::abs(double(v) - exact) <= 4.0);
  kops::kokkos::eval<kops::sum_scheme::direct>(red, M, N, out.data(), pb.data(), s);
  for (float v : out) CHECK(std::abs(double(v) - exact) > 1000.0);  // the direct sum does lose them
}

TEST_CASE("block_sparsity: an empty block or interval may sit anywhere", "[block_sparse]") {
  constexpr auto x = kops::vi<0, 1>;
  constexpr auto y = kops::vj<1, 1>;
  const std::int64_t M = 30, N = 20;
  const auto px = random_vector<double>(M, 0, 1, 91), py = random_vector<double>(N, 0, 1, 92);
  kops::cluster::structure st;
  st.rows = {{0, 10}, {5, 5}, {12, 20}, {0, 0}, {25, 30}};
  st.slices = {3, 3, 4, 5, 5};
  st.reduced = {{0, 8}, {3, 3}, {8, 12}, {2, 6}, {1, 1}};
  const auto red = kops::min_argmin_reduction(kops::sqdist(x, y), kops::axis_j);
  std::vector<kops::value_index<double>> got(M), want(M);
  kops::kokkos::eval(red, M, N, got.data(), px.data(), py.data(), st.view());
  const auto keep = kept_mask(st.view(), M, N);
  reference_eval_kept<double>(mask_keep{&keep, N}, red, M, N, want.data(), px.data(), py.data());
  for (std::int64_t i = 0; i < M; ++i) REQUIRE(same_value(got[i], want[i], 0.0));
  CHECK(got[11].index == -1);  // in no block
  CHECK(got[27].index == -1);  // a block without a non-empty interval
}

TEST_CASE("block_sparsity: an invalid structure is a kops::error, nothing written", "[block_sparse][errors]") {
  constexpr auto x = kops::vi<0, 1>;
  constexpr auto y = kops::vj<1, 1>;
  const std::int64_t M = 20, N = 10;
  const std::vector<double> px(M, 0.5), py(N, 0.25);
  std::vector<double> out(M, 3.0);
  const auto red = kops::sum_reduction(kops::sqdist(x, y), kops::axis_j);
  auto run = [&](std::vector<range> rows, std::vector<std::int64_t> slices, std::vector<range> reduced) {
    kops::kokkos::eval(red, M, N, out.data(), px.data(), py.data(),
                       kops::block_sparsity{rows.data(), std::int64_t(rows.size()), slices.data(), reduced.data()});
  };
  CHECK_THROWS_WITH(run({{0, 21}}, {1}, {{0, 10}}),
                    "kops::kokkos::eval: block_sparsity: row block 0 = [0, 21) is not within the 20 output rows "
                    "(axis i)");
  CHECK_THROWS_WITH(run({{5, 4}}, {1}, {{0, 10}}), Contains("row block 0 = [5, 4) is not within"));
  CHECK_THROWS_WITH(run({{0, 10}, {8, 12}}, {1, 2}, {{0, 10}, {0, 1}}),
                    Contains("row block 1 = [8, 12) starts before the end 10 of the block before it (row blocks must "
                             "be sorted and must not overlap)"));
  CHECK_THROWS_WITH(run({{0, 10}, {10, 12}}, {2, 1}, {{0, 1}, {2, 3}}),
                    Contains("slices[1] = 1 is less than 2 (slices must be non-decreasing, from 0)"));
  CHECK_THROWS_WITH(run({{0, 10}}, {-1}, {}), Contains("slices[0] = -1 is less than 0"));
  CHECK_THROWS_WITH(run({{0, 10}}, {1}, {{0, 11}}),
                    Contains("interval 0 = [0, 11) of row block 0 is not within the 10 terms of the reduced axis"));
  CHECK_THROWS_WITH(run({{0, 10}}, {2}, {{4, 8}, {6, 9}}),
                    Contains("interval 1 = [6, 9) of row block 0 starts before the end 8 of the interval before it"));
  CHECK_THROWS_WITH(run({{0, 10}}, {2}, {{4, 8}, {0, 2}}), Contains("starts before the end 8"));
  CHECK_THROWS_WITH(kops::kokkos::eval(red, M, N, out.data(), px.data(), py.data(),
                                       kops::block_sparsity{nullptr, 1, nullptr, nullptr}),
                    Contains("block_sparsity: rows is a null pointer (row_blocks = 1)"));
  const range r0{0, 5};
  const std::int64_t one = 1;
  CHECK_THROWS_WITH(kops::kokkos::eval(red, M, N, out.data(), px.data(), py.data(),
                                       kops::block_sparsity{&r0, 1, &one, nullptr}),
                    Contains("block_sparsity: reduced is a null pointer (1 intervals)"));
  CHECK_THROWS_WITH(kops::kokkos::eval(red, M, N, out.data(), px.data(), py.data(),
                                       kops::block_sparsity{&r0, -2, &one, nullptr}),
                    Contains("row_blocks = -2 is negative"));
  // axis_i: the rows are the j's, the terms the i's.
  const range big{0, 15};
  CHECK_THROWS_WITH(kops::kokkos::eval(kops::sum_reduction(kops::sqdist(x, y), kops::axis_i), M, N, out.data(),
                                       px.data(), py.data(), kops::block_sparsity{&big, 1, &one, &r0}),
                    Contains("row block 0 = [0, 15) is not within the 10 output rows (axis j)"));
  for (double v : out) CHECK(v == 3.0);
}

TEST_CASE("block_sparsity: gradients, with the transposed structure and through two passes", "[block_sparse][grad]") {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto e = kops::vi<3, 1>;
  const std::int64_t M = 97, N = 83;
  const auto px = random_vector<double>(M * 3, 0, 1, 51), py = random_vector<double>(N * 3, 0, 1, 52);
  const auto pb = random_vector<double>(N, -1, 1, 53), pe = random_vector<double>(M, -1, 1, 54);
  const auto st = random_structure(M, N, 9);
  const kops::block_sparsity s = st.view();
  const auto keep = kept_mask(s, M, N);
  // A gradient w.r.t. y (rows j) takes a structure only tagged with its axis.
  auto stt = kops::cluster::transpose(s, M, N);
  stt.axis = kops::sparsity_axis::j;
  {  // the transpose keeps the same pairs, seen from the j rows
    const auto keep_t = kept_mask(stt.view(), N, M);
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t j = 0; j < N; ++j) REQUIRE(keep[i * N + j] == keep_t[j * M + i]);
  }
  auto k = [&](std::int64_t i, std::int64_t j, double* r) {
    double r2 = 0;
    for (int c = 0; c < 3; ++c) r[c] = px[i * 3 + c] - py[j * 3 + c], r2 += r[c] * r[c];
    return std::exp(-r2);
  };
  const auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  SECTION("sum, w.r.t. x (rows i: the structure as it is)") {
    std::vector<double> out(M * 3);
    kops::kokkos::eval(kops::grad(conv, x, e), M, N, out.data(), px.data(), py.data(), pb.data(), pe.data(), s);
    for (std::int64_t i = 0; i < M; ++i)
      for (int c = 0; c < 3; ++c) {
        double want = 0, r[3];
        for (std::int64_t j = 0; j < N; ++j)
          if (keep[i * N + j]) want += -2 * k(i, j, r) * pb[j] * pe[i] * r[c];
        REQUIRE(close(out[i * 3 + c], want, 1e-12));
      }
  }
  SECTION("sum, w.r.t. y (rows j: the transposed structure, tagged j)") {
    std::vector<double> out(N * 3);
    kops::kokkos::eval(kops::grad(conv, y, e), M, N, out.data(), px.data(), py.data(), pb.data(), pe.data(),
                       stt.view());
    for (std::int64_t j = 0; j < N; ++j)
      for (int c = 0; c < 3; ++c) {
        double want = 0, r[3];
        for (std::int64_t i = 0; i < M; ++i)
          if (keep[i * N + j]) want += 2 * k(i, j, r) * pb[j] * pe[i] * r[c];
        REQUIRE(close(out[j * 3 + c], want, 1e-12));
      }
  }
  // logsumexp_i = log sum_j exp(-|x_i - y_j|^2): its gradients are two passes,
  // the first one (the forward lse over rows i) on the axis of the structure as given.
  const auto lse = kops::logsumexp_reduction(-kops::sqdist(x, y), kops::axis_j);
  std::vector<double> fwd(M);
  for (std::int64_t i = 0; i < M; ++i) {
    double s_ = 0, r[3];
    for (std::int64_t j = 0; j < N; ++j)
      if (keep[i * N + j]) s_ += k(i, j, r);
    fwd[i] = std::log(s_);
  }
  SECTION("logsumexp, w.r.t. y: the second pass on the j rows, the first on the i rows") {
    constexpr auto e2 = kops::vi<2, 1>;
    std::vector<double> out(N * 3);
    kops::kokkos::eval(kops::grad(lse, y, e2), M, N, out.data(), px.data(), py.data(), pe.data(), stt.view());
    for (std::int64_t j = 0; j < N; ++j)
      for (int c = 0; c < 3; ++c) {
        double want = 0, r[3];
        for (std::int64_t i = 0; i < M; ++i)
          if (keep[i * N + j]) want += pe[i] * k(i, j, r) / std::exp(fwd[i]) * 2 * r[c];
        REQUIRE(close(out[j * 3 + c], want, 1e-11));
      }
  }
  SECTION("tagged with its axis, the forward structure serves every gradient") {
    kops::cluster::structure tagged = st;
    tagged.axis = kops::sparsity_axis::i;
    constexpr auto e2 = kops::vi<2, 1>;
    std::vector<double> by_tag(N * 3), by_transpose(N * 3), lse_tag(N * 3), lse_transpose(N * 3);
    kops::kokkos::eval(kops::grad(conv, y, e), M, N, by_tag.data(), px.data(), py.data(), pb.data(), pe.data(),
                       tagged.view());
    kops::kokkos::eval(kops::grad(conv, y, e), M, N, by_transpose.data(), px.data(), py.data(), pb.data(), pe.data(),
                       stt.view());
    CHECK(by_tag == by_transpose);
    kops::kokkos::eval(kops::grad(lse, y, e2), M, N, lse_tag.data(), px.data(), py.data(), pe.data(), tagged.view());
    kops::kokkos::eval(kops::grad(lse, y, e2), M, N, lse_transpose.data(), px.data(), py.data(), pe.data(),
                       stt.view());
    CHECK(lse_tag == lse_transpose);
    // The transpose of a tagged structure carries the other tag, and also works.
    const auto tagged_t = kops::cluster::transpose(tagged.view(), M, N);
    CHECK(tagged_t.axis == kops::sparsity_axis::j);
    std::vector<double> fwd_tag(M), fwd(M);
    kops::kokkos::eval(conv, M, N, fwd_tag.data(), px.data(), py.data(), pb.data(), tagged_t.view());
    kops::kokkos::eval(conv, M, N, fwd.data(), px.data(), py.data(), pb.data(), s);
    for (std::int64_t i = 0; i < M; ++i) REQUIRE(close(fwd_tag[i], fwd[i], 1e-13));
    // Untagged, a structure is refused by a gradient w.r.t. y (whatever its size).
    CHECK_THROWS_WITH(kops::kokkos::eval(kops::grad(conv, y, e), M, N, by_tag.data(), px.data(), py.data(),
                                         pb.data(), pe.data(), s),
                      Contains("cannot tell whether an untagged structure describes its j rows"));
  }
  SECTION("logsumexp, w.r.t. x") {
    constexpr auto e2 = kops::vi<2, 1>;
    std::vector<double> out(M * 3);
    kops::kokkos::eval(kops::grad(lse, x, e2), M, N, out.data(), px.data(), py.data(), pe.data(), s);
    for (std::int64_t i = 0; i < M; ++i)
      for (int c = 0; c < 3; ++c) {
        double want = 0, r[3];
        for (std::int64_t j = 0; j < N; ++j)
          if (keep[i * N + j]) want += -pe[i] * k(i, j, r) / std::exp(fwd[i]) * 2 * r[c];
        REQUIRE(close(out[i * 3 + c], want, 1e-11));
      }
  }
}

// A cloud against itself (M = N): a structure of the forward call's i rows,
// passed untagged to the gradient w.r.t. y (rows j), passes every size check
// and, read as j rows, would reduce over the transposed pattern. It is refused
// (as is the untagged transpose: kops cannot tell the two apart); tagged, each
// gives the dense gradient restricted to the pattern.
TEST_CASE("block_sparsity: M = N, an asymmetric structure, gradients w.r.t. a reduced-axis variable",
          "[block_sparse][grad]") {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto b = kops::vj<2, 1>;
  constexpr auto e = kops::vi<3, 1>;
  const std::int64_t M = 71, N = M;
  const auto px = random_vector<double>(M * 3, 0, 1, 61), py = random_vector<double>(N * 3, 0, 1, 62);
  const auto pb = random_vector<double>(N, -1, 1, 63), pe = random_vector<double>(M, -1, 1, 64);
  const auto st = random_structure(M, N, 17, 20);
  const auto keep = kept_mask(st.view(), M, N);
  std::int64_t asymmetric = 0;
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) asymmetric += keep[i * N + j] != keep[j * N + i];
  REQUIRE(asymmetric > 0);
  const auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  const auto gy = kops::grad(conv, y, e);
  std::vector<double> want(N * 3, 0.0);  // the dense gradient w.r.t. y over the kept pairs
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      if (!keep[i * N + j]) continue;
      double r[3], r2 = 0;
      for (int c = 0; c < 3; ++c) r[c] = px[i * 3 + c] - py[j * 3 + c], r2 += r[c] * r[c];
      for (int c = 0; c < 3; ++c) want[j * 3 + c] += 2 * std::exp(-r2) * pb[j] * pe[i] * r[c];
    }
  auto run = [&](auto red, const kops::block_sparsity& s) {
    std::vector<double> out(N * 3, 7.0);
    kops::kokkos::eval(red, M, N, out.data(), px.data(), py.data(), pb.data(), pe.data(), s);
    return out;
  };
  auto check = [&](const std::vector<double>& got) {
    for (std::int64_t k = 0; k < N * 3; ++k) REQUIRE(close(got[k], want[k], 1e-12));
  };
  const auto stt = kops::cluster::transpose(st.view(), M, N);
  SECTION("untagged: refused, the output untouched") {
    std::vector<double> out(N * 3, 7.0);
    for (const kops::block_sparsity s : {st.view(), stt.view()})
      CHECK_THROWS_WITH(kops::kokkos::eval(gy, M, N, out.data(), px.data(), py.data(), pb.data(), pe.data(), s),
                        Contains("kops::kokkos::eval: block_sparsity: this gradient with respect to a variable of "
                                 "the reduced axis (j rows) cannot tell whether an untagged structure describes its "
                                 "j rows or the i rows of the reduction it is the gradient of"));
    for (double v : out) REQUIRE(v == 7.0);
    // A two-pass gradient (logsumexp), a gradient of an axis_i reduction
    // w.r.t. x, and a gradient of a gradient: the same refusal.
    const auto lse = kops::logsumexp_reduction(-kops::sqdist(x, y), kops::axis_j);
    CHECK_THROWS_WITH(kops::kokkos::eval(kops::grad(lse, y, kops::vi<2, 1>), M, N, out.data(), px.data(),
                                         py.data(), pe.data(), st.view()),
                      Contains("untagged structure describes its j rows"));
    const auto conv_i = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * kops::vi<2, 1>, kops::axis_i);
    CHECK_THROWS_WITH(kops::kokkos::eval(kops::grad(conv_i, x, kops::vj<3, 1>), M, N, out.data(), px.data(),
                                         py.data(), pb.data(), pe.data(), st.view()),
                      Contains("untagged structure describes its i rows or the j rows"));
    const std::vector<double> e2(N * 3, 0.5);
    CHECK_THROWS_WITH(kops::kokkos::eval(kops::grad(gy, x, kops::vj<4, 3>), M, N, out.data(), px.data(), py.data(),
                                         pb.data(), pe.data(), e2.data(), st.view()),
                      Contains("untagged structure describes its i rows"));
    for (double v : out) REQUIRE(v == 7.0);
  }
  SECTION("tagged: the forward structure (i rows) and its transpose (j rows) give the kept pairs' gradient") {
    kops::cluster::structure tagged = st;
    tagged.axis = kops::sparsity_axis::i;
    check(run(gy, tagged.view()));
    const auto tagged_t = kops::cluster::transpose(tagged.view(), M, N);
    REQUIRE(tagged_t.axis == kops::sparsity_axis::j);
    check(run(gy, tagged_t.view()));
  }
  SECTION("the forward call and the gradient w.r.t. x still take the untagged structure") {
    std::vector<double> fwd(M), gx(M * 3);
    kops::kokkos::eval(conv, M, N, fwd.data(), px.data(), py.data(), pb.data(), st.view());
    kops::kokkos::eval(kops::grad(conv, x, e), M, N, gx.data(), px.data(), py.data(), pb.data(), pe.data(), st.view());
    for (std::int64_t i = 0; i < M; ++i) {
      double f = 0, g[3] = {0, 0, 0};
      for (std::int64_t j = 0; j < N; ++j) {
        if (!keep[i * N + j]) continue;
        double r[3], r2 = 0;
        for (int c = 0; c < 3; ++c) r[c] = px[i * 3 + c] - py[j * 3 + c], r2 += r[c] * r[c];
        f += std::exp(-r2) * pb[j];
        for (int c = 0; c < 3; ++c) g[c] += -2 * std::exp(-r2) * pb[j] * pe[i] * r[c];
      }
      REQUIRE(close(fwd[i], f, 1e-12));
      for (int c = 0; c < 3; ++c) REQUIRE(close(gx[i * 3 + c], g[c], 1e-12));
    }
  }
}

TEST_CASE("kops::cluster: labels, sorting, ranges, centroids, masks", "[block_sparse][cluster]") {
  // Points on a line, voxel 1: cells 0, 0, 2, 1, 2, 0 (relative to the minimum 0.25).
  const std::vector<double> x{0.25, 0.5, 2.5, 1.75, 2.3, 1.0};
  const auto labels = kops::cluster::grid_cluster(x.data(), 6, 1, 1.0);
  CHECK(labels == std::vector<std::int64_t>{0, 0, 2, 1, 2, 0});
  // 2-D: lexicographic order of the cells (cx, cy).
  const std::vector<float> p{0.f, 5.f, 0.1f, 0.1f, 3.f, 0.f, 0.2f, 5.1f};
  CHECK(kops::cluster::grid_cluster(p.data(), 4, 2, 1.f) == std::vector<std::int64_t>{1, 0, 2, 1});
  const auto perm = kops::cluster::sort_permutation(labels);
  CHECK(perm == std::vector<std::int64_t>{0, 1, 5, 3, 2, 4});  // stable
  std::vector<double> xs(6), back(6);
  std::vector<std::int64_t> ls(6);
  kops::cluster::gather_rows(x.data(), 6, 1, perm, xs.data());
  kops::cluster::gather_rows(labels.data(), 6, 1, perm, ls.data());
  CHECK(xs == std::vector<double>{0.25, 0.5, 1.0, 1.75, 2.5, 2.3});
  kops::cluster::scatter_rows(xs.data(), 6, 1, perm, back.data());
  CHECK(back == x);
  const auto ranges = kops::cluster::label_ranges(ls, 4);
  CHECK(ranges == std::vector<range>{{0, 3}, {3, 4}, {4, 6}, {6, 6}});
  CHECK_THROWS_WITH(kops::cluster::label_ranges(labels, 3), Contains("labels must be sorted and in [0, 3)"));
  const auto cent = kops::cluster::centroids(xs.data(), 6, 1, ls.data(), 4);
  CHECK(cent == std::vector<double>{(0.25 + 0.5 + 1.0) / 3, 1.75, 2.4, 0.0});
  const std::vector<double> w{1, 1, 2, 1, 1, 3};
  CHECK(kops::cluster::centroids(xs.data(), 6, 1, ls.data(), 4, w.data())[0] == Approx((0.25 + 0.5 + 2.0) / 4));
  // Keep the pairs of clusters at most 1 apart: 0-1 (1.17), not 0-2 (1.82), 1-2 (0.65).
  const auto keep = kops::cluster::distance_mask(cent.data(), 3, cent.data(), 3, 1, 1.2);
  CHECK(keep == std::vector<unsigned char>{1, 1, 0, 1, 1, 1, 0, 1, 1});
  const std::vector<range> r3(ranges.begin(), ranges.begin() + 3);
  const auto s = kops::cluster::from_matrix(r3, r3, keep);
  // Consecutive kept clusters are one interval.
  CHECK(s.rows == std::vector<range>{{0, 3}, {3, 4}, {4, 6}});
  CHECK(s.slices == std::vector<std::int64_t>{1, 2, 3});
  CHECK(s.reduced == std::vector<range>{{0, 4}, {0, 6}, {3, 6}});
  CHECK(kops::cluster::kept_pairs(s.view()) == 3 * 4 + 1 * 6 + 2 * 3);
  // Clusters with no kept pair are left out.
  const std::vector<int> none{0, 0, 0, 0, 1, 0, 0, 0, 0};
  const auto s1 = kops::cluster::from_matrix(r3, r3, none);
  CHECK(s1.rows == std::vector<range>{{3, 4}});
  CHECK(s1.reduced == std::vector<range>{{3, 4}});
  CHECK_THROWS_WITH(kops::cluster::from_matrix(r3, r3, std::vector<int>(8)), Contains("the mask has 8 entries"));
  // The transpose of a symmetric mask's structure keeps the same pairs, and
  // transposing twice gives the same pairs again.
  const auto t = kops::cluster::transpose(s.view(), 6, 6);
  CHECK(kops::cluster::kept_pairs(t.view()) == kops::cluster::kept_pairs(s.view()));
  CHECK(kept_mask(t.view(), 6, 6) == kept_mask(s.view(), 6, 6));
  for (unsigned seed = 0; seed < 20; ++seed) {
    const auto r = random_structure(57, 91, seed);
    const auto rt = kops::cluster::transpose(r.view(), 57, 91);
    const auto rtt = kops::cluster::transpose(rt.view(), 91, 57);
    const auto m = kept_mask(r.view(), 57, 91), mt = kept_mask(rt.view(), 91, 57);
    for (std::int64_t i = 0; i < 57; ++i)
      for (std::int64_t j = 0; j < 91; ++j) REQUIRE(m[i * 91 + j] == mt[j * 57 + i]);
    REQUIRE(kept_mask(rtt.view(), 57, 91) == m);
  }
  CHECK_THROWS_WITH(kops::cluster::transpose(s.view(), 5, 6), Contains("kops::cluster::transpose: block_sparsity"));
  // The pykeops-named aggregates give the same as the pieces.
  const auto sorted = kops::cluster::sort_clusters(x.data(), 6, 1, labels);
  CHECK(sorted.x == xs);
  CHECK(sorted.labels == ls);
  CHECK(sorted.perm == perm);
  const auto info = kops::cluster::cluster_ranges_centroids(sorted.x.data(), 6, 1, sorted.labels, w.data());
  CHECK(info.ranges == std::vector<range>{{0, 3}, {3, 4}, {4, 6}});
  CHECK(info.centroids[0] == Approx((0.25 + 0.5 + 2.0) / 4));
  CHECK(info.weights == std::vector<double>{4, 1, 4});
  CHECK(info.radii[1] == 0.0);
  CHECK(info.radii[2] == Approx(2.5 - (2.5 * 1 + 2.3 * 3) / 4));
  CHECK_THROWS_WITH(kops::cluster::sort_clusters(x.data(), 5, 1, labels), Contains("6 labels for 5 points"));
}

TEST_CASE("block_sparsity: a clustered cloud, block-sparse against dense", "[block_sparse][cluster]") {
  // Two well-separated blobs: with a cut-off the cross-blob pairs are dropped,
  // and the Gaussian sum changes by less than their largest kernel value.
  const std::int64_t n = 400;
  std::mt19937_64 rng(61);
  std::normal_distribution<double> g(0, 0.05);
  std::vector<double> pts(n * 2), w(n, 1.0);
  for (std::int64_t p = 0; p < n; ++p) {
    pts[p * 2] = g(rng) + (p % 2 ? 3.0 : 0.0);
    pts[p * 2 + 1] = g(rng);
  }
  const auto labels = kops::cluster::grid_cluster(pts.data(), n, 2, 0.25);
  const auto perm = kops::cluster::sort_permutation(labels);
  std::vector<double> xs(n * 2);
  std::vector<std::int64_t> ls(n);
  kops::cluster::gather_rows(pts.data(), n, 2, perm, xs.data());
  kops::cluster::gather_rows(labels.data(), n, 1, perm, ls.data());
  const std::int64_t C = ls.back() + 1;
  const auto ranges = kops::cluster::label_ranges(ls, C);
  const auto cent = kops::cluster::centroids(xs.data(), n, 2, ls.data(), C);
  const auto s =
      kops::cluster::from_matrix(ranges, ranges, kops::cluster::distance_mask(cent.data(), C, cent.data(), C, 2, 1.0));
  CHECK(kops::cluster::kept_pairs(s.view()) == n * n / 2);  // each blob with itself
  constexpr auto x = kops::vi<0, 2>;
  constexpr auto y = kops::vj<1, 2>;
  constexpr auto b = kops::vj<2, 1>;
  const auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y) / kops::cst<2>) * b, kops::axis_j);
  std::vector<double> dense(n), sparse(n), user(n);
  kops::kokkos::eval(conv, n, n, dense.data(), xs.data(), xs.data(), w.data());
  kops::kokkos::eval(conv, n, n, sparse.data(), xs.data(), xs.data(), w.data(), s.view());
  for (std::int64_t i = 0; i < n; ++i) {
    REQUIRE(sparse[i] <= dense[i]);
    REQUIRE(dense[i] - sparse[i] < n * std::exp(-2.5 * 2.5 / 2));
  }
  kops::cluster::scatter_rows(sparse.data(), n, 1, perm, user.data());
  CHECK(user[perm[0]] == sparse[0]);
}

TEST_CASE("block_sparsity: solve with a block-sparse K", "[block_sparse][solve]") {
  // (alpha Id + K_s) a = b, K_s the Gaussian kernel on the kept pairs of a
  // symmetric structure; the residual recomputed with a ranged eval.
  const std::int64_t n = 300;
  const auto sys = clustered_solve_problem<double>(n, 71);
  const auto& s = sys.s;
  const auto& rhs = sys.rhs;
  std::vector<double> sol(n * 2);
  REQUIRE(kops::cluster::kept_pairs(s.view()) < n * n);
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto y = kops::vj<1, 3>;
  constexpr auto a = kops::vj<2, 2>;
  const auto K = kops::sum_reduction(kops::exp(-kops::sqdist(x, y) * kops::cst<4>) * a, kops::axis_j);
  const double alpha = 0.5;
  kops::solve_options opts;
  opts.tolerance = 1e-10;
  const kops::solve_result r =
      kops::kokkos::solve(K, a, alpha, n, n, sol.data(), sys.x.data(), sys.x.data(), rhs.data(), opts, s.view());
  REQUIRE(r.converged);
  std::vector<double> Ka(n * 2);
  kops::kokkos::eval(K, n, n, Ka.data(), sys.x.data(), sys.x.data(), sol.data(), s.view());
  for (std::int64_t k = 0; k < n * 2; ++k) REQUIRE(close(alpha * sol[k] + Ka[k], rhs[k], 1e-8));
  // The dense K gives another solution: the structure was used.
  std::vector<double> dense(n * 2);
  kops::kokkos::solve(K, a, alpha, n, n, dense.data(), sys.x.data(), sys.x.data(), rhs.data(), opts);
  double differ = 0;
  for (std::int64_t k = 0; k < n * 2; ++k) differ = std::max(differ, std::abs(dense[k] - sol[k]));
  CHECK(differ > 1e-6);
  // An invalid structure: a kops::error before `a` is written.
  const range bad{0, n + 1};
  const std::int64_t one = 1;
  std::vector<double> untouched(n * 2, 9.0);
  CHECK_THROWS_WITH(kops::kokkos::solve(K, a, alpha, n, n, untouched.data(), sys.x.data(), sys.x.data(),
                                        rhs.data(), kops::block_sparsity{&bad, 1, &one, &bad}),
                    Contains("kops::kokkos::solve: block_sparsity: row block 0 = [0, 301) is not within"));
  CHECK(untouched == std::vector<double>(n * 2, 9.0));
  CHECK_THROWS_WITH(kops::kokkos::solve(K, a, alpha, 0, 0, untouched.data(), sys.x.data(), sys.x.data(), rhs.data(),
                                        kops::block_sparsity{&bad, 1, &one, &bad}),
                    Contains("is not within"));  // also with nothing to solve
}
