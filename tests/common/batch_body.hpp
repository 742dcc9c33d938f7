// Test body (included once per test executable): batched calls (kops::batch,
// kops::per_batch) through each backend configuration of KOPS_TEST_CONFIGS,
// against a loop of B separate calls of the same backend, each with its
// per-batch pointers advanced to its batch. The backends compute a batch in
// the order a separate call does (the plans below keep the reduced axis
// unsliced on the CPU), so the results must be equal bit for bit; sums over
// the batches (batch_output::sum) are compared with the same sums done in T
// in batch order, also exactly.
#pragma once

#include "support.hpp"

#ifndef KOPS_TEST_CONFIGS
#error "define KOPS_TEST_CONFIGS (the backend configurations) before including batch_body.hpp"
#endif

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "sparsity.hpp"

using namespace kops_test;

namespace batch_body {

// Argument k of a call: marked per_batch when bit k of Mask is set.
template <unsigned Mask, std::size_t K, class T>
auto mark(const std::vector<T>& v) {
  if constexpr (((Mask >> K) & 1u) != 0) return kops::per_batch(v.data());
  else return v.data();
}
// Argument k of batch b's separate call: advanced to batch b when marked.
template <unsigned Mask, std::size_t K, class T>
const T* batch_arg(const std::vector<T>& v, std::int64_t B, std::int64_t b) {
  if constexpr (((Mask >> K) & 1u) != 0) return v.data() + b * std::int64_t(v.size()) / B;
  else return v.data();
}

template <class Out>
std::vector<Out> poisoned(std::size_t n) {
  std::vector<Out> v(n);
  if (n > 0) std::memset(static_cast<void*>(v.data()), 0x7f, n * sizeof(Out));  // no stale zeros
  return v;
}

template <class Out>
bool same_bits(const std::vector<Out>& a, const std::vector<Out>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Out)) == 0);
}

// The batched call of red (Opts: trailing options, e.g. a block_sparsity)
// against B separate calls. args: per-batch arguments hold B arrays.
template <class C, unsigned Mask, class Red, class... Opt, class T, class... Ts, std::size_t... K>
void check_batched_impl(std::index_sequence<K...>, Red red, std::int64_t M, std::int64_t N, std::int64_t B,
                        const std::tuple<Opt...>& opts, const std::vector<T>& a0, const std::vector<Ts>&... args) {
  using Out = typename Red::op::template out_t<T>;
  const auto all = std::forward_as_tuple(a0, args...);
  const std::int64_t rows = Red::row_cat == kops::category::i ? M : N;
  const std::size_t per = std::size_t(rows * Red::dim);
  auto got = poisoned<Out>(per * std::size_t(B)), want = poisoned<Out>(per * std::size_t(B));
  std::apply([&](const auto&... o) {
    C::backend::eval(red, M, N, got.data(), mark<Mask, K>(std::get<K>(all))..., o..., kops::batch{B});
    for (std::int64_t b = 0; b < B; ++b)
      C::backend::eval(red, M, N, want.data() + b * std::int64_t(per), batch_arg<Mask, K>(std::get<K>(all), B, b)...,
                       o...);
  }, opts);
  INFO("mask " << Mask << ", B = " << B << ", reduction dim " << Red::dim << ", rows " << rows);
  REQUIRE(same_bits(got, want));
}

template <class C, unsigned Mask, class Red, class Opts, class T, class... Ts>
void check_batched(Red red, std::int64_t M, std::int64_t N, std::int64_t B, const Opts& opts,
                   const std::vector<T>& a0, const std::vector<Ts>&... args) {
  check_batched_impl<C, Mask>(std::make_index_sequence<1 + sizeof...(Ts)>{}, red, M, N, B, opts, a0, args...);
}

// The arguments of the reductions below, B batches of each (a shared
// argument reads the first).
template <class T>
struct data {
  std::int64_t M, N, B;
  std::vector<T> x, y, b, g;
  data(std::int64_t m, std::int64_t n, std::int64_t batches, unsigned seed)
      : M(m), N(n), B(batches), x(random_vector<T>(std::size_t(batches * m * 3), 0, 1, seed)),
        y(random_vector<T>(std::size_t(batches * n * 3), 0, 1, seed + 1)),
        b(random_vector<T>(std::size_t(batches * n * 2), -1, 1, seed + 2)),
        g(random_vector<T>(std::size_t(batches), 1, 3, seed + 3)) {}
};

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto bj = kops::vj<2, 2>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto gauss = kops::exp(-g * kops::sqdist(x, y));
constexpr auto d2 = g * kops::sqdist(x, y) + kops::sum(bj) / kops::cst<10>;

template <class C, unsigned Mask, class Opts = std::tuple<>, class T>
void every_reduction(const data<T>& d, const Opts& opts = {}) {
  auto each_axis = [&](auto axis) {
    check_batched<C, Mask>(kops::sum_reduction(gauss * bj, axis), d.M, d.N, d.B, opts, d.x, d.y, d.b, d.g);
    check_batched<C, Mask>(kops::min_argmin_reduction(d2, axis), d.M, d.N, d.B, opts, d.x, d.y, d.b, d.g);
    check_batched<C, Mask>(kops::max_reduction(d2, axis), d.M, d.N, d.B, opts, d.x, d.y, d.b, d.g);
    check_batched<C, Mask>(kops::argkmin_reduction<3>(d2, axis), d.M, d.N, d.B, opts, d.x, d.y, d.b, d.g);
    check_batched<C, Mask>(kops::logsumexp_reduction(-d2, kops::exp(bj), axis), d.M, d.N, d.B, opts, d.x, d.y,
                           d.b, d.g);
    check_batched<C, Mask>(kops::sumsoftmaxweight_reduction(-d2, bj, axis), d.M, d.N, d.B, opts, d.x, d.y, d.b,
                           d.g);
  };
  each_axis(kops::axis_j);
  each_axis(kops::axis_i);
}

} // namespace batch_body

TEMPLATE_TEST_CASE("batch: every reduction, every broadcast, against a loop of calls", "[batch]", KOPS_TEST_CONFIGS) {
  using C = TestType;
  using T = typename C::type;
  using namespace batch_body;
  const data<T> d(37, 23, 3, 7);
  every_reduction<C, 0b1111u>(d);  // every argument per batch
  every_reduction<C, 0b0000u>(d);  // every argument shared: B equal results
  every_reduction<C, 0b1010u>(d);
#if !defined(KOPS_TEST_FEWER)
  // The sanitizer builds (tools/sanitize.sh) and the nvcc build of a machine
  // without a GPU (compiled, never run) keep the three above
  // (KOPS_TEST_FEWER): the kernels are the same for every mask (strides are
  // run-time data), only the harness's instantiations differ, and they cost
  // CI minutes there.
  every_reduction<C, 0b0001u>(d);  // the i-variable alone
  every_reduction<C, 0b0010u>(d);  // a j-variable alone
  every_reduction<C, 0b1000u>(d);  // the parameter alone (KeOps #366)
#endif
}

TEMPLATE_TEST_CASE("batch: B = 1 is the plain call; B = 0 writes nothing", "[batch]", KOPS_TEST_CONFIGS) {
  using C = TestType;
  using T = typename C::type;
  using namespace batch_body;
  const data<T> d(37, 23, 1, 9);
  const auto red = kops::sum_reduction(gauss * bj, kops::axis_j);
  auto got = poisoned<T>(std::size_t(d.M * 2)), want = poisoned<T>(std::size_t(d.M * 2));
  C::backend::eval(red, d.M, d.N, got.data(), kops::per_batch(d.x.data()), d.y.data(), kops::per_batch(d.b.data()),
                   d.g.data(), kops::batch{1});
  C::backend::eval(red, d.M, d.N, want.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data());
  CHECK(same_bits(got, want));
  const auto untouched = got;
  C::backend::eval(red, d.M, d.N, got.data(), kops::per_batch(d.x.data()), d.y.data(), d.b.data(), d.g.data(),
                   kops::batch{0});
  CHECK(same_bits(got, untouched));
  // B = 0 reads and writes nothing: empty (null) arrays are fine.
  const T* none = nullptr;
  T* no_out = nullptr;
  C::backend::eval(red, d.M, d.N, no_out, kops::per_batch(none), d.y.data(), kops::per_batch(none), d.g.data(),
                   kops::batch{0});
  // Empty batches: M = 0 writes nothing, N = 0 the empty value in every batch.
  C::backend::eval(red, 0, d.N, got.data(), kops::per_batch(d.x.data()), d.y.data(), d.b.data(), d.g.data(),
                   kops::batch{2});
  CHECK(same_bits(got, untouched));
  C::backend::eval(red, 4, 0, got.data(), kops::per_batch(d.x.data()), d.y.data(), d.b.data(), d.g.data(),
                   kops::batch{2});
  for (int k = 0; k < 16; ++k) CHECK(got[std::size_t(k)] == T(0));
}

TEMPLATE_TEST_CASE("batch: gradients, per batch and summed over the batch for a shared argument", "[batch]",
                   KOPS_TEST_CONFIGS) {
  using C = TestType;
  using T = typename C::type;
  using namespace batch_body;
  const data<T> d(29, 31, 3, 21);
  constexpr auto e = kops::vi<4, 2>;
  const auto pe = random_vector<T>(std::size_t(d.B * d.M * 2), -1, 1, 99);
  const auto conv = kops::sum_reduction(gauss * bj, kops::axis_j);
  const auto tuple0 = std::tuple<>{};
  // Gradients w.r.t. x (i rows), y (j rows, a sum over i) and g (per-row
  // contributions), every argument per batch: each batch its own gradient.
  check_batched<C, 0b11111u>(kops::grad(conv, x, e), d.M, d.N, d.B, tuple0, d.x, d.y, d.b, d.g, pe);
  check_batched<C, 0b11111u>(kops::grad(conv, y, e), d.M, d.N, d.B, tuple0, d.x, d.y, d.b, d.g, pe);
  check_batched<C, 0b11111u>(kops::grad(conv, g, e), d.M, d.N, d.B, tuple0, d.x, d.y, d.b, d.g, pe);
  // Two passes (logsumexp w.r.t. a reduced-axis variable): the temporary holds every batch's first pass.
  const auto lse = kops::logsumexp_reduction(-d2, kops::axis_j);
  constexpr auto e1 = kops::vi<4, 1>;
  const auto pe1 = random_vector<T>(std::size_t(d.B * d.M), -1, 1, 98);
  check_batched<C, 0b11111u>(kops::grad(lse, y, e1), d.M, d.N, d.B, tuple0, d.x, d.y, d.b, d.g, pe1);
  check_batched<C, 0b10101u>(kops::grad(lse, y, e1), d.M, d.N, d.B, tuple0, d.x, d.y, d.b, d.g, pe1);
  const auto ssw = kops::sumsoftmaxweight_reduction(-d2, bj, kops::axis_j);
  check_batched<C, 0b11011u>(kops::grad(ssw, y, e), d.M, d.N, d.B, tuple0, d.x, d.y, d.b, d.g, pe);

  // y shared: its gradient is the sum over the batches of theirs (batch_output::sum).
  const auto dy = kops::grad(conv, y, e);
  const std::size_t n = std::size_t(d.N * 3);
  auto each = poisoned<T>(n * std::size_t(d.B)), sum = poisoned<T>(n);
  C::backend::eval(dy, d.M, d.N, each.data(), kops::per_batch(d.x.data()), d.y.data(), kops::per_batch(d.b.data()),
                   kops::per_batch(d.g.data()), kops::per_batch(pe.data()), kops::batch{d.B});
  C::backend::eval(dy, d.M, d.N, sum.data(), kops::per_batch(d.x.data()), d.y.data(), kops::per_batch(d.b.data()),
                   kops::per_batch(d.g.data()), kops::per_batch(pe.data()), kops::batch{d.B, kops::batch_output::sum});
  std::vector<T> want(n);
  for (std::size_t k = 0; k < n; ++k) {
    T s = each[k];
    for (std::int64_t b = 1; b < d.B; ++b) s += each[std::size_t(b) * n + k];
    want[k] = s;
  }
  CHECK(same_bits(sum, want));
  // ... and against finite differences of the batches' summed objective: the
  // directional derivative along v of sum_b <conv_b(y), e_b>.
  const auto v = random_vector<T>(n, -1, 1, 5);
  double directional = 0;
  for (std::size_t k = 0; k < n; ++k) directional += double(sum[k]) * double(v[k]);
  auto objective = [&](double t) {
    std::vector<T> yt(n);
    for (std::size_t k = 0; k < n; ++k) yt[k] = T(double(d.y[k]) + t * double(v[k]));
    auto out = poisoned<T>(std::size_t(d.B * d.M * 2));
    C::backend::eval(conv, d.M, d.N, out.data(), kops::per_batch(d.x.data()), yt.data(),
                     kops::per_batch(d.b.data()), kops::per_batch(d.g.data()), kops::batch{d.B});
    double s = 0;
    for (std::size_t k = 0; k < out.size(); ++k) s += double(out[k]) * double(pe[k]);
    return s;
  };
  const double h = sizeof(T) == 4 ? 1e-2 : 1e-5;
  const double fd = (objective(h) - objective(-h)) / (2 * h);
  CHECK(close(directional, fd, sizeof(T) == 4 ? 2e-2 : 1e-6));
  // A parameter shared by every batch: the summed per-row contributions, then kops::sum_rows.
  const auto dg = kops::grad(conv, g, e);
  auto rows_sum = poisoned<T>(std::size_t(d.M)), rows_each = poisoned<T>(std::size_t(d.M * d.B));
  C::backend::eval(dg, d.M, d.N, rows_sum.data(), kops::per_batch(d.x.data()), kops::per_batch(d.y.data()),
                   kops::per_batch(d.b.data()), d.g.data(), kops::per_batch(pe.data()),
                   kops::batch{d.B, kops::batch_output::sum});
  C::backend::eval(dg, d.M, d.N, rows_each.data(), kops::per_batch(d.x.data()), kops::per_batch(d.y.data()),
                   kops::per_batch(d.b.data()), d.g.data(), kops::per_batch(pe.data()), kops::batch{d.B});
  for (std::int64_t r = 0; r < d.M; ++r) {
    T s = rows_each[std::size_t(r)];
    for (std::int64_t b = 1; b < d.B; ++b) s += rows_each[std::size_t(b * d.M + r)];
    CHECK(rows_sum[std::size_t(r)] == s);
  }
}

TEMPLATE_TEST_CASE("batch: with a block-sparsity structure (the same for every batch)", "[batch][block_sparse]",
                   KOPS_TEST_CONFIGS) {
  using C = TestType;
  using T = typename C::type;
  using namespace batch_body;
  const data<T> d(203, 181, 2, 31);
  const auto by_i = random_structure(d.M, d.N, 4), by_j = random_structure(d.N, d.M, 5);
  const kops::block_sparsity si = by_i.view(), sj = by_j.view();
  check_batched<C, 0b1011u>(kops::sum_reduction(gauss * bj, kops::axis_j), d.M, d.N, d.B, std::tuple{si}, d.x, d.y,
                            d.b, d.g);
  check_batched<C, 0b1111u>(kops::argkmin_reduction<2>(d2, kops::axis_j), d.M, d.N, d.B, std::tuple{si}, d.x, d.y,
                            d.b, d.g);
  check_batched<C, 0b0110u>(kops::logsumexp_reduction(-d2, kops::axis_i), d.M, d.N, d.B, std::tuple{sj}, d.x, d.y,
                            d.b, d.g);
  // A two-pass gradient on a tagged structure: its first pass runs on the transpose.
  kops::block_sparsity tagged = si;
  tagged.axis = kops::sparsity_axis::i;
  constexpr auto e1 = kops::vi<4, 1>;
  const auto pe1 = random_vector<T>(std::size_t(d.B * d.M), -1, 1, 97);
  check_batched<C, 0b11111u>(kops::grad(kops::logsumexp_reduction(-d2, kops::axis_j), y, e1), d.M, d.N, d.B,
                             std::tuple{tagged}, d.x, d.y, d.b, d.g, pe1);
}

TEMPLATE_TEST_CASE("batch: invalid batched calls are kops::error before any work", "[batch][errors]",
                   KOPS_TEST_CONFIGS) {
  using C = TestType;
  using T = typename C::type;
  using namespace batch_body;
  using Catch::Matchers::Contains;
  const data<T> d(8, 5, 2, 3);
  const auto red = kops::sum_reduction(gauss * bj, kops::axis_j);
  auto out = poisoned<T>(std::size_t(d.M * 2 * d.B));
  const auto before = out;
  REQUIRE_THROWS_WITH(C::backend::eval(red, d.M, d.N, out.data(), kops::per_batch(d.x.data()), d.y.data(), d.b.data(),
                                       d.g.data(), kops::batch{-1}),
                      Contains("B (the number of batches) must be >= 0, got -1"));
  std::vector<std::int64_t> idx(std::size_t(d.M * d.B));
  REQUIRE_THROWS_WITH(C::backend::eval(kops::argmin_reduction(d2, kops::axis_j), d.M, d.N, idx.data(),
                                       kops::per_batch(d.x.data()), d.y.data(), d.b.data(), d.g.data(),
                                       kops::batch{2, kops::batch_output::sum}),
                      Contains("batch_output::sum adds the batches' outputs"));
  // The output of every batch must not overlap batch 1 of x (x's first batch alone would not).
  std::vector<T> shared(std::size_t(d.M * 3 * 2 + d.M * 2 * 2));
  REQUIRE_THROWS_WITH(C::backend::eval(red, d.M, d.N, shared.data() + d.M * 3 + 1, kops::per_batch(shared.data()),
                                       d.y.data(), d.b.data(), d.g.data(), kops::batch{2}),
                      Contains("the output array overlaps argument 0"));
  // More batches than 64-bit element counts can hold (every argument shared).
  REQUIRE_THROWS_WITH(C::backend::eval(red, d.M, d.N, out.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data(),
                                       kops::batch{std::int64_t(1) << 61}),
                      Contains("the batches' arrays hold more than 2^62 elements"));
  // A null per-batch argument.
  const T* null = nullptr;
  REQUIRE_THROWS_WITH(C::backend::eval(red, d.M, d.N, out.data(), kops::per_batch(null), d.y.data(), d.b.data(),
                                       d.g.data(), kops::batch{2}),
                      Contains("argument 0 (vi<0,3>) is a null pointer"));
  CHECK(same_bits(out, before));
}
