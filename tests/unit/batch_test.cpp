// Batched calls (kops::batch, kops::per_batch) on the Kokkos CPU backend: the
// backend-generic body of tests/common/batch_body.hpp, plus what only the CPU
// backend has: the reduced axis sliced across threads within a batched call,
// and a call of more than 2^32 pairs made of small problems.
#include "test_support.hpp"

// (The sanitizer builds, KOPS_TEST_FEWER: the body in float only; the two
// types run the same loops and buffers.)
#if defined(KOPS_TEST_FEWER)
#undef KOPS_TEST_CONFIGS
#define KOPS_TEST_CONFIGS (kops_test::cfg<kops_test::kokkos_backend, float>)
#endif
#include "../common/batch_body.hpp"

#include <kops/backends/kokkos/eval.hpp>

TEMPLATE_TEST_CASE("batch: few rows, a long reduced axis (sliced plans)", "[batch]", KOPS_TEST_REAL_TYPES) {
  using T = TestType;
  using namespace batch_body;
  // 5 rows and 20000 terms: a call with threads cuts the reduced axis into
  // slices; the batched call combines each batch's slices on its own. Slicing
  // changes the order of a sum, so sums are compared to a tolerance, min/argmin exactly.
  const data<T> d(5, 20000, 3, 41);
  const auto conv = kops::sum_reduction(gauss * bj, kops::axis_j);
  std::vector<T> got(std::size_t(d.M * 2 * d.B)), want(got.size());
  kops::kokkos::eval(conv, d.M, d.N, got.data(), kops::per_batch(d.x.data()), kops::per_batch(d.y.data()),
                     kops::per_batch(d.b.data()), kops::per_batch(d.g.data()), kops::batch{d.B});
  for (std::int64_t b = 0; b < d.B; ++b)
    kops::kokkos::eval(conv, d.M, d.N, want.data() + b * d.M * 2, d.x.data() + b * d.M * 3,
                       d.y.data() + b * d.N * 3, d.b.data() + b * d.N * 2, d.g.data() + b);
  for (std::size_t k = 0; k < got.size(); ++k) CHECK(close(got[k], want[k], tolerance<T>() * 10));
  std::vector<kops::value_index<T>> mg(std::size_t(d.M * d.B)), mw(mg.size());
  const auto mred = kops::min_argmin_reduction(d2, kops::axis_j);
  kops::kokkos::eval(mred, d.M, d.N, mg.data(), kops::per_batch(d.x.data()), kops::per_batch(d.y.data()),
                     d.b.data(), d.g.data(), kops::batch{d.B});
  for (std::int64_t b = 0; b < d.B; ++b)
    kops::kokkos::eval(mred, d.M, d.N, mw.data() + b * d.M, d.x.data() + b * d.M * 3, d.y.data() + b * d.N * 3,
                       d.b.data(), d.g.data());
  for (std::size_t k = 0; k < mg.size(); ++k) {
    CHECK(mg[k].value == mw[k].value);
    CHECK(mg[k].index == mw[k].index);
  }
}

TEST_CASE("batch: B * M * N beyond 2^32 with small problems", "[batch][large]") {
  // 2^18 + 3 batches of 128 x 128: 4.3e9 pairs, 2^25 + ... output rows. Each
  // batch's x_i * sum_j y_j with y_j = b + 1 (j < N) is x_i * N (b + 1):
  // exact in double while it fits 53 bits.
  const std::int64_t B = (std::int64_t(1) << 18) + 3, M = 128, N = 128;
  REQUIRE(double(B) * double(M) * double(N) > 4294967296.0);
  std::vector<double> px(std::size_t(B * M)), py(std::size_t(B * N)), out(std::size_t(B * M), -1.0);
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t i = 0; i < M; ++i) px[std::size_t(b * M + i)] = double(i + 1);
    for (std::int64_t j = 0; j < N; ++j) py[std::size_t(b * N + j)] = double(b + 1);
  }
  const auto red = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  kops::kokkos::eval(red, M, N, out.data(), kops::per_batch(px.data()), kops::per_batch(py.data()), kops::batch{B});
  std::int64_t wrong = 0;
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < M; ++i)
      wrong += out[std::size_t(b * M + i)] != double(i + 1) * double(N) * double(b + 1);
  CHECK(wrong == 0);
}
