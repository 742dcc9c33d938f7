// expect: kops::eval: wrong output pointer type
// Indices are std::int64_t whatever the storage (KeOps' half mode stores them
// in half, which caps them at 2048): a 16-bit output of argmin is refused.
#include <kops/kokkos.hpp>
void f(const kops::bfloat16* x, const kops::bfloat16* y, kops::bfloat16* out) {
  kops::kokkos::eval(kops::argmin_reduction(kops::sqdist(kops::vi<0, 3>, kops::vj<1, 3>), kops::axis_j), 10, 10,
                     out, x, y);
}
