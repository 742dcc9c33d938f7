// The tuned variants of the dense GPU kernels (kernel_traits.hpp: tuning<R, B>,
// R output rows per thread, B threads per block; block_reduce.hpp: fold_rows;
// gpu_1d.hpp: reduce_rows), reached through kops::cuda::detail::eval_tuned,
// against the default kernel (tuning<1, 192>) and a double loop
// (reference_eval), GPU_1D and GPU_2D, on every reduction family the register
// blocking covers. Row counts leave tails: B * R * 3 + 5 rows (a last block
// whose threads own 1 to R valid rows), B + 3 (the second row of a thread past
// the end in most threads) and 7 (fewer rows than threads).
//
// The variants walk each row's terms in the default's order: with B = 192
// (the default's tile and flush points) every output is bit-for-bit the
// default's; another B moves a block sum's flush points (tile = B), so sums
// then agree within rounding (1e-12 relative in double), values and indices of
// min / argmin / argkmin still exactly.
#include "cuda_support.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace {

namespace d = kops::cuda::detail;
using kops::cuda::scheme;

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
template <int W>
constexpr auto b = kops::vj<2, W>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto gauss = kops::exp(-g * kops::sqdist(x, y));

// An output as doubles and indices: a value_index as both, an index as one.
struct flat_out {
  std::vector<double> val;
  std::vector<std::int64_t> idx;
};
template <class O>
flat_out flatten(const std::vector<O>& v) {
  flat_out f;
  for (const O& o : v) {
    if constexpr (requires { o.index; }) {
      f.val.push_back(double(o.value));
      f.idx.push_back(o.index);
    } else if constexpr (std::is_integral_v<O>) {
      f.idx.push_back(o);
    } else {
      f.val.push_back(double(o));
    }
  }
  return f;
}

// The problem's host arrays: x (M, 3), y (N, 3), b (N, W), g; the first
// Red::nargs of them are the call's arguments.
template <class T>
using problem = std::array<std::vector<T>, 4>;

template <class T, int W>
problem<T> make_problem(std::int64_t M, std::int64_t N) {
  return {kops_test::random_vector<T>(std::size_t(M) * 3, -1, 1, 11),
          kops_test::random_vector<T>(std::size_t(N) * 3, -1, 1, 12),
          kops_test::random_vector<T>(std::size_t(N) * W, 0.5, 2, 13), std::vector<T>{T(1.5)}};
}

template <class Tune, class T, class Red, std::size_t... I>
flat_out run_tuned(Red red, scheme s, std::int64_t M, std::int64_t N, const problem<T>& p,
                   std::index_sequence<I...>) {
  using Out = typename Red::op::template out_t<T>;
  const std::int64_t rows = M;  // axis_j: the rows are the i's
  std::array<kops_test::device_copy<T>*, sizeof...(I)> dev{new kops_test::device_copy<T>(p[I])...};
  kops_test::device_copy<Out> out(std::size_t(rows) * Red::dim);
  kops::cuda::options o;
  o.scheme = s;
  o.gpu_2d_chunk = 37;  // the same GPU_2D chunks for every tuning: several per row, none a whole tile
  d::eval_tuned<Tune, kops::precision::accurate>(red, M, N, out.p, static_cast<const T*>(dev[I]->p)..., o);
  flat_out f = flatten(out.to_host());
  for (auto* c : dev) delete c;
  return f;
}

template <class T, class Red, std::size_t... I>
flat_out run_reference(Red red, std::int64_t M, std::int64_t N, const problem<T>& p, std::index_sequence<I...>) {
  std::vector<typename Red::op::template out_t<double>> out(std::size_t(M) * Red::dim);
  kops_test::reference_eval<double>(red, M, N, out.data(), p[I].data()...);
  return flatten(out);
}

// |a - b| <= tol * max(1, |b|), element by element; indices equal.
void require_close(const flat_out& got, const flat_out& want, double tol, const char* against) {
  REQUIRE(got.val.size() == want.val.size());
  REQUIRE(got.idx == want.idx);
  for (std::size_t e = 0; e < got.val.size(); ++e) {
    INFO(against << ": element " << e << " got " << got.val[e] << " expected " << want.val[e]);
    if (tol == 0) REQUIRE(got.val[e] == want.val[e]);
    else REQUIRE(std::abs(got.val[e] - want.val[e]) <= tol * std::max(1.0, std::abs(want.val[e])));
  }
}

// Red (over axis_j, arguments x, y, b of width W, g) with tuning Tune, against
// the default kernel and the double loop, on the row counts of the file comment.
// Sum: a sum-type family (exact only with the default's tile, B = 192).
template <class Tune, class T, int W, bool Sum, class Red>
void check_variant(Red red) {
  constexpr int R = Tune::rows, B = Tune::threads;
  using K = d::pass_traits_t<kops::detail::call_policy_t<Red, T, kops::precision::accurate>, Red, T,
                             typename Red::op::template out_t<T>, Tune>;
  STATIC_REQUIRE(K::rows_per_thread == R);  // covered: no fallback to one row per thread
  STATIC_REQUIRE(K::block == B);
  const double tol_ref = std::is_same_v<T, double> ? 1e-12 : 2e-5;
  const double tol_default = !Sum || B == 192 ? 0.0 : tol_ref;
  const std::int64_t N = 300;  // two tiles and a part at every B (tile = B)
  for (const std::int64_t M : {std::int64_t(B) * R * 3 + 5, std::int64_t(B) + 3, std::int64_t(7)}) {
    const problem<T> p = make_problem<T, W>(M, N);
    const auto args = std::make_index_sequence<Red::nargs>{};
    const flat_out ref = run_reference<T>(red, M, N, p, args);
    for (const scheme s : {scheme::gpu_1d, scheme::gpu_2d}) {
      INFO("R=" << R << " B=" << B << " rows=" << M << " cols=" << N << (s == scheme::gpu_1d ? " GPU_1D" : " GPU_2D"));
      const flat_out got = run_tuned<Tune, T>(red, s, M, N, p, args);
      require_close(got, run_tuned<d::default_tuning, T>(red, s, M, N, p, args), tol_default, "default kernel");
      require_close(got, ref, tol_ref, "double loop");
    }
  }
}

// Every variant of the set (R = 2, 4 at the default 192 threads; R = 2, 4 at
// 128 and 256 threads; one row per thread at 64 threads).
template <class T, int W, bool Sum, class Red>
void check_variants(Red red) {
  check_variant<d::tuning<2, 192>, T, W, Sum>(red);
  check_variant<d::tuning<4, 192>, T, W, Sum>(red);
  check_variant<d::tuning<2, 128>, T, W, Sum>(red);
  check_variant<d::tuning<4, 256>, T, W, Sum>(red);
  check_variant<d::tuning<1, 64>, T, W, Sum>(red);
}

} // namespace

TEST_CASE("tuned GPU kernels: the Gaussian sum", "[cuda][tuning]") {
  check_variants<double, 1, true>(kops::sum_reduction(gauss * b<1>, kops::axis_j));
  check_variants<float, 1, true>(kops::sum_reduction(gauss * b<1>, kops::axis_j));
}

TEST_CASE("tuned GPU kernels: a 16-wide sum", "[cuda][tuning]") {
  check_variants<double, 16, true>(kops::sum_reduction(gauss * b<16>, kops::axis_j));
}

TEST_CASE("tuned GPU kernels: min_argmin and argkmin", "[cuda][tuning]") {
  check_variants<double, 1, false>(kops::min_argmin_reduction(x - y, kops::axis_j));
  check_variants<double, 1, false>(kops::argkmin_reduction<3>(kops::sqdist(x, y), kops::axis_j));
}

TEST_CASE("tuned GPU kernels: logsumexp and sumsoftmaxweight", "[cuda][tuning]") {
  check_variants<double, 1, true>(kops::logsumexp_reduction(-g * kops::sqdist(x, y) + b<1>, kops::axis_j));
  check_variants<float, 1, true>(kops::logsumexp_reduction(-g * kops::sqdist(x, y) + b<1>, kops::axis_j));
  check_variants<double, 4, true>(kops::sumsoftmaxweight_reduction(-g * kops::sqdist(x, y), b<4>, kops::axis_j));
}

TEST_CASE("tuned GPU kernels: uncovered paths fall back to one row per thread", "[cuda][tuning]") {
  // A sum as wide as KOPS_GPU_OUTPUT_CHUNK_MIN_DIM runs in final chunks
  // (final_chunks.hpp), one row's state per thread: R falls back to 1, B stays.
  constexpr int W = KOPS_GPU_OUTPUT_CHUNK_MIN_DIM;
  using Red = decltype(kops::sum_reduction(gauss * b<W>, kops::axis_j));
  using K = d::pass_traits_t<kops::detail::policy_of_t<>, Red, float, float, d::tuning<4, 128>>;
  STATIC_REQUIRE(K::final_chunks);
  STATIC_REQUIRE(K::rows_per_thread == 1);
  STATIC_REQUIRE(K::block == 128);
  STATIC_REQUIRE(K::block_rows == 128);
  // The default tuning is today's kernel: 192 threads, one row each.
  using K0 = d::pass_traits_t<kops::detail::policy_of_t<>, Red, float, float>;
  STATIC_REQUIRE(std::is_same_v<K0, d::pass_traits_t<kops::detail::policy_of_t<>, Red, float, float, d::default_tuning>>);
  STATIC_REQUIRE(K0::block == 192);
  STATIC_REQUIRE(K0::rows_per_thread == 1);
}
