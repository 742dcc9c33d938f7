// expect: kops::eval: in the range form, pass one range per argument index.*arguments_expected<2>::given<1>
// errors: 1
#include <kops/kokkos.hpp>
#include <span>
void f(std::span<const float> x, std::span<float> out) {
  kops::kokkos::eval(kops::sum_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_j), out, x);
}
