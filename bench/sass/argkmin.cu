// The 8 nearest neighbours: argkmin_reduction<8>(|x_i - y_j|^2), x, y in R^D
// (SASS_D, default 3; 128 for cases.sh's argkmin8_d128, the width of the
// PyTorch cdist + topk row of the scoreboard).
// KeOps: ArgKMin_Reduction(SqDist(X,Y),8,0), X=Vi(D) Y=Vj(D).
#include "kops_sass.hpp"

#ifndef SASS_D
#define SASS_D 3
#endif

namespace {
constexpr auto x = kops::vi<0, SASS_D>;
constexpr auto y = kops::vj<1, SASS_D>;
constexpr auto knn = kops::argkmin_reduction<8>(kops::sqdist(x, y), kops::axis_j);
} // namespace

void instantiate(std::int64_t* out, const kops_sass::T* px, const kops_sass::T* py) {
  kops_sass::instantiate(knn, out, px, py);
}
