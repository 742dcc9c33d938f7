// expect: kops::dot: both operands must have the same dim
#include <kops/kops.hpp>
auto f = kops::dot(kops::vi<0, 3>, kops::vj<1, 2>);
