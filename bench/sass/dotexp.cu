// An exponential dot-product sum  a_i = sum_j exp(g <x_i, y_j>) b_j,  x, y in R^SASS_D:
// the inner product the tensor cores take under both precision policies (3xTF32
// under precision::accurate: docs/tensor_cores.md), unlike sqdist, which
// precision::accurate keeps on the CUDA cores. Not in cases.sh's set (KeOps has
// no counterpart row there); bench/sass/tensor_cores.sh compiles it.
#include "kops_sass.hpp"

namespace {
using kops_sass::D;
constexpr auto x = kops::vi<0, D>;
constexpr auto y = kops::vj<1, D>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(g * kops::dot(x, y)) * b, kops::axis_j);
} // namespace

void instantiate(kops_sass::T* out, const kops_sass::T* px, const kops_sass::T* py, const kops_sass::T* pb,
                 const kops_sass::T* pg) {
  kops_sass::instantiate(conv, out, px, py, pb, pg);
}
