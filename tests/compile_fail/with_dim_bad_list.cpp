// expect: kops::with_dim: list at least one dimension, each >= 1 and none twice
// A dimension listed twice (or 0, or an empty list) is a compile error.
#include <kops/kops.hpp>
void f(int d) {
  kops::with_dim<1, 2, 2>(d, [](auto) {});
}
