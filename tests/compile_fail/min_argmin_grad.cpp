// expect: kops::grad: this reduction has no gradient
// min_argmin / max_argmax write value-and-index pairs: they have no gradient (as
// in KeOps); differentiate min_reduction / max_reduction instead.
#include <kops/kops.hpp>

int main() {
  constexpr auto x = kops::vi<0, 3>;
  constexpr auto r = kops::min_argmin_reduction(kops::sqdist(x, kops::vj<1, 3>), kops::axis_j);
  constexpr auto g = kops::grad(r, x, kops::vi<2, 1>);
  (void)g;
}
