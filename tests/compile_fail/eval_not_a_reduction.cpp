// expect: kops::eval / kops::solve: the first argument must be a reduction, e.g. kops::sum_reduction\(f, kops::axis_j\)
// errors: 1
#include <kops/kokkos.hpp>
void f(const float* x, const float* y, float* out) {
  kops::kokkos::eval(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), 10, 10, out, x, y);
}
