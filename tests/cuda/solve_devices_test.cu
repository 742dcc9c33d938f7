// kops::cuda::solve_host across devices (options::devices): CG runs on the
// first device listed, and each iteration's product K p is an eval_host split
// across all of them (through the host): by output rows when there are at
// least 256 per device (host.hpp's split_rows; each row reduced as on one
// device, so with a fixed scheme the solve gives the one-device solve's
// bytes), else along the reduced axis (streamed.hpp: the same solution up to
// summation order), as with the automatic scheme. The emulator has two devices by default
// (KOPS_EMULATED_DEVICES).
#include "cuda_support.hpp"

#include <kops/backends/cuda/solve.hpp>

namespace {

using namespace kops_test;

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto a = kops::vj<2, 2>;
constexpr auto K = kops::sum_reduction(kops::exp(-kops::sqdist(x, y) * kops::cst<2>) * a, kops::axis_j);
constexpr std::int64_t n = 45;         // few rows: the products split their reduced axis
constexpr std::int64_t n_rows = 600;   // >= 256 rows per device: the products split their rows
// alpha Id + K: alpha sets only how many CG iterations a solve takes (double, 10: 23
// on the 600 rows, 11 on the 45; 0.5 took 73 and 27, and this test 76 s of
// the TSan run's emulated CPU, times two with three devices).
constexpr double alpha = 10;

template <class T>
std::pair<std::vector<T>, kops::solve_result> solve_on(kops::cuda::device_list devices, kops::cuda::scheme scheme,
                                                       std::int64_t n = ::n) {
  const auto px = random_vector<T>(n * 3, 0, 2, 31);
  const auto pb = random_vector<T>(n * 2, -1, 1, 32);
  kops::cuda::options o;
  o.devices = devices;
  o.scheme = scheme;
  std::vector<T> sol(pb.size());
  const kops::solve_result r = kops::cuda::solve_host(K, a, alpha, n, n, sol.data(), px.data(), px.data(), pb.data(), o);
  return {sol, r};
}

// The most memory device d's default pool has held since the last call
// (reset then): whether a solve put work on d.
std::uint64_t pool_high_since_last(int d) {
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&pool, d) == cudaSuccess);
  std::uint64_t high = 0, zero = 0;
  REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high) == cudaSuccess);
  REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero) == cudaSuccess);
  return high;
}

} // namespace

TEMPLATE_TEST_CASE("GPU solve_host across devices: each product split by rows, one device's solve", "[solve][devices]",
                   float, double) {
  using T = TestType;
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  if (count < 2) return;  // one device: nothing to split
  for (const auto scheme : {kops::cuda::scheme::gpu_1d, kops::cuda::scheme::gpu_2d}) {
    (void)pool_high_since_last(1);
    const auto one = solve_on<T>({0}, scheme, n_rows);
    CHECK(pool_high_since_last(1) == 0);  // one device: nothing on device 1
    const auto both = solve_on<T>({0, 1}, scheme, n_rows);
    CHECK(pool_high_since_last(1) > 0);   // device 1 took its share of the products
    const auto swapped = solve_on<T>({1, 0}, scheme, n_rows);  // CG on device 1
    REQUIRE(one.second.converged);
    CHECK(both.first == one.first);
    CHECK(swapped.first == one.first);
    CHECK(both.second.iterations == one.second.iterations);
    CHECK(both.second.residual_norm == one.second.residual_norm);
  }
  // Automatic (the parts may pick another scheme than the whole), and few
  // rows (the reduced axis split): the same solution up to summation order.
  for (const auto scheme : {kops::cuda::scheme::automatic, kops::cuda::scheme::gpu_1d}) {
    const auto one = solve_on<T>({0}, scheme);
    (void)pool_high_since_last(1);
    const auto both = solve_on<T>({0, 1}, scheme);
    CHECK(pool_high_since_last(1) > 0);
    REQUIRE(both.second.converged);
    for (std::size_t k = 0; k < one.first.size(); ++k)
      CHECK(close(both.first[k], one.first[k], sizeof(T) == 4 ? 1e-4 : 1e-10));
  }
}

TEST_CASE("GPU solve_host across devices: no captured iterations", "[solve][devices]") {
  const auto px = random_vector<float>(n * 3, 0, 2, 31);
  const auto pb = random_vector<float>(n * 2, -1, 1, 32);
  std::vector<float> sol(pb.size());
  kops::cuda::options o;
  o.devices = {0, 1};
  o.graph_iterations = 4;
  REQUIRE_THROWS_WITH(kops::cuda::solve_host(K, a, alpha, n, n, sol.data(), px.data(), px.data(), pb.data(), o),
                      "kops::cuda::solve_host: options::graph_iterations = 4 records the iterations on one device, "
                      "expected one device, given options::devices with 2");
}
