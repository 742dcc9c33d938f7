// expect: kops::eval: wrong output pointer type
// A call on 16-bit arrays computes in float: it writes float or the 16-bit
// type, not double (a double output would promise precision it does not have).
#include <kops/kokkos.hpp>
void f(const kops::half* x, const kops::half* y, double* out) {
  kops::kokkos::eval(kops::sum_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_j), 10, 10,
                     out, x, y);
}
