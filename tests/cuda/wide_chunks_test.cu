// Variables of any width on the GPU backend: the backend-generic body of
// tests/common/wide_body.hpp (GPU_1D in float, GPU_2D with small chunks in
// double: both reach the pair loop, block_reduce.hpp, where chunked sums read
// their variables from global memory), its first third (KOPS_WIDE_PART 1: the
// Gaussians over widths, every reduction kind at D = 784); the others are
// wide_chunks_io_test.cu and wide_chunks_grad_test.cu. Runs on a GPU and, built against
// kops::cuda_emulated, on CPU threads (ctest label gpu_emulated).
#include "cuda_support.hpp"

#define KOPS_WIDE_PART 1
#include "wide_chunks_configs.hpp"
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
// Final chunks (final_chunks.hpp): the gradient w.r.t. the 784-wide x, whose
// kernel part is wide: x, y leave the layouts (only e_i and b_j stay), the
// sqdist staged, the output 32 components at a time (16 in double); not under
// a compensated sum, float64 accumulation or 16-bit storage (the accumulator
// stays in registers there), nor for a narrow output.
using grad784 = decltype(kops::grad(
    kops::sum_reduction(kops::exp(-kops::pm<3, 1> * kops::sqdist(x, y)) * kops::vj<2, 1>, kops::axis_j), x,
    kops::vi<4, 1>));
using G = kops::cuda::detail::kernel_traits<grad784, float, kops::precision::fast>;
static_assert(G::final_chunks && G::staged && G::row_dims == 1 && G::red_dims == 1 && G::tile == 32);
static_assert(G::final_plan::chunk == 32 && G::final_plan::nscalars == 1 && G::final_plan::width == 784);
static_assert(kops::cuda::detail::kernel_traits<grad784, double, kops::precision::fast>::final_plan::chunk == 16);
static_assert(!kops::cuda::detail::kernel_traits<grad784, float, kops::precision::fast, kops::sum_scheme::kahan>::final_chunks);
static_assert(!kops::cuda::detail::kernel_traits<grad784, float, kops::precision::fast, kops::sum_scheme::block,
                                                 kops::dtype_acc::float64>::final_chunks);
static_assert(!kops::cuda::detail::pass_traits_t<kops::policy<kops::precision::fast, kops::sum_scheme::block, kops::dtype_acc::same>, grad784,
                                                     kops::half, float>::final_chunks);
static_assert(!K::final_chunks);
// A wide row variable times a narrow kernel: final chunks, nothing staged, the
// kernel's x, y in registers and the tile.
using krow = decltype(kops::sum_reduction(
    kops::exp(-kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>)) * kops::vi<2, 1000>, kops::axis_j));
using KR = kops::cuda::detail::kernel_traits<krow, float, kops::precision::fast>;
static_assert(KR::final_chunks && !KR::staged && KR::row_dims == 3 && KR::red_dims == 3);
} // namespace
