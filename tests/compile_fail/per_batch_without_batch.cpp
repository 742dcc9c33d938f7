// expect: an argument marked kops::per_batch needs the option kops::batch\{B\}
// An argument marked per_batch says it holds one array per batch, but without
// kops::batch{B} the call does not know how many: it does not compile.
#include <kops/kokkos.hpp>
void f(const float* x, const float* y, float* out) {
  constexpr auto red = kops::sum_reduction(kops::vi<0, 1> * kops::vj<1, 1>, kops::axis_j);
  kops::kokkos::eval(red, 10, 10, out, kops::per_batch(x), y);
}
