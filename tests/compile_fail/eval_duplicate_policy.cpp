// expect: kops::eval: the template arguments are policies, at most one of each kind
// Two summation schemes in one call.
#include <kops/kops.hpp>
#include <kops/kokkos.hpp>

int main() {
  constexpr auto red = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  float x[1], y[1], out[1];
  kops::kokkos::eval<kops::sum_scheme::kahan, kops::sum_scheme::block>(red, 1, 1, out, x, y);
}
