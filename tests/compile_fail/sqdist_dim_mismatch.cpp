// expect: kops::sqdist: both operands must have the same dim
#include <kops/kops.hpp>
auto f = kops::sqdist(kops::vi<0, 3>, kops::vj<1, 1>);
