// Variables of any width on the GPU backend: the backend-generic body of
// tests/common/wide_body.hpp (GPU_1D in float, GPU_2D with small chunks in
// double: both reach the pair loop, block_reduce.hpp, where chunked sums read
// their variables from global memory). Runs on a GPU and, built against
// kops::cuda_emulated, on CPU threads (ctest label gpu_emulated).
#include "cuda_support.hpp"

#define KOPS_TEST_CONFIGS_WIDE \
  (kops_test::cfg<kops_test::cuda_1d, float>), (kops_test::cfg<kops_test::cuda_2d, double>)
#include "../common/wide_body.hpp"

// What the kernels see: a chunked formula keeps its wide variables out of the
// registers and the tile, and a narrow one is left as it was.
namespace {
constexpr auto x = kops::vi<0, 784>;
constexpr auto y = kops::vj<1, 784>;
using gauss = decltype(kops::sum_reduction(kops::exp(-kops::sqdist(x, y)) * kops::vj<2, 1>, kops::axis_j));
using K = kops::cuda::detail::kernel_traits<gauss, float, kops::precision::fast>;
static_assert(K::chunked);
static_assert(K::row_dims == 0);
static_assert(K::red_dims == 1);
static_assert(K::staged && K::tile == 32);
using K3 = kops::cuda::detail::kernel_traits<decltype(kops::sum_reduction(
                                                 kops::exp(-kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>)), kops::axis_j)),
                                             float, kops::precision::fast>;
static_assert(!K3::chunked && K3::row_dims == 3 && K3::red_dims == 3);
// Sums over two widths: chunked, read chunk by chunk per pair (not staged).
using two = decltype(kops::sum_reduction(
    kops::exp(-kops::sqdist(x, y) - kops::dot(kops::vi<2, 300>, kops::vj<3, 300>)), kops::axis_j));
using K2 = kops::cuda::detail::kernel_traits<two, float, kops::precision::fast>;
static_assert(K2::chunked && !K2::staged && K2::row_dims == 0 && K2::red_dims == 0);
} // namespace
