// expect: kops::eval: all argument pointers must have the same element type
// One storage type per call: 16-bit and float arrays are not mixed.
#include <kops/kokkos.hpp>
void f(const kops::half* x, const float* y, float* out) {
  kops::kokkos::eval(kops::sum_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_j), 10, 10,
                     out, x, y);
}
