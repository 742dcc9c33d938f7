// Gradient of the Gaussian sum (dimension SASS_D, default 3) w.r.t. x, with the i-indexed input e:
//   kops::grad(conv, x, kops::vi<4, 1>)      (whatever kernels it produces)
// KeOps (as pykeops' autograd builds it):
//   Grad_WithSavedForward(Sum_Reduction(Exp(-G*SqDist(X,Y))*B,0),X,Var(4,1,0),Var(5,1,0))
#include "kops_sass.hpp"

#ifndef SASS_D
#define SASS_D 3
#endif

namespace {
constexpr auto x = kops::vi<0, SASS_D>;
constexpr auto y = kops::vj<1, SASS_D>;
constexpr auto b = kops::vj<2, 1>;
constexpr auto g = kops::pm<3, 1>;
constexpr auto conv = kops::sum_reduction(kops::exp(-g * kops::sqdist(x, y)) * b, kops::axis_j);
constexpr auto dconv = kops::grad(conv, x, kops::vi<4, 1>);
} // namespace

void instantiate(kops_sass::T* gx, const kops_sass::T* px, const kops_sass::T* py, const kops_sass::T* pb,
                 const kops_sass::T* pg, const kops_sass::T* pe) {
  kops_sass::instantiate(dconv, gx, px, py, pb, pg, pe);
}
