// expect: kops::eval: pass exactly one pointer per argument index.*arguments_expected<2>::given<1>
// errors: 1
#include <kops/kokkos.hpp>
void f(const float* x, float* out) {
  kops::kokkos::eval(kops::sum_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_j), 10, 10,
                     out, x);
}
