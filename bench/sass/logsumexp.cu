// logsumexp_reduction(-g |x_i - y_j|^2), x, y in R^3.
// KeOps (pykeops' reduction_op='LogSumExp'): Max_SumShiftExp_Reduction(-G*SqDist(X,Y),0),
// X=Vi(3) Y=Vj(3) G=Pm(1); pykeops takes the log of the (max, sum) pair afterwards, on the host side.
#include "kops_sass.hpp"

namespace {
constexpr auto x = kops::vi<0, 3>;
constexpr auto y = kops::vj<1, 3>;
constexpr auto g = kops::pm<2, 1>;
constexpr auto lse = kops::logsumexp_reduction(-g * kops::sqdist(x, y), kops::axis_j);
} // namespace

void instantiate(kops_sass::T* out, const kops_sass::T* px, const kops_sass::T* py, const kops_sass::T* pg) {
  kops_sass::instantiate(lse, out, px, py, pg);
}
