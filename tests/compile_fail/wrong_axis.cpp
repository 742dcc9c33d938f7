// expect: kops::min_reduction: the axis must be kops::axis_i or kops::axis_j
// errors: 1
#include <kops/kokkos.hpp>
// The rule is the only error: the declaration and the eval that uses it add none.
constexpr auto r = kops::min_reduction(kops::vi<0, 3>, 1);
void f(const float* x, float* out) { kops::kokkos::eval(r, 10, 10, out, x); }
