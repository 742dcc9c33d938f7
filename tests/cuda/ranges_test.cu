// The range form of the GPU entry points (detail/sized.hpp): the
// backend-generic body through kops::cuda::eval_host, then kops::cuda::eval
// on spans of device memory and kops::cuda::solve / solve_host.
#include "cuda_support.hpp"

#include <cmath>
#include <span>

#include <kops/backends/cuda/solve.hpp>

#include "../common/ranges_body.hpp"

namespace {

using namespace kops_test;
using Catch::Matchers::Contains;

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);

template <class T> std::span<const T> dev(const device_copy<T>& d) { return {d.p, d.n}; }
template <class T> std::span<T> dev_out(device_copy<T>& d) { return {d.p, d.n}; }

TEST_CASE("cuda range form: eval on spans of device memory", "[ranges]") {
  constexpr std::int64_t M = 20, N = 31;
  const auto px = random_vector<float>(M * 3, -1, 1, 1);
  const auto py = random_vector<float>(N * 3, -1, 1, 2);
  const auto pb = random_vector<float>(N, -1, 1, 3);
  const device_copy<float> dx(px), dy(py), db(pb);
  device_copy<float> want{std::size_t(M)}, got{std::size_t(M)};
  kops::cuda::eval(conv, M, N, want.p, dx.p, dy.p, db.p);
  kops::cuda::eval(conv, dev_out(got), dev(dx), dev(dy), dev(db));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(got.to_host() == want.to_host());
  // Options after the ranges, as after the pointers.
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_2d;
  kops::cuda::eval(conv, dev_out(got), dev(dx), dev(dy), dev(db), o);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto two_d = got.to_host();
  const auto one_d = want.to_host();
  for (std::size_t i = 0; i < two_d.size(); ++i) CHECK(std::abs(two_d[i] - one_d[i]) <= 1e-5f * (1 + std::abs(one_d[i])));
  // A short device output: refused before anything is queued.
  REQUIRE_THROWS_WITH(kops::cuda::eval(conv, std::span<float>(got.p, M - 1), dev(dx), dev(dy), dev(db)),
                      Contains("kops::cuda::eval: the output holds 19 values, expected M x 1 = 20"));
}

TEST_CASE("cuda range form: solve and solve_host deduce N and check a and b", "[ranges][solve]") {
  constexpr std::int64_t N = 40;
  constexpr auto K = kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * b, kops::axis_j);
  const auto px = random_vector<double>(N * 3, -1, 1, 1);
  const auto pb = random_vector<double>(N, -1, 1, 3);
  std::vector<double> want(N), got(N);
  const auto r_p = kops::cuda::solve_host(K, b, 0.5, N, N, want.data(), px.data(), px.data(), pb.data());
  const auto r_r = kops::cuda::solve_host(K, b, 0.5, got, px, px, pb);
  CHECK(r_r.iterations == r_p.iterations);
  CHECK(got == want);
  const device_copy<double> dx(px), dbv(pb);
  device_copy<double> da{std::size_t(N)};
  const auto r_d = kops::cuda::solve(K, b, 0.5, dev_out(da), dev(dx), dev(dx), dev(dbv));
  CHECK(r_d.iterations == r_p.iterations);
  CHECK(da.to_host() == want);
  const std::vector<double> short_b(pb.begin(), pb.end() - 1);
  REQUIRE_THROWS_WITH(kops::cuda::solve_host(K, b, 0.5, got, px, px, short_b),
                      Contains("kops::cuda::solve_host: argument 2 (vj<2,1>) holds 39 values, expected N x 1 = 40"));
  REQUIRE_THROWS_WITH(kops::cuda::solve(K, b, 0.5, std::span<double>(da.p, N + 1), dev(dx), dev(dx), dev(dbv)),
                      Contains("kops::cuda::solve: the solution a holds 41 values, expected N x 1 = 40"));
}

} // namespace
