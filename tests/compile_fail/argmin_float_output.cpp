// expect: kops::eval: wrong output pointer type
#include <kops/kokkos.hpp>
void f(const float* x, const float* y, float* out) {
  kops::kokkos::eval(kops::argmin_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_j), 10, 10,
                     out, x, y);
}
