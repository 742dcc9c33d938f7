// expect: kops::eval: all argument pointers must have the same element type.*same_element_type<kops::detail::argument<0, float>, kops::detail::argument<2, double> >
// errors: 1
#include <kops/kokkos.hpp>
// The note after the rule names the first argument whose type differs (2) and its type.
void f(const float* x, const float* y, const double* b, float* out) {
  kops::kokkos::eval(kops::sum_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>) * kops::vj<2, 1>, kops::axis_j),
                     10, 10, out, x, y, b);
}
