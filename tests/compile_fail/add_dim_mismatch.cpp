// expect: kops::operator\+: operand dims must be equal or one of them 1
#include <kops/kops.hpp>
auto f = kops::vi<0, 3> + kops::vj<1, 2>;
