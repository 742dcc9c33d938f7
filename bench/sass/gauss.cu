// Gaussian sum  a_i = sum_j exp(-g |x_i - y_j|^2) b_j,  x, y in R^SASS_D, b in R^1.
// KeOps: Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0), X=Vi(D) Y=Vj(D) B=Vj(1) G=Pm(1).
#include "kops_sass.hpp"

namespace {
using kops_sass::D;
constexpr auto x = kops::vi<0, D>;
constexpr auto y = kops::vj<1, D>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
} // namespace

void instantiate(kops_sass::T* out, const kops_sass::T* px, const kops_sass::T* py, const kops_sass::T* pb,
                 const kops_sass::T* pg) {
  kops_sass::instantiate(conv, out, px, py, pb, pg);
}
