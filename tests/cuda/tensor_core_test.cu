// The tensor-core kernel (backends/cuda/tensor_core.hpp) against a double loop
// (reference_eval) and against the CUDA-core kernel of the same call
// (kops::tensor_cores::off), through every scheme: GPU_1D, GPU_2D with chunks
// that cut the reduced axis mid-tile, batches, both reduction axes, every
// reduction family, dims that are not a multiple of the MMA's step, row and
// index counts that are not multiples of the tiles, 16-bit storage.
//
// Tolerances are the bounds docs/tensor_cores.md states, evaluated per output
// from the data (tc_bound below), not a fixed epsilon: with u_op the operands'
// rounding (TF32: 2^-11; 3xTF32: 3 2^-22; 16-bit data: 0, the products are
// exact in fp32) and D the dimension,
//   |<x, y>^ - <x, y>|  <=  (2 u_op + (D + 2) 2^-24) sum_k |x_k y_k|
//   |d^ - d|            <=  (4 u_op + (2 D + 4) 2^-24) (|x|^2 + |y|^2)      (d = |x - y|^2, clamped at 0)
// (the 2^-24 terms model fp32 accumulation; the hardware's order and
// alignment inside an MMA are unspecified, the emulator's are exact: see
// docs/tensor_cores.md)
// The tests check the sums themselves (min over the reduced axis of the sum,
// whose error is the bound at the minimising pair) and the formulas built on
// them against the CUDA-core kernel.
#include "cuda_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

namespace d = kops::cuda::detail;
using kops::cuda::scheme;
using kops::precision;
using kops::tensor_cores;

constexpr double u24 = 1.0 / (1 << 24);
constexpr double u_tf32 = 1.0 / (1 << 11);

// The kernel a call takes (the compile-time half of eval.hpp's choice; the
// emulator reports compute capability 9.0, so these run on the MMA path).
template <precision P, class T, class Red>
constexpr bool takes_tc(Red) {
  using Pol = kops::detail::policy_of_t<P>;
  using K = d::pass_traits_t<Pol, Red, T, typename Red::op::template out_t<kops::detail::compute_t<T>>>;
  return d::tc_choice<K, P>::ok;
}

template <int D>
constexpr auto x = kops::vi<0, D>;
template <int D>
constexpr auto y = kops::vj<1, D>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;

// The policy kind (core/policy.hpp): automatic unless named.
static_assert(kops::detail::policy_of_t<>::tc == tensor_cores::automatic);
static_assert(kops::detail::policy_of_t<precision::fast, tensor_cores::off>::tc == tensor_cores::off);
static_assert(kops::detail::valid_policies_v<tensor_cores::off, precision::fast>);
static_assert(!kops::detail::valid_policies_v<tensor_cores::off, tensor_cores::automatic>);

// What the tensor cores take, and what they leave (tensor_core.hpp, tc_choice).
static_assert(takes_tc<precision::fast, float>(kops::sum_reduction(kops::exp(-g * kops::sqdist(x<64>, y<64>)) * b, kops::axis_j)));
static_assert(takes_tc<precision::accurate, float>(kops::sum_reduction(kops::dot(x<64>, y<64>) * b, kops::axis_j)));
static_assert(takes_tc<precision::accurate, kops::half>(kops::sum_reduction(kops::exp(-g * kops::sqdist(x<64>, y<64>)) * b, kops::axis_j)));
// accurate float keeps sqdist on the CUDA cores (the expansion's bound is weaker)
static_assert(!takes_tc<precision::accurate, float>(kops::sum_reduction(kops::exp(-g * kops::sqdist(x<64>, y<64>)) * b, kops::axis_j)));
// double never; narrow never
static_assert(!takes_tc<precision::fast, double>(kops::sum_reduction(kops::exp(-g * kops::sqdist(x<64>, y<64>)) * b, kops::axis_j)));
static_assert(!takes_tc<precision::fast, float>(kops::sum_reduction(kops::exp(-g * kops::sqdist(x<16>, y<16>)) * b, kops::axis_j)));
// a wide rest (the x-gradient reads x and y whole) stays on the CUDA cores
static_assert(!takes_tc<precision::fast, float>(kops::sum_reduction(kops::exp(-kops::sqdist(x<64>, y<64>)) * (x<64> - y<64>), kops::axis_j)));
// the four quarters' accumulators must fit 48 KiB: argkmin<10> (120 bytes each) stays on the CUDA cores
static_assert(takes_tc<precision::fast, float>(kops::argkmin_reduction<8>(kops::sqdist(x<64>, y<64>), kops::axis_j)));
static_assert(!takes_tc<precision::fast, float>(kops::argkmin_reduction<10>(kops::sqdist(x<64>, y<64>), kops::axis_j)));
// The k smallest take the deferred insertion (tensor_core.hpp: tc_traits::deferred),
// a row's 2 NT pairs of a step as bits of one word; sums do not.
template <precision P, class T, class Red>
constexpr bool deferred_tc(Red) {
  using K = d::pass_traits_t<kops::detail::policy_of_t<P>, Red, T, typename Red::op::template out_t<kops::detail::compute_t<T>>>;
  using TK = d::tc_traits<K, P>;
  static_assert(2 * TK::nt <= 32);
  return TK::deferred;
}
static_assert(deferred_tc<precision::fast, float>(kops::argkmin_reduction<8>(kops::sqdist(x<48>, y<48>), kops::axis_j)));
static_assert(deferred_tc<precision::fast, kops::half>(kops::argkmin_reduction<4>(kops::sqdist(x<48>, y<48>), kops::axis_i)));
static_assert(deferred_tc<precision::fast, float>(kops::kmin_reduction<3>(kops::sqdist(x<48>, y<48>), kops::axis_j)));
static_assert(!deferred_tc<precision::fast, float>(kops::sum_reduction(kops::exp(-g * kops::sqdist(x<64>, y<64>)) * b, kops::axis_j)));
static_assert(!deferred_tc<precision::fast, float>(kops::argmin_reduction(kops::sqdist(x<64>, y<64>), kops::axis_j)));
// a 16-bit weighted form would round w y to 16 bits
static_assert(!takes_tc<precision::fast, kops::half>(kops::min_reduction(kops::weighted_sqdist(kops::pm<2, 64>, x<64>, y<64>), kops::axis_j)));

template <class T>
std::vector<T> cast(const std::vector<double>& v) {
  std::vector<T> r(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) r[k] = T(v[k]);
  return r;
}
template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  std::vector<double> r(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) r[k] = double(v[k]);
  return r;
}

// Points: M x D and N x D, uniform in [lo, hi], shifted by `mean` in every coordinate.
struct cloud {
  std::vector<double> x, y;
};
cloud make_cloud(std::int64_t M, std::int64_t N, int D, double mean, unsigned seed) {
  cloud c{kops_test::random_vector<double>(std::size_t(M) * D, -1, 1, seed),
          kops_test::random_vector<double>(std::size_t(N) * D, -1, 1, seed + 1)};
  for (double& v : c.x) v += mean;
  for (double& v : c.y) v += mean;
  return c;
}

// make_cloud with x_i = 0.9 y_(a i + b mod N) + 0.1 x_i: each x near one y,
// its nearest neighbour far ahead of the others relative to TF32's bound.
cloud make_separated(std::int64_t M, std::int64_t N, int D, unsigned seed, std::int64_t a, std::int64_t b) {
  cloud c = make_cloud(M, N, D, 0.0, seed);
  for (std::int64_t i = 0; i < M; ++i)
    for (int k = 0; k < D; ++k) c.x[i * D + k] = 0.9 * c.y[((i * a + b) % N) * D + k] + 0.1 * c.x[i * D + k];
  return c;
}

double sq_norm(const double* v, int D) {
  double s = 0;
  for (int k = 0; k < D; ++k) s += v[k] * v[k];
  return s;
}

// The call on host arrays through kops::cuda::eval_host.
template <auto... Pol, class Red, class Out, class... A>
void run(Red red, std::int64_t M, std::int64_t N, Out* out, scheme s, std::int64_t chunk, const A*... args) {
  kops::cuda::options o;
  o.scheme = s;
  o.gpu_2d_chunk = chunk;
  kops::cuda::eval_host<Pol...>(red, M, N, out, args..., o);
}

struct scheme_case {
  scheme s;
  std::int64_t chunk;
};
// (The sanitizer builds, KOPS_TEST_FEWER, keep GPU_1D and the short GPU_2D chunks.)
#if defined(KOPS_TEST_FEWER)
const scheme_case schemes[] = {{scheme::gpu_1d, 0}, {scheme::gpu_2d, 37}};
#else
const scheme_case schemes[] = {{scheme::gpu_1d, 0}, {scheme::gpu_2d, 37}, {scheme::gpu_2d, 200}};
#endif

// min_j |x_i - y_j|^2 on the tensor cores: each output within the bound of the
// exact minimum, in TF32 (fast) and from 16-bit data; sizes with tails. The
// arguments start `offset` elements into their arrays (1: not aligned for the
// staging's vector loads, which then reads element by element).
template <class T, int D>
std::vector<std::vector<float>> check_min_sqdist(double mean, std::int64_t M, std::int64_t N, int offset = 0) {
  const auto red = kops::min_reduction(kops::sqdist(x<D>, y<D>), kops::axis_j);
  static_assert(takes_tc<precision::fast, T>(red));
  cloud c = make_cloud(M, N, D, mean, 101);
  c.x.insert(c.x.begin(), std::size_t(offset), 0.0);
  c.y.insert(c.y.begin(), std::size_t(offset), 0.0);
  const auto xs_all = cast<T>(c.x), ys_all = cast<T>(c.y);
  const T* xs = xs_all.data() + offset;
  const T* ys = ys_all.data() + offset;
  const auto xd = widen(std::vector<T>(xs, xs + M * D)), yd = widen(std::vector<T>(ys, ys + N * D));  // as stored
  const double u_op = std::is_same_v<T, float> ? u_tf32 : 0.0;
  // on device arrays: eval_host's copies would be aligned
  const kops_test::device_copy<T> dx(xs_all), dy(ys_all);
  std::vector<std::vector<float>> outs;  // per scheme
  for (const auto& sc : schemes) {
    kops::cuda::options o;
    o.scheme = sc.s;
    o.gpu_2d_chunk = sc.chunk;
    const kops_test::device_copy<float> dout(std::vector<float>(std::size_t(M), -1.0f));
    kops::cuda::eval<precision::fast>(red, M, N, dout.p, dx.p + offset, dy.p + offset, o);
    const std::vector<float> out = dout.to_host();
    for (std::int64_t i = 0; i < M; ++i) {
      double best = std::numeric_limits<double>::infinity(), bound = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int k = 0; k < D; ++k) s += (xd[i * D + k] - yd[j * D + k]) * (xd[i * D + k] - yd[j * D + k]);
        const double bj = (4 * u_op + (2 * D + 4) * u24) * (sq_norm(&xd[i * D], D) + sq_norm(&yd[j * D], D));
        if (s < best) best = s;
        bound = std::max(bound, bj);  // the bound at whichever pair attains the computed minimum
      }
      INFO("T " << (std::is_same_v<T, float> ? "float" : "16-bit") << " D " << D << " mean " << mean << " row " << i
                << " scheme " << int(sc.s) << " chunk " << sc.chunk << " offset " << offset);
      REQUIRE(out[i] >= 0.0f);
      REQUIRE(std::abs(double(out[i]) - best) <= bound);
    }
    outs.push_back(out);
  }
  return outs;
}

TEST_CASE("tensor cores: min of sqdist within the stated bound, tails of rows, indices and dims", "[tensor_cores]") {
  check_min_sqdist<float, 64>(0.0, 77, 203);
  check_min_sqdist<float, 37>(0.0, 16, 64);   // D not a multiple of 8; rows one warp exactly
  check_min_sqdist<float, 34>(0.0, 20, 40);   // D = 2 mod 4: the staging's 8-byte loads
  check_min_sqdist<float, 40>(10.0, 65, 9);   // a mean far from the origin: the expansion cancels
  check_min_sqdist<kops::half, 64>(0.0, 33, 130);
  check_min_sqdist<kops::half, 50>(0.0, 17, 31);  // D not a multiple of 16
  check_min_sqdist<kops::bfloat16, 96>(0.0, 40, 75);
  // rows too wide for registers: staged in chunks of coordinates (tc_traits::cache_rows false)
  check_min_sqdist<float, 200>(0.0, 40, 90);
  check_min_sqdist<float, 129>(0.0, 130, 70);  // D odd: scalar staging; two row blocks
  check_min_sqdist<kops::half, 300>(0.0, 20, 50);
}

// Arguments that do not start on a 16-byte boundary: the staging (tc_copy)
// reads them element by element, for the reduced axis's tile and, with rows in
// chunks, for the block's rows; the result is the aligned call's, bit for bit
// (the same staged values).
TEST_CASE("tensor cores: arguments not aligned for vector loads", "[tensor_cores]") {
  REQUIRE(check_min_sqdist<float, 64>(0.0, 40, 70, 1) == check_min_sqdist<float, 64>(0.0, 40, 70));
  REQUIRE(check_min_sqdist<kops::half, 64>(0.0, 40, 70, 1) == check_min_sqdist<kops::half, 64>(0.0, 40, 70));
  REQUIRE(check_min_sqdist<float, 200>(0.0, 40, 90, 3) == check_min_sqdist<float, 200>(0.0, 40, 90));
  // D a multiple of 8 halves, the pointer 4 bytes off; and rows staged in chunks
  REQUIRE(check_min_sqdist<kops::half, 96>(0.0, 33, 50, 2) == check_min_sqdist<kops::half, 96>(0.0, 33, 50));
  REQUIRE(check_min_sqdist<kops::half, 300>(0.0, 20, 50, 1) == check_min_sqdist<kops::half, 300>(0.0, 20, 50));
}


// Near-duplicates: x_i = y_{p(i)} exactly, plus far points. The expansion's
// cancellation is clamped at 0, never negative; argmin finds the duplicate
// (its distance, within the bound of 0, is far below every other's), and the
// lowest index among exact duplicates (y_3 == y_40: the quarters combine in order).
TEST_CASE("tensor cores: near-duplicates, exact duplicates and argmin ties", "[tensor_cores]") {
  constexpr int D = 48;
  const std::int64_t M = 70, N = 150;
  cloud c = make_cloud(M, N, D, 3.0, 202);
  for (int k = 0; k < D; ++k) c.y[40 * D + k] = c.y[3 * D + k];
  std::vector<std::int64_t> want(M);
  for (std::int64_t i = 0; i < M; ++i) {
    const std::int64_t j = (i * 37 + 11) % N;
    for (int k = 0; k < D; ++k) c.x[i * D + k] = c.y[j * D + k];
    want[i] = j == 40 ? 3 : j;
  }
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto dist = kops::min_reduction(kops::sqdist(x<D>, y<D>), kops::axis_j);
  const auto arg = kops::argmin_reduction(kops::sqdist(x<D>, y<D>), kops::axis_j);
  static_assert(takes_tc<precision::fast, float>(arg));
  for (const auto& sc : schemes) {
    std::vector<float> m(std::size_t(M), -1.0f);
    std::vector<std::int64_t> a(std::size_t(M), -1);
    run<precision::fast>(dist, M, N, m.data(), sc.s, sc.chunk, xs.data(), ys.data());
    run<precision::fast>(arg, M, N, a.data(), sc.s, sc.chunk, xs.data(), ys.data());
    for (std::int64_t i = 0; i < M; ++i) {
      INFO("row " << i << " scheme " << int(sc.s) << " chunk " << sc.chunk);
      // An exact copy: the norms are of the same TF32-rounded values as the
      // product, so only the fp32 accumulations' rounding is left.
      const double bound = (2 * D + 4) * u24 * 2 * sq_norm(&c.x[i * D], D);
      REQUIRE(m[i] >= 0.0f);
      REQUIRE(double(m[i]) <= bound);
      REQUIRE(a[i] == want[i]);
    }
  }
}

// Every reduction family on a formula of the tensor cores' form, against the
// CUDA-core kernel of the same call (tensor_cores::off): indices exactly (the
// points are far apart relative to the bound), values within `rel`.
// Indices agree exactly, or (with `near`, the exact distance of a row's
// index) point at distances within rel of each other: the k-th neighbours
// beyond the first are not far apart relative to TF32's bound.
struct no_near {};
template <auto... Pol, class Red, class Near, class... A>
void check_against_off(const char* what, Red red, std::int64_t M, std::int64_t N, double rel, Near near,
                       const A*... args) {
  using Out = typename Red::op::template out_t<float>;
  const std::int64_t rows = Red::row_cat == kops::category::i ? M : N;
  const std::size_t n = std::size_t(rows) * Red::dim;
  for (const auto& sc : schemes) {
    std::vector<Out> tc(n), cc(n);
    run<precision::fast, Pol...>(red, M, N, tc.data(), sc.s, sc.chunk, args...);
    run<precision::fast, tensor_cores::off, Pol...>(red, M, N, cc.data(), sc.s, sc.chunk, args...);
    for (std::size_t k = 0; k < n; ++k) {
      INFO(what << " output " << k << " scheme " << int(sc.s) << " chunk " << sc.chunk);
      if constexpr (std::is_integral_v<Out>) {
        if constexpr (std::is_same_v<Near, no_near>) REQUIRE(tc[k] == cc[k]);
        else REQUIRE(std::abs(near(std::int64_t(k) / Red::dim, tc[k]) - near(std::int64_t(k) / Red::dim, cc[k])) <= rel);
      } else if constexpr (requires { tc[k].index; }) {
        REQUIRE(tc[k].index == cc[k].index);
        REQUIRE(std::abs(double(tc[k].value) - double(cc[k].value)) <= rel * (1 + std::abs(double(cc[k].value))));
      } else {
        REQUIRE(std::abs(double(tc[k]) - double(cc[k])) <= rel * (1 + std::abs(double(cc[k]))));
      }
    }
  }
}

TEST_CASE("tensor cores: every reduction family against the CUDA-core kernel", "[tensor_cores]") {
  constexpr int D = 40;
  const std::int64_t M = 83, N = 171;
  // Well-separated points (nearest neighbours far apart relative to the TF32
  // bound) so that indices agree exactly: x near a shuffled subset of y.
  const cloud c = make_separated(M, N, D, 303, 53, 7);
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto bs = kops_test::random_vector<float>(std::size_t(N), 0.5, 2, 304);
  const std::vector<float> gs{1.0f / D};
  const auto sq = kops::sqdist(x<D>, y<D>);
  const auto gauss = kops::exp(-g * sq) * b;
  const auto v2 = kops::vj<2, 2>;
  const auto vs = kops_test::random_vector<float>(std::size_t(N) * 2, -1, 1, 305);
  // The exact distance of row i to index j (TF32's bound here: about 0.06).
  const auto exact_sq = [&](std::int64_t i, std::int64_t j) {
    double s = 0;
    for (int k = 0; k < D; ++k) s += (double(xs[i * D + k]) - ys[j * D + k]) * (double(xs[i * D + k]) - ys[j * D + k]);
    return s;
  };

  check_against_off("sum", kops::sum_reduction(gauss, kops::axis_j), M, N, 2e-3, no_near{}, xs.data(), ys.data(), bs.data(), gs.data());
  check_against_off("sum over i", kops::sum_reduction(gauss, kops::axis_i), M, N, 2e-3, no_near{}, xs.data(), ys.data(), bs.data(), gs.data());
  check_against_off("argmin", kops::argmin_reduction(sq, kops::axis_j), M, N, 0, no_near{}, xs.data(), ys.data());
  check_against_off("argmin over i", kops::argmin_reduction(sq, kops::axis_i), M, N, 0.1,
                    [&](std::int64_t j, std::int64_t i) { return exact_sq(i, j); }, xs.data(), ys.data());
  check_against_off("min_argmin", kops::min_argmin_reduction(sq, kops::axis_j), M, N, 2e-2, no_near{}, xs.data(), ys.data());
  check_against_off("argkmin<4>", kops::argkmin_reduction<4>(sq, kops::axis_j), M, N, 0.1, exact_sq, xs.data(), ys.data());
  check_against_off("kmin<3>", kops::kmin_reduction<3>(sq, kops::axis_j), M, N, 2e-2, no_near{}, xs.data(), ys.data());
  check_against_off("logsumexp", kops::logsumexp_reduction(-g * sq, kops::axis_j), M, N, 2e-3, no_near{}, xs.data(), ys.data(),
                    bs.data(), gs.data());
  check_against_off("sumsoftmaxweight", kops::sumsoftmaxweight_reduction(-g * sq, v2, kops::axis_j), M, N, 2e-3, no_near{},
                    xs.data(), ys.data(), vs.data(), gs.data());
  check_against_off("dot, max", kops::max_reduction(kops::dot(x<D>, y<D>) * b, kops::axis_j), M, N, 2e-3, no_near{}, xs.data(),
                    ys.data(), bs.data());
}

// The k smallest on the tensor cores: each step tests its pairs against the
// k-th value first and inserts those that pass afterwards, out of the pair
// loop (tensor_core.hpp: tc_traits::deferred). Small integer coordinates make
// every distance exact in TF32 and fp16 (|x|^2 + |y|^2 - 2 <x, y> of integers
// below 2^11, sums below 2^24), so the result must be exactly the first K of
// a stable sort of the exact distances: ties in index order. Cases: many
// equal distances (coordinates in {0, 1, 2}), and distances that decrease
// along the axis (every term enters, several per step and lane), both axes.
template <class T, int K>
void check_kmin_exact(const std::vector<double>& xd, const std::vector<double>& yd, std::int64_t M, std::int64_t N,
                      int D, const char* what) {
  const auto xs = cast<T>(xd), ys = cast<T>(yd);
  const auto dist = [&](std::int64_t i, std::int64_t j) {
    double s = 0;
    for (int k = 0; k < D; ++k) s += (xd[i * D + k] - yd[j * D + k]) * (xd[i * D + k] - yd[j * D + k]);
    return s;
  };
  // The first K of a stable sort of row r's distances over the other axis.
  const auto expected = [&](bool over_j, std::int64_t r) {
    const std::int64_t n = over_j ? N : M;
    std::vector<std::int64_t> idx(std::size_t(n), 0);
    for (std::int64_t j = 0; j < n; ++j) idx[std::size_t(j)] = j;
    std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) {
      return over_j ? dist(r, a) < dist(r, b) : dist(a, r) < dist(b, r);
    });
    idx.resize(K);
    return idx;
  };
  constexpr int Dc = 48;
  REQUIRE(D == Dc);
  const auto sq = kops::sqdist(x<Dc>, y<Dc>);
  for (const bool over_j : {true, false}) {
    const auto run_axis = [&](auto red) {
      static_assert(takes_tc<precision::fast, T>(red));
      const std::int64_t rows = over_j ? M : N;
      for (const auto& sc : schemes) {
        std::vector<std::int64_t> got(std::size_t(rows) * K, -1);
        run<precision::fast>(red, M, N, got.data(), sc.s, sc.chunk, xs.data(), ys.data());
        for (std::int64_t r = 0; r < rows; ++r) {
          INFO(what << (over_j ? " over j" : " over i") << ", row " << r << ", scheme " << int(sc.s) << " chunk "
                    << sc.chunk);
          const auto want = expected(over_j, r);
          for (int k = 0; k < K; ++k) REQUIRE(got[std::size_t(r * K + k)] == want[std::size_t(k)]);
        }
      }
    };
    if (over_j) run_axis(kops::argkmin_reduction<K>(sq, kops::axis_j));
    else run_axis(kops::argkmin_reduction<K>(sq, kops::axis_i));
  }
}

TEST_CASE("tensor cores: k smallest, exact distances, ties in index order", "[tensor_cores]") {
  constexpr int D = 48;
  const std::int64_t M = 37, N = 300;  // 300: five steps of 64, the last one partial
  // Many ties: coordinates in {0, 1, 2}.
  std::vector<double> xd(std::size_t(M) * D), yd(std::size_t(N) * D);
  const auto rx = kops_test::random_vector<double>(xd.size(), 0, 3, 501), ry = kops_test::random_vector<double>(yd.size(), 0, 3, 502);
  for (std::size_t k = 0; k < xd.size(); ++k) xd[k] = std::floor(rx[k]) > 2 ? 2 : std::floor(rx[k]);
  for (std::size_t k = 0; k < yd.size(); ++k) yd[k] = std::floor(ry[k]) > 2 ? 2 : std::floor(ry[k]);
  for (std::int64_t j = 100; j < 140; ++j)  // exact copies of earlier points
    for (int k = 0; k < D; ++k) yd[std::size_t(j * D + k)] = yd[std::size_t((j % 7) * D + k)];
  check_kmin_exact<float, 8>(xd, yd, M, N, D, "ties, float");
  check_kmin_exact<kops::half, 8>(xd, yd, M, N, D, "ties, half");
  // Decreasing distances along both axes: y_j's first coordinate N - j, x_i's
  // -(M - i) (every new term is nearer than all before it: all enter).
  std::fill(xd.begin(), xd.end(), 0.0);
  std::fill(yd.begin(), yd.end(), 0.0);
  for (std::int64_t i = 0; i < M; ++i) xd[std::size_t(i * D)] = -double(M - i);
  for (std::int64_t j = 0; j < N; ++j) yd[std::size_t(j * D)] = double(N - j);
  check_kmin_exact<float, 8>(xd, yd, M, N, D, "decreasing, float");
  check_kmin_exact<kops::half, 4>(xd, yd, M, N, D, "decreasing, half");
}

// A long reduced axis: block sums flushed mid-range (every 1024 terms of a
// lane's quarter: N > 4 * 1024), GPU_1D and GPU_2D.
TEST_CASE("tensor cores: a long reduced axis, block sums flushed", "[tensor_cores]") {
  constexpr int D = 64;
  const std::int64_t M = 16, N = 4500;
  cloud c = make_cloud(M, N, D, 0.0, 606);
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto bs = kops_test::random_vector<float>(std::size_t(N), 0.5, 2, 607);
  const std::vector<float> gs{1.0f / D};
  const auto red = kops::sum_reduction(kops::exp(-g * kops::sqdist(x<D>, y<D>)) * b, kops::axis_j);
  check_against_off("long sum", red, M, N, 2e-3, no_near{}, xs.data(), ys.data(), bs.data(), gs.data());
#if !defined(KOPS_TEST_FEWER)
  check_against_off<kops::sum_scheme::direct>("long sum, direct", red, M, N, 2e-3, no_near{}, xs.data(), ys.data(),
                                              bs.data(), gs.data());
  check_against_off<kops::sum_scheme::kahan>("long sum, kahan", red, M, N, 2e-3, no_near{}, xs.data(), ys.data(), bs.data(), gs.data());
#endif
}

// precision::accurate in float: 3xTF32 dot products, close to the CUDA cores'
// fp32 (the bound with u_op = 3 2^-22), against a double loop; D = 48 keeps
// the rows' fragments in registers, D = 72 walks them in chunks.
template <int D>
void check_3xtf32(std::int64_t M, std::int64_t N) {
  cloud c = make_cloud(M, N, D, 0.0, 404);
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto bs = kops_test::random_vector<float>(std::size_t(N), -1, 1, 405);
  const auto red = kops::sum_reduction(kops::dot(x<D>, y<D>) * b, kops::axis_j);
  static_assert(takes_tc<precision::accurate, float>(red));
  for (const auto& sc : schemes) {
    std::vector<float> out(static_cast<std::size_t>(M));
    run<precision::accurate>(red, M, N, out.data(), sc.s, sc.chunk, xs.data(), ys.data(), bs.data());
    for (std::int64_t i = 0; i < M; ++i) {
      double exact = 0, bound = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        double p = 0, pa = 0;
        for (int k = 0; k < D; ++k) {
          p += double(xs[i * D + k]) * ys[j * D + k];
          pa += std::abs(double(xs[i * D + k]) * ys[j * D + k]);
        }
        exact += p * bs[j];
        // each inner product within its bound, then N products and sums in fp32
        bound += ((6.0 / (1 << 22) + (D + 2) * u24) * pa + (N + 2) * u24 * std::abs(p)) * std::abs(double(bs[j]));
      }
      INFO("D " << D << " row " << i << " scheme " << int(sc.s));
      REQUIRE(std::abs(double(out[i]) - exact) <= bound);
    }
  }
}

TEST_CASE("tensor cores: 3xTF32 dot products under precision::accurate", "[tensor_cores]") {
  check_3xtf32<48>(50, 97);
  check_3xtf32<72>(50, 97);
}

// A weighted distance (the diagonal weighted_sqdist, w y in the MMA) and a
// batched call (the batch on the grid's z axis, the same kernel body).
// min_j of the diagonal weighted distance within its bound (D = 33: the
// staging reads element by element; 36: vector loads, the last k-step past D).
template <int D>
void check_weighted(std::int64_t M, std::int64_t N) {
  cloud c = make_cloud(M, N, D, 0.0, 505);
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto ws = kops_test::random_vector<float>(std::size_t(D), 0.5, 2, 506);
  const auto wd = kops::min_reduction(kops::weighted_sqdist(kops::pm<2, D>, x<D>, y<D>), kops::axis_j);
  static_assert(takes_tc<precision::fast, float>(wd));
  for (const auto& sc : schemes) {
    std::vector<float> out(static_cast<std::size_t>(M));
    run<precision::fast>(wd, M, N, out.data(), sc.s, sc.chunk, xs.data(), ys.data(), ws.data());
    for (std::int64_t i = 0; i < M; ++i) {
      double best = std::numeric_limits<double>::infinity(), bound = 0;
      for (std::int64_t j = 0; j < N; ++j) {
        double s = 0, nx = 0, ny = 0;
        for (int k = 0; k < D; ++k) {
          const double xv = xs[i * D + k], yv = ys[j * D + k], w = ws[k];
          s += w * (xv - yv) * (xv - yv);
          nx += w * xv * xv;
          ny += w * yv * yv;
        }
        best = std::min(best, s);
        // w y rounded to fp32 before TF32: one more u24 on the product
        bound = std::max(bound, (4 * u_tf32 + (2 * D + 6) * u24) * (std::abs(nx) + std::abs(ny)));
      }
      INFO("D " << D << " row " << i << " scheme " << int(sc.s));
      REQUIRE(std::abs(double(out[i]) - best) <= bound);
    }
  }
}

TEST_CASE("tensor cores: weighted distances and batches", "[tensor_cores]") {
  check_weighted<36>(45, 66);
  constexpr int D = 33;
  const std::int64_t M = 45, N = 66;
  cloud c = make_cloud(M, N, D, 0.0, 505);
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto ws = kops_test::random_vector<float>(std::size_t(D), 0.5, 2, 506);
  const auto wd = kops::min_reduction(kops::weighted_sqdist(kops::pm<2, D>, x<D>, y<D>), kops::axis_j);
  check_weighted<D>(M, N);

  // A negative weight: the weighted form is not a distance then, and is not
  // clamped at 0 (tc_term): the tensor-core result follows the CUDA cores'.
  auto wn = ws;
  for (int k = 0; k < 12; ++k) wn[std::size_t(k)] = -2.0f;
  for (const auto& sc : schemes) {
    std::vector<float> tc(static_cast<std::size_t>(M)), cc(static_cast<std::size_t>(M));
    run<precision::fast>(wd, M, N, tc.data(), sc.s, sc.chunk, xs.data(), ys.data(), wn.data());
    run<precision::fast, tensor_cores::off>(wd, M, N, cc.data(), sc.s, sc.chunk, xs.data(), ys.data(), wn.data());
    bool some_negative = false;
    for (std::int64_t i = 0; i < M; ++i) {
      INFO("negative weight, row " << i << " scheme " << int(sc.s));
      some_negative = some_negative || cc[i] < 0;
      REQUIRE(std::abs(double(tc[i]) - double(cc[i])) <= 2e-2 * (1 + std::abs(double(cc[i]))));
    }
    REQUIRE(some_negative);  // the case the clamp would get wrong is there
  }

  // Three problems in one launch, x per batch, y shared.
  constexpr int E = 32;
  const int B = 3;
  const std::int64_t Mb = 21, Nb = 40;
  const auto xb = kops_test::random_vector<float>(std::size_t(B * Mb * E), -1, 1, 507);
  const auto yb = kops_test::random_vector<float>(std::size_t(Nb * E), -1, 1, 508);
  const auto red = kops::argmin_reduction(kops::sqdist(kops::vi<0, E>, kops::vj<1, E>), kops::axis_j);
  std::vector<std::int64_t> batched(std::size_t(B * Mb), -1), each(std::size_t(Mb), -1);
  kops::cuda::eval_host<precision::fast>(red, Mb, Nb, batched.data(), kops::per_batch(xb.data()), yb.data(),
                                         kops::batch{B});
  for (int k = 0; k < B; ++k) {
    run<precision::fast>(red, Mb, Nb, each.data(), scheme::gpu_1d, 0, xb.data() + k * Mb * E, yb.data());
    for (std::int64_t i = 0; i < Mb; ++i) REQUIRE(batched[std::size_t(k * Mb + i)] == each[std::size_t(i)]);
  }
}

// The chunked walk of wide rows against the CUDA-core kernel: every chunk
// boundary, the last chunk partial, sums and indices.
TEST_CASE("tensor cores: wide rows in chunks against the CUDA-core kernel", "[tensor_cores]") {
  constexpr int D = 520;
  const std::int64_t M = 140, N = 77;
  const cloud c = make_separated(M, N, D, 707, 31, 5);
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto bs = kops_test::random_vector<float>(std::size_t(N), 0.5, 2, 708);
  const std::vector<float> gs{1.0f / D};
  const auto sq = kops::sqdist(x<D>, y<D>);
  static_assert(!d::tc_traits<d::pass_traits_t<kops::detail::policy_of_t<precision::fast>,
                                                decltype(kops::argmin_reduction(sq, kops::axis_j)), float, std::int64_t>,
                              precision::fast>::cache_rows);
  check_against_off("wide sum", kops::sum_reduction(kops::exp(-g * sq) * b, kops::axis_j), M, N, 2e-3, no_near{},
                    xs.data(), ys.data(), bs.data(), gs.data());
  check_against_off("wide argmin", kops::argmin_reduction(sq, kops::axis_j), M, N, 0, no_near{}, xs.data(), ys.data());
  // (the largest inner product: a sum of signed ones would cancel below TF32's bound)
  check_against_off("wide dot, max over i", kops::max_reduction(kops::dot(x<D>, y<D>), kops::axis_i), M, N, 2e-3,
                    no_near{}, xs.data(), ys.data());
}

// The automatic scheme on the tensor-core traits: a plan with several GPU_2D
// chunks makes launch.hpp estimate both schemes for its 128-row blocks.
TEST_CASE("tensor cores: the automatic scheme estimates the tensor-core kernel's grids", "[tensor_cores]") {
  constexpr int D = 32;
  const std::int64_t M = 100, N = 3000;
  cloud c = make_cloud(M, N, D, 0.0, 808);
  const auto xs = cast<float>(c.x), ys = cast<float>(c.y);
  const auto red = kops::min_reduction(kops::sqdist(x<D>, y<D>), kops::axis_j);
  using TK = d::tc_traits<d::pass_traits_t<kops::detail::policy_of_t<precision::fast>, decltype(red), float, float>,
                          precision::fast>;
  const auto plan = d::plan_launch<TK>(M, N, kops::cuda::options{}, "test");
  REQUIRE(plan.plan.chunks >= 2);
  std::vector<float> tc(static_cast<std::size_t>(M)), cc(static_cast<std::size_t>(M));
  run<precision::fast>(red, M, N, tc.data(), scheme::automatic, 0, xs.data(), ys.data());
  run<precision::fast, tensor_cores::off>(red, M, N, cc.data(), scheme::automatic, 0, xs.data(), ys.data());
  for (std::int64_t i = 0; i < M; ++i) REQUIRE(std::abs(double(tc[i]) - double(cc[i])) <= 2e-2 * (1 + double(cc[i])));
}

} // namespace
