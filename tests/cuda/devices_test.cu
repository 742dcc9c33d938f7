// kops::cuda::eval_host with options::devices: the output rows split across
// several GPUs when there are at least 256 per device (two and three emulated
// devices under kops::cuda_emulated, whose KOPS_EMULATED_DEVICES is 2 by
// default: the three-device case runs where three exist, ctest
// emulated_three_devices), each row computed as one device computes it.
// Fewer rows split the reduced axis: streamed_test.cu.
#include "cuda_support.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using namespace kops_test;
using Catch::Matchers::Contains;

constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto d2 = kops::sqdist(x, y);

template <class Out, class Red>
void split_equals_one(Red red, std::int64_t M, std::int64_t N, std::initializer_list<int> devices) {
  const auto px = random_vector<float>(std::size_t(M * 3), -1, 1, 1);
  const auto py = random_vector<float>(std::size_t(N * 3), -1, 1, 2);
  const auto pb = random_vector<float>(std::size_t(N), -1, 1, 3);
  const std::vector<float> pg{0.7f};
  const std::int64_t rows = Red::row_cat == kops::category::i ? M : N;
  std::vector<Out> one(std::size_t(rows * red.dim)), split(one.size());
  kops::cuda::options o;
  o.scheme = kops::cuda::scheme::gpu_1d;  // the same scheme on every part: the same bytes
  kops::cuda::eval_host(red, M, N, one.data(), px.data(), py.data(), pb.data(), pg.data(), o);
  o.devices = devices;
  kops::cuda::eval_host(red, M, N, split.data(), px.data(), py.data(), pb.data(), pg.data(), o);
  CHECK(std::memcmp(one.data(), split.data(), one.size() * sizeof(Out)) == 0);
}

TEST_CASE("devices: eval_host splits the output rows across two (or three) GPUs", "[devices]") {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  if (count < 2) {
    WARN("one device: nothing to split");
    return;
  }
  for (std::int64_t M : {768, 1001}) {
    INFO("M = " << M);
    split_equals_one<float>(kops::sum_reduction(kops::exp(-g * d2) * b, kops::axis_j), M, 211, {0, 1});
    split_equals_one<std::int64_t>(kops::argkmin_reduction<3>(d2 - g * b, kops::axis_j), M, 211, {1, 0});
    split_equals_one<kops::value_index<float>>(kops::min_argmin_reduction(d2 - g * b, kops::axis_i), 211, M,
                                               {0, 1});
    if (count >= 3)
      split_equals_one<float>(kops::logsumexp_reduction(-g * d2 + b, kops::axis_j), M, 211, {2, 0, 1});
  }
  // A two-pass gradient's passes (50 and 60 rows) split their reduced axes:
  // the same values up to the summation order.
  constexpr auto lse = kops::logsumexp_reduction(-g * d2 + b, kops::axis_j);
  constexpr auto dy = kops::grad(lse, y, kops::vi<4, 1>);
  const auto px = random_vector<float>(50 * 3, -1, 1, 1), py = random_vector<float>(60 * 3, -1, 1, 2);
  const auto pb = random_vector<float>(60, -1, 1, 3), pe = random_vector<float>(50, -1, 1, 4);
  const std::vector<float> pg{0.7f};
  std::vector<float> one(60 * 3), split(60 * 3);
  kops::cuda::options o;
  kops::cuda::eval_host(dy, 50, 60, one.data(), px.data(), py.data(), pb.data(), pg.data(), pe.data(), o);
  o.devices = {1, 0};
  kops::cuda::eval_host(dy, 50, 60, split.data(), px.data(), py.data(), pb.data(), pg.data(), pe.data(), o);
  for (std::size_t k = 0; k < one.size(); ++k) CHECK(std::abs(split[k] - one[k]) <= 1e-5f * (1 + std::abs(one[k])));
}

TEST_CASE("devices: a device that does not exist is a kops::cuda_error", "[devices][errors]") {
  const std::vector<float> px(30, 0.5f), py(30, 0.25f), pb(10, 1.f), pg{1.f};
  std::vector<float> out(10);
  kops::cuda::options o;
  o.devices = {0, 1000};
  REQUIRE_THROWS_AS(kops::cuda::eval_host(kops::sum_reduction(kops::exp(-g * d2) * b, kops::axis_j), 10, 10,
                                          out.data(), px.data(), py.data(), pb.data(), pg.data(), o),
                    kops::cuda_error);
  (void)cudaGetLastError();
  o.devices = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0};
  REQUIRE_THROWS_WITH(kops::cuda::eval_host(kops::sum_reduction(kops::exp(-g * d2) * b, kops::axis_j), 10, 10,
                                            out.data(), px.data(), py.data(), pb.data(), pg.data(), o),
                      Contains("options::devices lists 17 devices, at most 16 are taken"));
}

} // namespace
