// kops::cuda::eval_host past its device memory budget (streamed.hpp): with
// options::max_device_bytes far below the data, every reduction family is
// streamed in many pieces and row blocks (sizes no multiple of anything) and
// compared with the resident call (GPU_2D with the same chunk: the same bits
// where the combine is exact, the summation-order tolerance for sums) and
// with double references; the forms that are not streamed, a budget too
// small for one row, and a capturing stream are refused. Under the
// emulator's device-memory cap (ctest emulated_stream_memory_cap), a call
// whose arguments alone exceed the device runs streamed with the default
// budget.
#include "cuda_support.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using namespace kops_test;
using Catch::Matchers::Contains;

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto d2 = kops::sqdist(x, y);
constexpr std::int64_t chunk = 32;

template <class T>
struct cloud {
  std::vector<T> px, py, pb, pg, pe;
  cloud(std::int64_t M, std::int64_t N)
      : px(random_vector<T>(std::size_t(M * 3), -1, 1, 1)), py(random_vector<T>(std::size_t(N * 3), -1, 1, 2)),
        pb(random_vector<T>(std::size_t(N), -1, 1, 3)), pg{T(0.7)}, pe(random_vector<T>(std::size_t(M), -1, 1, 4)) {}
};

// Equal values: the same bits (tol < 0), or within tol relative to 1 + |want|.
inline bool close(double a, double want, double tol) {
  if (tol < 0) return std::memcmp(&a, &want, sizeof a) == 0;
  return std::abs(a - want) <= tol * (1 + std::abs(want));
}
template <class T>
bool same(const T& a, const T& want, double tol) {
  if constexpr (std::is_integral_v<T>) return a == want;
  else return close(double(a), double(want), tol);
}
template <class T>
bool same(const kops::value_index<T>& a, const kops::value_index<T>& want, double tol) {
  return a.index == want.index && close(double(a.value), double(want.value), tol);
}

template <class Out>
void check_same(const std::vector<Out>& got, const std::vector<Out>& want, double tol) {
  std::size_t bad = 0;
  for (std::size_t k = 0; k < got.size(); ++k) bad += !same(got[k], want[k], tol);
  INFO("elements " << got.size());
  CHECK(bad == 0);
}

// The call resident (GPU_2D, chunks of `chunk`) and streamed through `budget`
// bytes (and `devices`), same chunk: the streamed output, after checking it
// against the resident one (tol < 0: the same bits) and that it came in at
// least `pieces` pieces.
template <class Out, auto... Pol, class Red, class... A>
std::vector<Out> streamed_vs_resident(Red red, std::int64_t M, std::int64_t N, double tol, std::int64_t budget,
                                      unsigned long long pieces, kops::cuda::device_list devices, const A*... args) {
  const std::int64_t rows = Red::row_cat == kops::category::i ? M : N;
  std::vector<Out> resident(std::size_t(rows * kops::out_stride_v<Red>)), streamed(resident.size());
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_2d;
  o.gpu_2d_chunk = chunk;
  kops::cuda::eval_host<Pol...>(red, M, N, resident.data(), args..., o);
  o.max_device_bytes = budget;
  o.devices = devices;
  const unsigned long long before = kops::cuda::detail::streamed_pieces();
  kops::cuda::eval_host<Pol...>(red, M, N, streamed.data(), args..., o);
  CHECK(kops::cuda::detail::streamed_pieces() - before >= pieces);
  check_same(streamed, resident, tol);
  return streamed;
}

template <class Out, auto... Pol, class Red, class T>
std::vector<Out> streamed(Red red, const cloud<T>& c, std::int64_t M, std::int64_t N, double tol,
                          std::int64_t budget = 8 << 10, unsigned long long pieces = 8,
                          kops::cuda::device_list devices = {}) {
  return streamed_vs_resident<Out, Pol...>(red, M, N, tol, budget, pieces, devices, c.px.data(), c.py.data(),
                                           c.pb.data(), c.pg.data());
}

// out[i] = sum_j exp(-g |x_i - y_j|^2) b_j, in double.
template <class T>
std::vector<double> gauss_reference(const cloud<T>& c, std::int64_t M, std::int64_t N) {
  std::vector<double> out(static_cast<std::size_t>(M));
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += std::pow(double(c.px[i * 3 + k]) - double(c.py[j * 3 + k]), 2);
      out[std::size_t(i)] += std::exp(-double(c.pg[0]) * s) * double(c.pb[std::size_t(j)]);
    }
  return out;
}

// |x_i - y_j|^2 - g b_j, in double.
template <class T>
double argmin_term(const cloud<T>& c, std::int64_t i, std::int64_t j) {
  double s = 0;
  for (int k = 0; k < 3; ++k) s += std::pow(double(c.px[i * 3 + k]) - double(c.py[j * 3 + k]), 2);
  return s - double(c.pg[0]) * double(c.pb[std::size_t(j)]);
}

// idx[i] is a global index whose term is the row's minimum (in double, up to
// float rounding: near-ties may pick either).
template <class T>
void check_argmin(const cloud<T>& c, std::int64_t M, std::int64_t N, const std::vector<std::int64_t>& idx) {
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < M; ++i) {
    double best = std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < N; ++j) best = std::min(best, argmin_term(c, i, j));
    const std::int64_t j = idx[std::size_t(i)];
    bad += j < 0 || j >= N || argmin_term(c, i, j) > best + 1e-5;
  }
  CHECK(bad == 0);
}

constexpr auto gauss = kops::sum_reduction(kops::exp(-g * d2) * b, kops::axis_j);

TEST_CASE("streamed: every reduction family through a budget far below the data", "[streamed]") {
  const std::int64_t M = 201, N = 1003;  // 16 KB of y and b through 8 KiB: ~9 pieces, 5 row blocks
  const cloud<float> c(M, N);
  const auto sum = streamed<float>(gauss, c, M, N, 1e-5);
  const auto want = gauss_reference(c, M, N);
  std::vector<float> wantf(want.begin(), want.end());
  check_same(sum, wantf, 1e-5);
  check_same(streamed<float, kops::dtype_acc::float64>(gauss, c, M, N, 1e-6), wantf, 1e-5);
  check_same(streamed<float, kops::sum_scheme::kahan>(gauss, c, M, N, 1e-6), wantf, 1e-5);
  const auto am = streamed<std::int64_t>(kops::argmin_reduction(d2 - g * b, kops::axis_j), c, M, N, -1);
  check_argmin(c, M, N, am);  // global indices
  (void)streamed<kops::value_index<float>>(kops::min_argmin_reduction(d2 - g * b, kops::axis_j), c, M, N, -1);
  (void)streamed<kops::value_index<float>>(kops::max_argmax_reduction(d2 - g * b, kops::axis_i), c, M, N, -1);
  (void)streamed<std::int64_t>(kops::argkmin_reduction<3>(d2 - g * b, kops::axis_j), c, M, N, -1);
  (void)streamed<float>(kops::kmin_reduction<4>(d2 - g * b, kops::axis_j), c, M, N, -1);
  (void)streamed<float>(kops::min_reduction(d2 - g * b, kops::axis_i), c, M, N, -1);
  (void)streamed<float>(kops::logsumexp_reduction(-g * d2 + b, kops::axis_j), c, M, N, 1e-5);
  (void)streamed<float>(kops::sumsoftmaxweight_reduction(-g * d2, b, kops::axis_j), c, M, N, 1e-5);
  // The reduced axis is i: x streamed, y and b in row blocks.
  (void)streamed<float>(kops::sum_reduction(kops::exp(-g * d2) * b, kops::axis_i), c, M, N, 1e-5, 8 << 10, 4);
}

TEST_CASE("streamed: double, a two-pass gradient and a wide output", "[streamed]") {
  const std::int64_t M = 97, N = 1301;
  const cloud<double> c(M, N);
  const auto sum = streamed<double>(gauss, c, M, N, 1e-13, 16 << 10);
  check_same(sum, gauss_reference(c, M, N), 1e-12);
  // The gradient's first pass (rows i) lands in host memory and is streamed
  // into the second (rows j) as an argument.
  constexpr auto lse = kops::logsumexp_reduction(-g * d2 + b, kops::axis_j);
  constexpr auto dy = kops::grad(lse, y, kops::vi<4, 1>);
  (void)streamed_vs_resident<double>(dy, M, N, 1e-12, 16 << 10, 8, {}, c.px.data(), c.py.data(), c.pb.data(),
                                     c.pg.data(), c.pe.data());
  // 70 components: one streamed pass with whole rows of accumulators (the
  // resident call runs passes of 32, 32 and 6 components).
  constexpr auto w = kops::vj<4, 70>;
  const auto pw = random_vector<double>(std::size_t(N * 70), -1, 1, 5);
  (void)streamed_vs_resident<double>(kops::sum_reduction(kops::exp(-g * d2) * w, kops::axis_j), M, N, 1e-12,
                                     256 << 10, 8, {}, c.px.data(), c.py.data(), c.pb.data(), c.pg.data(), pw.data());
}

TEST_CASE("streamed: what cannot be streamed is refused", "[streamed][errors]") {
  const std::int64_t M = 40, N = 300;
  const cloud<float> c(M, N);
  std::vector<float> out(static_cast<std::size_t>(M));
  kops::cuda::options o;
  o.max_device_bytes = 100;
  REQUIRE_THROWS_WITH(
      kops::cuda::eval_host(gauss, M, N, out.data(), c.px.data(), c.py.data(), c.pb.data(), c.pg.data(), o),
      Contains("kops::cuda::eval_host: the device memory the call may use is too small to stream it, expected at "
               "least") &&
          Contains("given 100"));
  o.max_device_bytes = -1;
  REQUIRE_THROWS_WITH(
      kops::cuda::eval_host(gauss, M, N, out.data(), c.px.data(), c.py.data(), c.pb.data(), c.pg.data(), o),
      Contains("options::max_device_bytes is negative, expected 0 (what the device has free) or a byte count, "
               "given -1"));
  o.max_device_bytes = 2048;
  const kops::range rows_all{0, M}, cols_all{0, N};
  const std::int64_t one = 1;
  REQUIRE_THROWS_WITH(kops::cuda::eval_host(gauss, M, N, out.data(), c.px.data(), c.py.data(), c.pb.data(),
                                            c.pg.data(), kops::block_sparsity{&rows_all, 1, &one, &cols_all}, o),
                      Contains("more than 3/4 of the 2048 the call may use") &&
                          Contains("a block-sparse call is not streamed"));
  // A capturing stream: refused before anything is queued.
  cudaStream_t st = nullptr;
  REQUIRE(cudaStreamCreate(&st) == cudaSuccess);
  o.stream = st;
  REQUIRE(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE_THROWS_WITH(
      kops::cuda::eval_host(gauss, M, N, out.data(), c.px.data(), c.py.data(), c.pb.data(), c.pg.data(), o),
      Contains("waits on the host for its staging buffers, which a stream under capture"));
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(st, &graph) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(st) == cudaSuccess);
}

TEST_CASE("streamed: few rows split the reduced axis across two (or three) devices", "[streamed][devices]") {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  if (count < 2) {
    WARN("one device: nothing to split");
    return;
  }
  const std::int64_t M = 7, N = 1003;
  const cloud<float> c(M, N);
  const std::int64_t all = std::int64_t(1) << 30;  // every device holds its slice: one piece each
  std::vector<kops::cuda::device_list> lists{{0, 1}, {1, 0}};
  if (count >= 3) lists.push_back({2, 0, 1});
  for (const auto& dl : lists) {
    INFO("devices " << dl.count);
    const auto pieces = (unsigned long long)dl.count;
    const auto sum = streamed<float>(gauss, c, M, N, 1e-5, all, pieces, dl);
    const auto want = gauss_reference(c, M, N);
    check_same(sum, std::vector<float>(want.begin(), want.end()), 1e-5);
    const auto am = streamed<std::int64_t>(kops::argmin_reduction(d2 - g * b, kops::axis_j), c, M, N, -1, all,
                                           pieces, dl);
    check_argmin(c, M, N, am);
    (void)streamed<kops::value_index<float>>(kops::min_argmin_reduction(d2 - g * b, kops::axis_j), c, M, N, -1,
                                             all, pieces, dl);
    (void)streamed<std::int64_t>(kops::argkmin_reduction<3>(d2 - g * b, kops::axis_j), c, M, N, -1, all, pieces,
                                 dl);
    (void)streamed<float>(kops::logsumexp_reduction(-g * d2 + b, kops::axis_j), c, M, N, 1e-5, all, pieces, dl);
    // Each device's slice streamed through a small budget too.
    (void)streamed<float>(gauss, c, M, N, 1e-5, 4 << 10, 4 * pieces, dl);
  }
}

TEST_CASE("streamed: arguments larger than the emulated device run with the default budget", "[.stream_cap]") {
  const std::int64_t M = 64, N = 90001;  // y and b: 1.44 MB, the device 1 MiB
  const cloud<float> c(M, N);
  std::vector<float> out(static_cast<std::size_t>(M));
  std::vector<std::int64_t> idx(static_cast<std::size_t>(M));
  const unsigned long long before = kops::cuda::detail::streamed_pieces();
  kops::cuda::eval_host(gauss, M, N, out.data(), c.px.data(), c.py.data(), c.pb.data(), c.pg.data());
  CHECK(kops::cuda::detail::streamed_pieces() - before >= 2);
  const auto want = gauss_reference(c, M, N);
  check_same(out, std::vector<float>(want.begin(), want.end()), 1e-4);
  kops::cuda::eval_host(kops::argmin_reduction(d2 - g * b, kops::axis_j), M, N, idx.data(), c.px.data(),
                        c.py.data(), c.pb.data(), c.pg.data());
  check_argmin(c, M, N, idx);
}

} // namespace
