// Test body (included once per test executable): variables of any width,
// evaluated in chunks of the dimension (lowering/chunk.hpp), through each
// configuration of KOPS_TEST_CONFIGS_WIDE (backend, element type), against
// the host reference in double (tests/common/reference.hpp), which evaluates
// the formula as written, unchunked.
//
// Dimensions around the chunk sizes (CPU chunks of 8 from D = 16, GPU chunks of
// 16 from D = 128: D = 63, 64, 65 are chunked on the CPU, with a tail or not,
// and not on the GPU)
// and far past them (784: MNIST, 1000, 3072: CIFAR); sizes M, N that leave the
// last row block and the last tile partial.
#pragma once

#include "reference.hpp"
#include "sparsity.hpp"
#include "support.hpp"

#ifndef KOPS_TEST_CONFIGS_WIDE
#error "define KOPS_TEST_CONFIGS_WIDE (backend, element type configurations) before including wide_body.hpp"
#endif

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace wide_body {

using kops_test::close;
using kops_test::random_vector;

// Tolerance of a float result: D-term sums rounded in float, then N-term sums.
template <class T> constexpr double tol() { return sizeof(T) == 4 ? 2e-4 : 1e-11; }

template <class T, int D>
struct data {
  std::int64_t M, N;
  std::vector<T> x, y, b, b2, w, p, g;
  data(std::int64_t m, std::int64_t n, unsigned seed)
      : M(m), N(n), x(random_vector<T>(std::size_t(m * D), 0, 1, seed)),
        y(random_vector<T>(std::size_t(n * D), 0, 1, seed + 1)),
        b(random_vector<T>(std::size_t(n), -1, 1, seed + 2)),
        b2(random_vector<T>(std::size_t(n * 2), -1, 1, seed + 3)),
        w(random_vector<T>(std::size_t(n * D), 0.5, 1.5, seed + 4)),
        p(random_vector<T>(std::size_t(D), 0, 1, seed + 5)), g{T(4.0 / D)} {}
};

// The Gaussian sum over both axes at dimension D.
template <class Be, class T, int D>
void gaussian_both_axes() {
  const data<T, D> d(37, 53, 100 + D);
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto g = kops::pm<3, 1>;
  const auto k = kops::exp(-g * kops::sqdist(x, y));
  const auto sj = kops::sum_reduction(k * kops::vj<2, 1>, kops::axis_j);
  const auto si = kops::sum_reduction(k * kops::vi<2, 1>, kops::axis_i);
  const auto bi = random_vector<T>(std::size_t(d.M), -1, 1, 7);
  for (const bool over_j : {true, false}) {
    const std::int64_t rows = over_j ? d.M : d.N;
    std::vector<T> out(std::size_t(rows), std::numeric_limits<T>::quiet_NaN());
    std::vector<double> ref(static_cast<std::size_t>(rows));
    if (over_j) {
      Be::eval(sj, d.M, d.N, out.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data());
      kops_test::reference_eval<double>(sj, d.M, d.N, ref.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data());
    } else {
      Be::eval(si, d.M, d.N, out.data(), d.x.data(), d.y.data(), bi.data(), d.g.data());
      kops_test::reference_eval<double>(si, d.M, d.N, ref.data(), d.x.data(), d.y.data(), bi.data(), d.g.data());
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      INFO("D = " << D << (over_j ? ", axis j" : ", axis i") << ", row " << r);
      CHECK(close(out[std::size_t(r)], ref[std::size_t(r)], tol<T>()));
    }
  }
}

template <class Out, class T, class Be, class Red, class... A>
void check_against_reference(const char* what, Red red, std::int64_t M, std::int64_t N, double tolerance,
                             const A*... args) {
  const std::int64_t rows = Red::row_cat == kops::category::i ? M : N;
  using RefOut = std::conditional_t<std::is_same_v<Out, std::int64_t>, std::int64_t, double>;
  std::vector<Out> out(static_cast<std::size_t>(rows * Red::dim));
  std::vector<RefOut> ref(static_cast<std::size_t>(rows * Red::dim));
  Be::eval(red, M, N, out.data(), args...);
  kops_test::reference_eval<double>(red, M, N, ref.data(), args...);
  for (std::size_t e = 0; e < out.size(); ++e) {
    INFO(what << ", element " << e);
    if constexpr (std::is_same_v<Out, std::int64_t>) CHECK(out[e] == ref[e]);
    else CHECK(close(out[e], ref[e], tolerance));
  }
}

} // namespace wide_body

// KOPS_WIDE_PART (1, 2 or 3) stamps a third of the test cases below (0: none),
// so that a build compiles them in several translation units at once
// (tests/cuda/wide_chunks*_test.cu: one file took over 5 minutes of nvcc for
// sm_90 on the GPU machine); undefined: all of them.
#if !defined(KOPS_WIDE_PART) || KOPS_WIDE_PART == 1
TEMPLATE_TEST_CASE("wide variables: Gaussian sums over both axes, D from 1 to 3072", "[wide]",
                   KOPS_TEST_CONFIGS_WIDE) {
  using Be = typename TestType::backend;
  using T = typename TestType::type;
  wide_body::gaussian_both_axes<Be, T, 1>();
  wide_body::gaussian_both_axes<Be, T, 63>();
  wide_body::gaussian_both_axes<Be, T, 64>();
  wide_body::gaussian_both_axes<Be, T, 65>();
  wide_body::gaussian_both_axes<Be, T, 784>();
  wide_body::gaussian_both_axes<Be, T, 1000>();
  wide_body::gaussian_both_axes<Be, T, 3072>();
}

TEMPLATE_TEST_CASE("wide variables: every reduction kind and chunkable form at D = 784", "[wide]",
                   KOPS_TEST_CONFIGS_WIDE) {
  using Be = typename TestType::backend;
  using T = typename TestType::type;
  using wide_body::check_against_reference;
  constexpr int D = 784;
  const wide_body::data<T, D> d(29, 41, 5);
  const std::int64_t M = d.M, N = d.N;
  const double tl = wide_body::tol<T>();
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto b2 = kops::vj<2, 2>;
  constexpr auto g = kops::pm<3, 1>;
  const auto d2 = kops::sqdist(x, y);

  // Extrema, their indices, k-min (ties are improbable at this width).
  check_against_reference<T, T, Be>("min", kops::min_reduction(d2, kops::axis_j), M, N, tl, d.x.data(), d.y.data());
  check_against_reference<T, T, Be>("max over i", kops::max_reduction(d2, kops::axis_i), M, N, tl, d.x.data(),
                                    d.y.data());
  check_against_reference<std::int64_t, T, Be>("argmin", kops::argmin_reduction(d2, kops::axis_j), M, N, 0,
                                               d.x.data(), d.y.data());
  check_against_reference<std::int64_t, T, Be>("argkmin<3> over i", kops::argkmin_reduction<3>(d2, kops::axis_i),
                                               M, N, 0, d.x.data(), d.y.data());
  check_against_reference<T, T, Be>("kmin<3>", kops::kmin_reduction<3>(d2, kops::axis_j), M, N, tl, d.x.data(),
                                    d.y.data());
  // Log-sum-exp and the softmax-weighted sum (two-pass reductions).
  check_against_reference<T, T, Be>("logsumexp", kops::logsumexp_reduction(-g * d2, kops::axis_j), M, N, tl,
                                    d.x.data(), d.y.data(), d.b2.data(), d.g.data());
  check_against_reference<T, T, Be>("sumsoftmaxweight",
                                    kops::sumsoftmaxweight_reduction(-g * d2, b2, kops::axis_j), M, N, tl,
                                    d.x.data(), d.y.data(), d.b2.data(), d.g.data());
  // Other sums over coordinates: a dot product, a norm weighted per pair by a
  // wide j-variable, by a wide parameter, against a wide parameter, with a
  // dimension-1 i-variable broadcast inside the sum.
  check_against_reference<T, T, Be>("dot", kops::sum_reduction(kops::exp(-g * kops::dot(x, y)), kops::axis_j), M,
                                    N, tl, d.x.data(), d.y.data(), d.b2.data(), d.g.data());
  check_against_reference<T, T, Be>(
      "weighted by w_j", kops::sum_reduction(kops::sum(kops::vj<2, D> * kops::square(x - y)), kops::axis_j), M, N,
      tl, d.x.data(), d.y.data(), d.w.data());
  check_against_reference<T, T, Be>(
      "weighted by a parameter", kops::min_reduction(kops::sum(kops::pm<2, D> * kops::square(x - y)), kops::axis_i),
      M, N, tl, d.x.data(), d.y.data(), d.p.data());
  check_against_reference<T, T, Be>("sqnorm2 of x - p", kops::sum_reduction(kops::sqnorm2(x - kops::pm<1, D>) *
                                                                                kops::vj<2, 1>,
                                                                            kops::axis_j),
                                    M, N, tl, d.x.data(), d.p.data(), d.b.data());
  const auto ci = kops_test::random_vector<T>(std::size_t(M), 0, 1, 9);
  check_against_reference<T, T, Be>(
      "a dim-1 variable inside the sum",
      kops::sum_reduction(kops::exp(-g * kops::sum(kops::square(x - y - kops::vi<2, 1>))), kops::axis_j), M, N, tl,
      d.x.data(), d.y.data(), ci.data(), d.g.data());
  // Sums over two widths (784 and 300): chunked on both backends, but not in
  // the GPU's staged loop (which needs one width): chunks read per pair.
  const auto u = kops_test::random_vector<T>(static_cast<std::size_t>(M * 300), 0, 1, 10);
  const auto v = kops_test::random_vector<T>(static_cast<std::size_t>(N * 300), 0, 1, 11);
  check_against_reference<T, T, Be>(
      "two widths",
      kops::sum_reduction(kops::exp(-g * d2 - g * kops::dot(kops::vi<4, 300>, kops::vj<5, 300>)), kops::axis_j),
      M, N, tl, d.x.data(), d.y.data(), d.b2.data(), d.g.data(), u.data(), v.data());
  // No reduced-axis variable at all (a wide parameter): nothing of the tile in shared memory.
  check_against_reference<T, T, Be>("against a wide parameter",
                                    kops::sum_reduction(kops::exp(-g * kops::sqdist(x, kops::pm<1, D>)), kops::axis_j),
                                    M, N, tl, d.x.data(), d.p.data(), d.b2.data(), d.g.data());
  // Batches and a block-sparse call of the chunked Gaussian (the GPU's staged loop).
  {
    const auto red = kops::sum_reduction(kops::exp(-g * d2) * kops::vj<2, 1>, kops::axis_j);
    const auto y2 = kops_test::random_vector<T>(static_cast<std::size_t>(2 * N * D), 0, 1, 12);
    std::vector<T> two(static_cast<std::size_t>(2 * M)), one(static_cast<std::size_t>(M));
    Be::eval(red, M, N, two.data(), d.x.data(), kops::per_batch(y2.data()), d.b.data(), d.g.data(), kops::batch{2});
    for (std::int64_t b = 0; b < 2; ++b) {
      Be::eval(red, M, N, one.data(), d.x.data(), y2.data() + b * N * D, d.b.data(), d.g.data());
      for (std::int64_t i = 0; i < M; ++i) {
        INFO("batch " << b << ", row " << i);
        REQUIRE(two[std::size_t(b * M + i)] == one[std::size_t(i)]);
      }
    }
    const auto s = kops_test::random_structure(M, N, 13);
    const auto keep = kops_test::kept_mask(s.view(), M, N);
    std::vector<T> got(static_cast<std::size_t>(M), std::numeric_limits<T>::quiet_NaN());
    std::vector<double> ref(static_cast<std::size_t>(M));
    Be::eval(red, M, N, got.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data(), s.view());
    kops_test::reference_eval_kept<double>(kops_test::mask_keep{&keep, N}, red, M, N, ref.data(), d.x.data(),
                                           d.y.data(), d.b.data(), d.g.data());
    for (std::int64_t i = 0; i < M; ++i) {
      INFO("block-sparse, row " << i);
      CHECK(kops_test::close(got[std::size_t(i)], ref[std::size_t(i)], tl));
    }
  }
  // A variable read chunk by chunk and whole: the first component of x besides sqdist.
  check_against_reference<T, T, Be>(
      "x read chunked and whole",
      kops::sum_reduction(kops::exp(-g * d2) * kops::elem<0>(x) + kops::elem<D - 1>(y), kops::axis_j), M, N, tl,
      d.x.data(), d.y.data(), d.b2.data(), d.g.data());
}

#endif // KOPS_WIDE_PART 1

#if !defined(KOPS_WIDE_PART) || KOPS_WIDE_PART == 2
TEMPLATE_TEST_CASE("wide variables: wide outputs in chunks of components, batches, block-sparse calls", "[wide]",
                   KOPS_TEST_CONFIGS_WIDE) {
  using Be = typename TestType::backend;
  using T = typename TestType::type;
  using wide_body::check_against_reference;
  using kops_test::random_vector;
  constexpr int DV = 1000, DE = 130;  // chunks of 32: a tail of 8, of 2
  const std::int64_t M = 37, N = 53;
  const double tl = wide_body::tol<T>();
  const auto x = random_vector<T>(static_cast<std::size_t>(M * 3), 0, 1, 21);
  const auto y = random_vector<T>(static_cast<std::size_t>(N * 3), 0, 1, 22);
  const auto bj = random_vector<T>(static_cast<std::size_t>(N * DV), -1, 1, 23);
  const auto bi = random_vector<T>(static_cast<std::size_t>(M * DV), -1, 1, 24);
  const auto p = random_vector<T>(static_cast<std::size_t>(DV), -1, 1, 25);
  const auto k = kops::exp(-kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>));

  // GPyTorch's product K b with a 1000-wide b, over both axes; a wide parameter.
  check_against_reference<T, T, Be>("K b_j", kops::sum_reduction(k * kops::vj<2, DV>, kops::axis_j), M, N, tl,
                                    x.data(), y.data(), bj.data());
  check_against_reference<T, T, Be>("K b_i over i", kops::sum_reduction(k * kops::vi<2, DV>, kops::axis_i), M, N, tl,
                                    x.data(), y.data(), bi.data());
  check_against_reference<T, T, Be>("K (b_j + p)",
                                    kops::sum_reduction(k * (kops::vj<2, DV> + kops::pm<3, DV>), kops::axis_j), M, N,
                                    tl, x.data(), y.data(), bj.data(), p.data());
  // Extrema and their indices, component by component (a tail of 2).
  check_against_reference<T, T, Be>("min of b_j - K", kops::min_reduction(kops::vj<2, DE> - k, kops::axis_j), M, N,
                                    tl, x.data(), y.data(), bj.data());
  check_against_reference<std::int64_t, T, Be>(
      "argmax of b_j K", kops::argmax_reduction(kops::vj<2, DE> * k, kops::axis_j), M, N, 0, x.data(), y.data(),
      bj.data());

  // Batches: two problems sharing x, y with their own b; each batch as the plain call.
  const auto red = kops::sum_reduction(k * kops::vj<2, DV>, kops::axis_j);
  std::vector<T> two(static_cast<std::size_t>(2 * M * DV)), one(static_cast<std::size_t>(M * DV));
  const auto b2 = random_vector<T>(static_cast<std::size_t>(2 * N * DV), -1, 1, 26);
  Be::eval(red, M, N, two.data(), x.data(), y.data(), kops::per_batch(b2.data()), kops::batch{2});
  for (std::int64_t b = 0; b < 2; ++b) {
    Be::eval(red, M, N, one.data(), x.data(), y.data(), b2.data() + b * N * DV);
    for (std::int64_t e = 0; e < M * DV; ++e) {
      INFO("batch " << b << ", element " << e);
      REQUIRE(two[std::size_t(b * M * DV + e)] == one[std::size_t(e)]);
    }
  }

  // Block-sparse: only the kept pairs; rows in no block are 0 in every component.
  const auto s = kops_test::random_structure(M, N, 27);
  const auto keep = kops_test::kept_mask(s.view(), M, N);
  std::vector<T> got(static_cast<std::size_t>(M * DV), std::numeric_limits<T>::quiet_NaN());
  std::vector<double> ref(static_cast<std::size_t>(M * DV));
  Be::eval(red, M, N, got.data(), x.data(), y.data(), bj.data(), s.view());
  kops_test::reference_eval_kept<double>(kops_test::mask_keep{&keep, N}, red, M, N, ref.data(), x.data(), y.data(),
                                         bj.data());
  for (std::size_t e = 0; e < got.size(); ++e) {
    INFO("block-sparse, element " << e);
    CHECK(kops_test::close(got[e], ref[e], tl));
  }
}

TEMPLATE_TEST_CASE("wide variables: 16-bit storage at D = 784 (chunked sums and a wide output)", "[wide]",
                   KOPS_TEST_CONFIGS_WIDE) {
  using Be = typename TestType::backend;
  using T = typename TestType::type;
  if constexpr (std::is_same_v<T, float>) {
    // kops::half inputs, evaluated in float: against double on the stored values.
    constexpr int D = 784, DV = 200;
    const std::int64_t M = 19, N = 41;
    auto halves = [](std::size_t n, unsigned seed) {
      const auto v = kops_test::random_vector<float>(n, 0, 1, seed);
      return std::vector<kops::half>(v.begin(), v.end());
    };
    const auto x = halves(static_cast<std::size_t>(M * D), 31), y = halves(static_cast<std::size_t>(N * D), 32);
    const auto b = halves(static_cast<std::size_t>(N * DV), 33);
    const std::vector<kops::half> g{kops::half(4.0f / D)};
    const auto k = kops::exp(-kops::pm<3, 1> * kops::sqdist(kops::vi<0, D>, kops::vj<1, D>));
    const auto sum1 = kops::sum_reduction(k * kops::vj<2, 1>, kops::axis_j);
    const auto wide = kops::sum_reduction(k * kops::vj<2, DV>, kops::axis_j);
    // A narrow kernel times the wide b: an output in chunks, on 16-bit arrays.
    const auto k3 = kops::exp(-kops::pm<3, 1> * kops::sqdist(kops::vi<4, 3>, kops::vj<5, 3>));
    const auto out3 = kops::sum_reduction(k3 * kops::vj<2, DV>, kops::axis_j);
    const auto x3 = halves(static_cast<std::size_t>(M * 3), 34), y3 = halves(static_cast<std::size_t>(N * 3), 35);
    std::vector<float> o3(static_cast<std::size_t>(M * DV));
    std::vector<double> r3(o3.size());
    Be::eval(out3, M, N, o3.data(), x.data(), y.data(), b.data(), g.data(), x3.data(), y3.data());
    kops_test::reference_eval<double>(out3, M, N, r3.data(), x.data(), y.data(), b.data(), g.data(), x3.data(),
                                      y3.data());
    for (std::size_t e = 0; e < o3.size(); ++e) CHECK(kops_test::close(o3[e], r3[e], 2e-4));
    std::vector<float> o1(static_cast<std::size_t>(M)), ov(static_cast<std::size_t>(M * DV));
    std::vector<double> r1(o1.size()), rv(ov.size());
    Be::eval(sum1, M, N, o1.data(), x.data(), y.data(), b.data(), g.data());
    kops_test::reference_eval<double>(sum1, M, N, r1.data(), x.data(), y.data(), b.data(), g.data());
    Be::eval(wide, M, N, ov.data(), x.data(), y.data(), b.data(), g.data());
    kops_test::reference_eval<double>(wide, M, N, rv.data(), x.data(), y.data(), b.data(), g.data());
    for (std::size_t e = 0; e < o1.size(); ++e) CHECK(kops_test::close(o1[e], r1[e], 2e-4));
    for (std::size_t e = 0; e < ov.size(); ++e) CHECK(kops_test::close(ov[e], rv[e], 2e-4));
  }
}

#endif // KOPS_WIDE_PART 2

#if !defined(KOPS_WIDE_PART) || KOPS_WIDE_PART == 3
TEMPLATE_TEST_CASE("wide variables: wide sums whose kernel is wide too (gradients at D = 784), final chunks", "[wide]",
                   KOPS_TEST_CONFIGS_WIDE) {
  // On the GPU backend these run in final chunks (backends/cuda/final_chunks.hpp):
  // the kernel part once per pair, the output 32 components at a time.
  using Be = typename TestType::backend;
  using T = typename TestType::type;
  using wide_body::check_against_reference;
  constexpr int D = 784;
  const wide_body::data<T, D> d(23, 45, 61);
  const std::int64_t M = d.M, N = d.N;
  const double tl = wide_body::tol<T>();
  constexpr auto x = kops::vi<0, D>;
  constexpr auto y = kops::vj<1, D>;
  constexpr auto e = kops::vi<4, 1>;
  const auto gauss = kops::sum_reduction(kops::exp(-kops::pm<3, 1> * kops::sqdist(x, y)) * kops::vj<2, 1>, kops::axis_j);
  const auto ei = kops_test::random_vector<T>(std::size_t(M), -1, 1, 62);
  const auto gx = kops::grad(gauss, x, e);  // rows i
  const auto gy = kops::grad(gauss, y, e);  // rows j
  check_against_reference<T, T, Be>("d/dx", gx, M, N, tl, d.x.data(), d.y.data(), d.b.data(), d.g.data(), ei.data());
  check_against_reference<T, T, Be>("d/dy", gy, M, N, tl, d.x.data(), d.y.data(), d.b.data(), d.g.data(), ei.data());
  // A compensated sum leaves final chunks (its accumulator in registers): the
  // same values as the default scheme's (block sums of 32 in final chunks).
  {
    std::vector<T> kahan(static_cast<std::size_t>(M * D)), plain(kahan.size());
    Be::template eval<kops::sum_scheme::kahan>(gx, M, N, kahan.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data(),
                                               ei.data());
    Be::eval(gx, M, N, plain.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data(), ei.data());
    for (std::size_t k = 0; k < plain.size(); ++k) {
      INFO("Kahan against the default scheme, element " << k);
      CHECK(kops_test::close(plain[k], kahan[k], tl));
    }
  }

  // No part varying with the pair (x_i - y_j summed: the sums of x and of y),
  // a wide row variable times a narrow kernel (the row's chunk in registers),
  // a wide parameter, and 100 = 3 chunks of 32 and a tail of 4.
  constexpr int DS = 100;
  const wide_body::data<T, DS> s(17, 29, 63);
  const auto k3 = kops::exp(-kops::sqdist(kops::vi<5, 3>, kops::vj<6, 3>));
  const auto x3 = kops_test::random_vector<T>(std::size_t(s.M * 3), 0, 1, 64);
  const auto y3 = kops_test::random_vector<T>(std::size_t(s.N * 3), 0, 1, 65);
  check_against_reference<T, T, Be>("sum of x_i - y_j",
                                    kops::sum_reduction(kops::vi<0, DS> - kops::vj<1, DS>, kops::axis_j), s.M, s.N, tl,
                                    s.x.data(), s.y.data());
  check_against_reference<T, T, Be>(
      "K x_i + p", kops::sum_reduction(k3 * kops::vi<0, DS> + kops::pm<2, DS>, kops::axis_j), s.M, s.N, tl,
      s.x.data(), s.y.data(), s.p.data(), s.g.data(), s.g.data(), x3.data(), y3.data());
  check_against_reference<T, T, Be>(
      "K (x_i - y_j) over i", kops::sum_reduction(k3 * (kops::vi<0, DS> - kops::vj<1, DS>), kops::axis_i), s.M, s.N,
      tl, s.x.data(), s.y.data(), s.p.data(), s.g.data(), s.g.data(), x3.data(), y3.data());

  // Batches: two problems sharing y with their own x; each batch as the plain call.
  {
    std::vector<T> two(static_cast<std::size_t>(2 * M * D)), one(static_cast<std::size_t>(M * D));
    const auto x2 = kops_test::random_vector<T>(static_cast<std::size_t>(2 * M * D), 0, 1, 66);
    Be::eval(gx, M, N, two.data(), kops::per_batch(x2.data()), d.y.data(), d.b.data(), d.g.data(), ei.data(),
             kops::batch{2});
    for (std::int64_t b = 0; b < 2; ++b) {
      Be::eval(gx, M, N, one.data(), x2.data() + b * M * D, d.y.data(), d.b.data(), d.g.data(), ei.data());
      for (std::int64_t k = 0; k < M * D; ++k) {
        INFO("batch " << b << ", element " << k);
        REQUIRE(two[std::size_t(b * M * D + k)] == one[std::size_t(k)]);
      }
    }
  }
  // Block-sparse: only the kept pairs; rows in no block are 0 in every component.
  {
    const auto st = kops_test::random_structure(M, N, 67);
    const auto keep = kops_test::kept_mask(st.view(), M, N);
    std::vector<T> got(static_cast<std::size_t>(M * D), std::numeric_limits<T>::quiet_NaN());
    std::vector<double> ref(got.size());
    Be::eval(gx, M, N, got.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data(), ei.data(), st.view());
    kops_test::reference_eval_kept<double>(kops_test::mask_keep{&keep, N}, gx, M, N, ref.data(), d.x.data(),
                                           d.y.data(), d.b.data(), d.g.data(), ei.data());
    for (std::size_t k = 0; k < got.size(); ++k) {
      INFO("block-sparse, element " << k);
      CHECK(kops_test::close(got[k], ref[k], tl));
    }
  }
  // An empty reduced axis: every row 0.
  {
    std::vector<T> out(static_cast<std::size_t>(M * D), std::numeric_limits<T>::quiet_NaN());
    Be::eval(gx, M, 0, out.data(), d.x.data(), d.y.data(), d.b.data(), d.g.data(), ei.data());
    for (std::size_t k = 0; k < out.size(); ++k) REQUIRE(out[k] == T(0));
  }
}
#endif // KOPS_WIDE_PART 3
