// expect: kops::eval: the range form cannot deduce M or N here
// errors: 1
#include <kops/kokkos.hpp>
#include <span>
// A sum over j of a formula that reads no j-variable: nothing says N.
void f(std::span<const float> x, std::span<float> out) {
  kops::kokkos::eval(kops::sum_reduction(kops::vi<0, 3>, kops::axis_j), out, x);
}
