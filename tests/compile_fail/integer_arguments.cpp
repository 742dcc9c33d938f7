// expect: kops::eval: arguments must be float, double, kops::half or kops::bfloat16 arrays
#include <kops/kokkos.hpp>
void f(const int* x, const int* y, int* out) {
  kops::kokkos::eval(kops::sum_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_j), 10, 10,
                     out, x, y);
}
