// The 8 nearest neighbours: argkmin_reduction<8>(|x_i - y_j|^2), x, y in R^3.
// KeOps: ArgKMin_Reduction(SqDist(X,Y),8,0), X=Vi(3) Y=Vj(3).
#include "kops_sass.hpp"

namespace {
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto knn = kops::argkmin_reduction<8>(kops::sqdist(x, y), kops::axis_j);
} // namespace

void instantiate(std::int64_t* out, const kops_sass::T* px, const kops_sass::T* py) {
  kops_sass::instantiate(knn, out, px, py);
}
