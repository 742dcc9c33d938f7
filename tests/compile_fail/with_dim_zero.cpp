// expect: kops::with_dim: list at least one dimension, each >= 1 and none twice
// A dimension of 0 in the list is a compile error, and the only one: f is not
// instantiated (kops::vi<0, 0> would be a second error).
#include <kops/kops.hpp>
void f(int d) {
  kops::with_dim<0, 3>(d, [](auto D) {
    constexpr auto x = kops::vi<0, D>;
    (void)x;
  });
}
